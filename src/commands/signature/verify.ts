import {readFileSync} from 'node:fs'

import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {ExitCode, usageError} from '../../lib/errors.js'
import {readKeyArgument} from '../../lib/profiles/keys.js'
import {SIGN_SCHEMES, type SignScheme, canonicalString, parsePublicKey, verify} from '../../lib/gateway/signing.js'

interface VerifyResult {
  valid: boolean
  signed: 'data' | 'parameters'
  scheme: SignScheme
  canonical: string
}

export default class SignatureVerify extends GwCommand<typeof SignatureVerify> {
  static override summary = 'verify a saved response or notification body'
  static override description =
    'Reads JSON from FILE or standard input (-): a gateway response or notification (signed over "data"), or a flat object of request parameters with "sign". Verifies with the profile\'s gateway public key, or --public-key. Exit 0 when valid, 4 when not.'
  static override examples = [
    '<%= config.bin %> signature verify notification.json',
    'pbpaste | <%= config.bin %> signature verify - --public-key gateway.pem',
  ]

  static override args = {file: Args.string({description: 'JSON file, or - for standard input', required: true})}
  static override flags = {
    'public-key': Flags.string({description: "PEM file of the public key to use instead of the profile's gateway key"}),
    scheme: Flags.string({
      description: "signature scheme (default: the profile's, else rsa-md5)",
      options: [...SIGN_SCHEMES],
    }),
  }

  async run(): Promise<VerifyResult> {
    const {flags, args} = this
    let body: unknown
    try {
      const text = readFileSync(args.file === '-' ? 0 : args.file, 'utf8')
      body = JSON.parse(text.replace(/^\uFEFF/, ''))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw usageError(
          `There is no file ${args.file}.`,
          'Give the path of a saved response or notification body, or - to read standard input.',
        )
      throw usageError(
        `${args.file === '-' ? 'Standard input' : args.file} is not JSON: ${(error as Error).message}.`,
        'Save the body exactly as it was received.',
      )
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw usageError('The body must be a JSON object.')
    const object = body as Record<string, unknown>
    if (typeof object.sign !== 'string') throw usageError('The body has no "sign" field to verify.')
    const hasData = object.data !== undefined && typeof object.data === 'object' && object.data !== null
    const signedPart = (hasData ? object.data : object) as Record<string, unknown>
    const pem = flags['public-key']
      ? readKeyArgument(flags['public-key'], '--public-key')
      : this.profile.gatewayPublicKeyPem
    const scheme = (flags.scheme ?? (flags['public-key'] ? 'rsa-md5' : this.profile.signScheme)) as SignScheme
    let key
    try {
      key = parsePublicKey(pem)
    } catch (error) {
      throw usageError(`The public key is ${(error as Error).message}.`)
    }
    const valid = verify(signedPart, object.sign, key, scheme)
    this.log(
      valid
        ? `valid: the signature over ${hasData ? '"data"' : 'the parameters'} verifies (${scheme}).`
        : `INVALID: the signature over ${hasData ? '"data"' : 'the parameters'} does not verify with this key (${scheme}); do not trust this body.`,
    )
    if (!valid) this.setExitCode(ExitCode.Signature)
    return {valid, signed: hasData ? 'data' : 'parameters', scheme, canonical: canonicalString(signedPart)}
  }
}
