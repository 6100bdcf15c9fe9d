import {Args} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {viewProfile, type ProfileView} from '../../lib/profiles/view.js'
import {resolveProfile} from '../../lib/profiles/resolve.js'
import {fields} from '../../lib/render/fields.js'

export default class ProfileShow extends GwCommand<typeof ProfileShow> {
  static override summary = 'show a profile: appid, base URL, key sizes and fingerprints (never the keys)'
  static override description =
    "Asks for nothing: an encrypted private key's size and fingerprint are shown when its passphrase is given (--passphrase-file or GW_KEY_PASSPHRASE); everything else needs none."
  static override examples = ['<%= config.bin %> profile show', '<%= config.bin %> profile show shop --json']
  static override args = {
    name: Args.string({ignoreStdin: true, description: 'profile name (default: the profile in use)'}),
  }

  async run(): Promise<ProfileView> {
    const profile = resolveProfile(this.args.name ?? this.flags.profile, this.store, this.io)
    const view = viewProfile(profile, this.store.defaultName() === profile.name)
    const {private_key: key, gateway_public_key: gatewayKey} = view
    const rsa = (info: {bits?: number; fingerprint?: string}) =>
      `RSA ${info.bits} bits, fingerprint ${info.fingerprint}`
    this.log(
      fields([
        [
          'profile',
          `${view.name}${view.default ? ' (default)' : ''}${view.source === 'environment' ? ' (from GW_* variables)' : ''}`,
        ],
        ['appid', view.appid],
        ['base URL', view.base_url],
        ['mode', view.live ? 'LIVE: money moves' : 'test'],
        ['sign scheme', view.sign_scheme],
        ['gateway zone', `${view.gateway_zone} (the zone of the gateway's times)`],
        [
          'private key',
          key.fingerprint
            ? `${rsa(key)}${key.encrypted ? ', encrypted' : ''}`
            : 'encrypted (its size and fingerprint with --passphrase-file or GW_KEY_PASSPHRASE)',
        ],
        ['gateway key', rsa(gatewayKey)],
      ]),
    )
    return view
  }
}
