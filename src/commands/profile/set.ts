import {Args} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {profileFlags} from '../../lib/cli/flags.js'
import {type Ended, OUTCOME, usageError} from '../../lib/errors.js'
import type {SignScheme} from '../../lib/gateway/signing.js'
import {type DoctorReport, runDoctor} from '../../lib/profiles/doctor.js'
import {looseKeyFile, readKeyArgument} from '../../lib/profiles/keys.js'
import {unlockKey} from '../../lib/profiles/passphrase.js'
import {type ProfileView, viewProfile} from '../../lib/profiles/view.js'
import {savedProfileCheck} from '../../lib/render/doctor.js'
import {profileSavedLine} from '../../lib/render/profiles.js'

export default class ProfileSet extends GwCommand<typeof ProfileSet> {
  static override summary = 'change some settings of a profile, keeping the others'
  static override description =
    "Changes the base URL, a key, the sign scheme, the gateway's time zone or whether the account is live; the rest stays as it was, and so does the default. After a change of the base URL, a key or the sign scheme, gw doctor checks the profile (exit with its code when a check fails; the change is kept)."
  static override examples = [
    '<%= config.bin %> profile set shop --base-url https://gateway.example/Gateway',
    '<%= config.bin %> profile set shop --private-key ./mch20001-2027.pem',
    '<%= config.bin %> profile set shop --no-live',
  ]

  static override args = {name: Args.string({ignoreStdin: true, description: 'profile name', required: true})}
  static override flags = profileFlags

  async run(): Promise<ProfileView & {doctor?: DoctorReport} & Ended> {
    const {flags} = this
    const name = this.args.name
    if (flags.profile) throw usageError('--profile does not apply to profile set; give the name as the argument.')
    const changes = {
      baseUrl: flags['base-url'],
      privateKeyPem: flags['private-key'] && readKeyArgument(flags['private-key'], '--private-key', this.io.stdin),
      gatewayPublicKeyPem:
        flags['gateway-public-key'] &&
        readKeyArgument(flags['gateway-public-key'], '--gateway-public-key', this.io.stdin),
      signScheme: flags['sign-scheme'] as SignScheme | undefined,
      live: flags.live,
      gatewayZone: flags['gateway-zone'],
    }
    if (Object.values(changes).every((v) => v === undefined))
      throw usageError(
        `Nothing to change: give --base-url, --private-key, --gateway-public-key, --sign-scheme, --gateway-zone or --live/--no-live.`,
      )
    // The private key the profile will have, unlocked if encrypted: the store checks it with the new settings.
    const kept = changes.privateKeyPem ? undefined : this.store.storedPrivateKey(name)
    if (changes.privateKeyPem)
      await unlockKey(changes.privateKeyPem, 'the private key (--private-key)', flags['private-key'])
    else if (kept) await unlockKey(kept.pem, `the private key of profile "${name}"`, kept.file)
    const check = this.store.set(name, changes, {allowPlainHttp: flags['allow-plain-http']})
    const loose = flags['private-key'] && looseKeyFile(flags['private-key'], 'The private key file')
    for (const warning of [...check.warnings, ...(loose ? [loose] : [])]) this.warning(warning)
    const profile = this.store.load(name)
    const view = viewProfile(profile, this.store.defaultName() === name)
    this.log(profileSavedLine(view))
    // What the gateway sees changed (where, with which keys, signed how): doctor checks it.
    if (!changes.baseUrl && !changes.privateKeyPem && !changes.gatewayPublicKeyPem && !changes.signScheme) return view
    const doctor = await runDoctor(() => profile, 10_000)
    this.present(savedProfileCheck(doctor, name))
    return {...view, doctor, [OUTCOME]: doctor.outcome}
  }
}
