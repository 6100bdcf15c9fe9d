import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/base-command.js'
import {readKeyArgument} from '../../lib/profiles.js'
import {viewProfile, type ProfileView} from '../../lib/profile-view.js'
import {SIGN_SCHEMES} from '../../lib/signing.js'
import {usageError} from '../../lib/errors.js'

export default class ProfileAdd extends GwCommand<typeof ProfileAdd> {
  static override summary = 'add or replace a profile: appid, base URL and keys'
  static override description = 'The key files are copied into the profile store (files readable by you only, 0600). The first profile added becomes the default.'
  static override examples = [
    '<%= config.bin %> profile add shop --appid mch20001 --base-url https://gateway.example/Gateway --private-key ./mch20001.pem --gateway-public-key ./gateway.pub.pem --live',
    '<%= config.bin %> profile add test --appid mch20001 --base-url http://127.0.0.1:8787/Gateway --private-key ./key.pem --gateway-public-key ./gw.pem --default',
  ]

  static override args = {name: Args.string({description: 'profile name', required: true})}
  static override flags = {
    appid: Flags.string({description: 'merchant number, like mch20001', required: true}),
    'base-url': Flags.string({description: 'address up to the operation name, like https://host/Gateway', required: true}),
    'private-key': Flags.string({description: 'PEM file of the merchant private key (PKCS#1 or PKCS#8)', required: true}),
    'gateway-public-key': Flags.string({description: 'PEM file of the gateway public key (SPKI or PKCS#1)', required: true}),
    'sign-scheme': Flags.string({description: 'signature scheme', options: [...SIGN_SCHEMES], default: 'rsa-md5'}),
    live: Flags.boolean({description: 'a production account: money moves; commands that move it ask first'}),
    default: Flags.boolean({description: 'make it the default profile'}),
  }

  async run(): Promise<ProfileView> {
    const {flags, args} = this
    if (flags.profile) throw usageError('--profile does not apply to profile add; give the name as the argument.')
    const check = this.store.add({
      name: args.name,
      appid: flags.appid,
      baseUrl: flags['base-url'],
      privateKeyPem: readKeyArgument(flags['private-key'], 'private key'),
      gatewayPublicKeyPem: readKeyArgument(flags['gateway-public-key'], 'gateway public key'),
      signScheme: flags['sign-scheme'] as (typeof SIGN_SCHEMES)[number],
      live: flags.live,
    }, {makeDefault: flags.default})
    for (const warning of check.warnings) this.warning(warning)
    const view = viewProfile(this.store.load(args.name), this.store.defaultName() === args.name)
    this.log(`Profile "${view.name}" saved${view.default ? ' (default)' : ''}: ${view.appid} at ${view.base_url}${view.live ? ', LIVE' : ''}.`)
    this.log(`Check it against the gateway with: gw doctor --profile ${view.name}`)
    return view
  }
}
