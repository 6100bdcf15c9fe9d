import {Args} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {viewProfile, type ProfileView} from '../../lib/profiles/view.js'
import {resolveProfile} from '../../lib/profiles/resolve.js'
import {fields} from '../../lib/render/fields.js'

export default class ProfileShow extends GwCommand<typeof ProfileShow> {
  static override summary = 'show a profile: appid, base URL, key sizes and fingerprints (never the keys)'
  static override examples = ['<%= config.bin %> profile show', '<%= config.bin %> profile show shop --json']
  static override args = {
    name: Args.string({ignoreStdin: true, description: 'profile name (default: the profile in use)'}),
  }

  async run(): Promise<ProfileView> {
    const profile = await this.unlockedProfile(resolveProfile(this.args.name ?? this.flags.profile, this.store))
    const view = viewProfile(profile, this.store.defaultName() === profile.name)
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
        ['private key', `RSA ${view.private_key.bits} bits, fingerprint ${view.private_key.fingerprint}`],
        ['gateway key', `RSA ${view.gateway_public_key.bits} bits, fingerprint ${view.gateway_public_key.fingerprint}`],
      ]),
    )
    return view
  }
}
