import {resolve} from 'node:path'

import {Flags} from '@oclif/core'

import {GwCommand} from '../../../lib/cli/base-command.js'
import {usageError} from '../../../lib/errors.js'
import {KeyError, SIGN_SCHEMES, type SignScheme} from '../../../lib/gateway/signing.js'
import {defaultSandboxDir} from '../../../lib/paths.js'
import {readKeyArgument} from '../../../lib/profiles/keys.js'
import type {OwnMerchant} from '../../../sandbox/own-merchant.js'

export default class SandboxMerchantAdd extends GwCommand<typeof SandboxMerchantAdd> {
  static override summary = 'register a merchant of your own with the sandbox: its appid and public key'
  static override description =
    "For trying your own integration with your own key pair: the sandbox then accepts requests from that appid signed with your private key (which stays with you; give only the public key, PKCS#1 or SPKI PEM). The merchant has every channel and currency. A sandbox running on the data dir takes it at once; otherwise it is taken when the sandbox starts. Answers to it are signed with the sandbox's gateway key (keys/gateway.public.pem or keys/gateway.public.pkcs1.pem in the data dir)."
  static override examples = [
    '<%= config.bin %> sandbox merchant add --appid mch35005 --public-key my-public.pem',
    '<%= config.bin %> sandbox merchant add --appid mch35005 --public-key my-public.pem --sign-scheme rsa-sha256 --data-dir ./sandbox-data',
  ]
  static override flags = {
    appid: Flags.string({description: 'the merchant number: mch followed by digits', required: true}),
    'public-key': Flags.string({description: "PEM file of the merchant's public key", required: true}),
    'sign-scheme': Flags.string({
      description: 'how the merchant signs',
      options: [...SIGN_SCHEMES],
      default: 'rsa-md5',
    }),
    'data-dir': Flags.string({description: "the sandbox's data dir (default: gw sandbox start's default)"}),
  }

  async run(): Promise<OwnMerchant> {
    const {flags} = this
    const publicKeyPem = readKeyArgument(flags['public-key'], '--public-key', this.io.stdin)
    const dataDir = resolve(flags['data-dir'] ?? defaultSandboxDir(this.io.env))
    const [{addOwnMerchant}, {MerchantConfigError}] = await Promise.all([
      import('../../../sandbox/own-merchant.js'),
      import('../../../sandbox/merchants.js'),
    ])
    const signScheme = flags['sign-scheme'] as SignScheme
    const added = await addOwnMerchant(dataDir, {appid: flags.appid, publicKeyPem, signScheme}).catch(
      (error: unknown) => {
        if (error instanceof KeyError) throw usageError(`--public-key: ${error.message}.`)
        if (error instanceof MerchantConfigError) throw usageError(`${error.message}.`, 'Nothing was registered.')
        throw error
      },
    )
    const state = added.added ? 'registered' : 'already registered with this key'
    const where = added.running
      ? `the sandbox running at ${added.running} accepts it now`
      : 'the sandbox accepts it when it starts (gw sandbox start)'
    this.log(`${added.appid}: ${state} (${added.sign_scheme}, key ${added.fingerprint}); ${where}.`)
    return added
  }
}
