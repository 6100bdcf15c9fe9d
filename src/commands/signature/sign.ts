import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {usageError} from '../../lib/errors.js'
import {readKeyArgument} from '../../lib/profiles/keys.js'
import {keyPassphrase, unlockKey} from '../../lib/profiles/passphrase.js'
import {
  type KeyError,
  SIGN_SCHEMES,
  type SignScheme,
  canonicalString,
  parsePrivateKey,
  signCanonical,
} from '../../lib/gateway/signing.js'
import {terminalSafe, withoutKeys} from '../../lib/untrusted.js'
import {paramsOf} from './sign.run.js'

export default class SignatureSign extends GwCommand<typeof SignatureSign> {
  static override summary = 'show the canonical string and signature of some parameters'
  static override description =
    "Signs exactly the parameters given, with the profile's private key (or --private-key). Useful to compare with another implementation; the key itself is never printed."
  static override examples = [
    '<%= config.bin %> signature sign --param appid=mch20001 --param mch_order_no=INV-1001 --param channel=wechat --param nonce_str=abc --param time_stamp=20261121093015',
    '<%= config.bin %> signature sign --params-file request.json --scheme rsa-sha256 --private-key ./key.pem',
  ]

  static override flags = {
    param: Flags.string({description: 'a parameter as KEY=VALUE (repeat the flag)', multiple: true}),
    'params-file': Flags.string({description: 'a JSON object of parameters'}),
    'private-key': Flags.string({description: "PEM file of a private key to use instead of the profile's"}),
    scheme: Flags.string({
      description: "signature scheme (default: the profile's, else rsa-md5)",
      options: [...SIGN_SCHEMES],
    }),
  }

  async run(): Promise<{canonical: string; sign: string; scheme: SignScheme}> {
    const {flags} = this
    const params = paramsOf(flags.param ?? [], flags['params-file'], this.io.stdin)
    const pem = flags['private-key']
      ? readKeyArgument(flags['private-key'], '--private-key', this.io.stdin)
      : (await this.unlockedProfile()).privateKeyPem
    if (flags['private-key']) await unlockKey(pem, 'the private key (--private-key)', flags['private-key'])
    const scheme = (flags.scheme ?? (flags['private-key'] ? 'rsa-md5' : this.profile.signScheme)) as SignScheme
    const canonical = canonicalString(params)
    let key
    try {
      key = parsePrivateKey(pem, keyPassphrase())
    } catch (error) {
      throw usageError(`The private key is ${(error as Error).message}.`, (error as KeyError).advice)
    }
    const signature = signCanonical(canonical, key, scheme)
    // A key pasted as a parameter's value is signed as given, and withheld where the string is shown.
    this.log(terminalSafe(`canonical: ${canonical}`))
    this.log(`sign (${scheme}): ${signature}`)
    return {canonical: withoutKeys(canonical), sign: signature, scheme}
  }
}
