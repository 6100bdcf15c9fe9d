import {readFileSync} from 'node:fs'

import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {type Ended, OUTCOME, usageError} from '../../lib/errors.js'
import {standardInputText} from '../../lib/io/standard-input.js'
import {readKeyArgument} from '../../lib/profiles/keys.js'
import {SIGN_SCHEMES, type SignScheme, parsePublicKey} from '../../lib/gateway/signing.js'
import type {BodyVerdict} from '../../lib/gateway/verify-bodies.js'

export default class SignatureVerify extends GwCommand<typeof SignatureVerify> {
  static override summary = 'verify a saved response or notification body, or every line of a log'
  static override description =
    'Reads JSON from FILE or standard input (-): a gateway response or notification (signed over "data"), or a flat object of request parameters with "sign"; or JSON lines, such as the log of gw notify listen --log, each line verified (for a log line, the body the gateway sent). Verifies with the profile\'s gateway public key, or --public-key. Exit 0 when every one is valid, 4 when any is not.'
  static override examples = [
    '<%= config.bin %> signature verify notification.json',
    '<%= config.bin %> signature verify notifications.jsonl',
    'pbpaste | <%= config.bin %> signature verify - --public-key gateway.pem',
  ]

  static override args = {
    file: Args.string({
      ignoreStdin: true,
      description: 'JSON or JSON-lines file, or - for standard input',
      required: true,
    }),
  }
  static override flags = {
    'public-key': Flags.string({description: "PEM file of the public key to use instead of the profile's gateway key"}),
    scheme: Flags.string({
      description: "signature scheme (default: the profile's, else rsa-md5)",
      options: [...SIGN_SCHEMES],
    }),
  }

  async run(): Promise<(BodyVerdict | {valid: boolean; lines: BodyVerdict[]}) & Ended> {
    const {flags, args} = this
    const [{verifyBodies}, {verdictLine}] = await Promise.all([
      import('../../lib/gateway/verify-bodies.js'),
      import('../../lib/render/signature.js'),
    ])
    // Standard input's own refusals are said as they are, not as a file's.
    let text = args.file === '-' ? standardInputText(this.io.stdin, 'FILE') : undefined
    try {
      text ??= readFileSync(args.file, 'utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw usageError(
        code === 'ENOENT'
          ? `There is no file ${args.file}.`
          : code === 'EISDIR'
            ? `${args.file} is a folder, not a file.`
            : `${args.file} cannot be read (${code}).`,
        'Give the path of a saved response or notification body, or - to read standard input.',
      )
    }
    const pem = flags['public-key']
      ? readKeyArgument(flags['public-key'], '--public-key', this.io.stdin)
      : this.profile.gatewayPublicKeyPem
    const scheme = (flags.scheme ?? (flags['public-key'] ? 'rsa-md5' : this.profile.signScheme)) as SignScheme
    let key
    try {
      key = parsePublicKey(pem)
    } catch (error) {
      throw usageError(`The public key is ${(error as Error).message}.`)
    }
    const {single, verdicts} = verifyBodies(text, key, scheme)
    if (single && verdicts[0]!.problem)
      throw usageError(`${args.file === '-' ? 'Standard input' : args.file}: ${verdicts[0]!.problem}.`)
    for (const verdict of verdicts) this.log(verdictLine(verdict, !single))
    const valid = verdicts.every((v) => v.valid)
    return {...(single ? verdicts[0]! : {valid, lines: verdicts}), [OUTCOME]: valid ? 'done' : 'signature'}
  }
}
