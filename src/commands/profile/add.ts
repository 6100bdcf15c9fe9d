import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {profileFlags} from '../../lib/cli/flags.js'
import {type Ended, OUTCOME, usageError} from '../../lib/errors.js'
import type {SignScheme} from '../../lib/gateway/signing.js'
import {type DoctorReport, runDoctor} from '../../lib/profiles/doctor.js'
import {type ProfileAnswers, askMissing, missingAnswers} from './add.run.js'
import {looseKeyFile, readKeyArgument} from '../../lib/profiles/keys.js'
import {unlockKey} from '../../lib/profiles/passphrase.js'
import {type ProfileView, viewProfile} from '../../lib/profiles/view.js'
import {savedProfileCheck} from '../../lib/render/doctor.js'
import {profileSavedLine} from '../../lib/render/profiles.js'

export default class ProfileAdd extends GwCommand<typeof ProfileAdd> {
  static override summary = 'add or replace a profile: appid, base URL and keys'
  static override description =
    'The key files are copied into the profile store (files readable by you only, 0600). The first profile added becomes the default. On a terminal, what is missing is asked for (and whether the account is live), and gw doctor then checks the new profile: if a check fails, the profile is kept and the command exits with the doctor\'s code. Without a terminal, every missing flag is named. A base URL ending in an operation (/native_pay) and a "gateway" key that is your own are refused.'
  static override examples = [
    '<%= config.bin %> profile add',
    '<%= config.bin %> profile add shop --appid mch20001 --base-url https://gateway.example/Gateway --private-key ./mch20001.pem --gateway-public-key ./gateway.pub.pem --live',
    '<%= config.bin %> profile add test --appid mch20001 --base-url http://127.0.0.1:8787/Gateway --private-key ./key.pem --gateway-public-key ./gw.pem --default',
  ]

  static override args = {name: Args.string({ignoreStdin: true, description: 'profile name'})}
  static override flags = {
    appid: Flags.string({description: 'merchant number, like mch20001'}),
    ...profileFlags,
    default: Flags.boolean({description: 'make it the default profile'}),
  }

  async run(): Promise<ProfileView & {doctor?: DoctorReport} & Ended> {
    const {flags} = this
    if (flags.profile) throw usageError('--profile does not apply to profile add; give the name as the argument.')
    const given: ProfileAnswers = {...flags, name: this.args.name}
    const guided = missingAnswers(given).length > 0
    const answers = guided ? await askMissing(given, this.io) : (given as Required<ProfileAnswers>)
    const {name} = answers
    const privateKeyPem = readKeyArgument(answers['private-key'], '--private-key', this.io.stdin)
    await unlockKey(privateKeyPem, 'the private key (--private-key)', answers['private-key'])
    const check = this.store.add(
      {
        name,
        appid: answers.appid,
        baseUrl: answers['base-url'],
        privateKeyPem,
        gatewayPublicKeyPem: readKeyArgument(answers['gateway-public-key'], '--gateway-public-key', this.io.stdin),
        signScheme: flags['sign-scheme'] as SignScheme | undefined,
        live: answers.live,
        gatewayZone: flags['gateway-zone'],
      },
      {makeDefault: flags.default, allowPlainHttp: flags['allow-plain-http']},
    )
    const loose = looseKeyFile(answers['private-key'], 'The private key file')
    for (const warning of [...check.warnings, ...(loose ? [loose] : [])]) this.warning(warning)
    const profile = this.store.load(name)
    const view = viewProfile(profile, this.store.defaultName() === name)
    this.log(profileSavedLine(view))
    if (!guided) {
      this.log(`Check it against the gateway with: gw doctor --profile ${view.name}`)
      return view
    }
    const doctor = await runDoctor(() => profile, 10_000)
    this.present(savedProfileCheck(doctor, name))
    return {...view, doctor, [OUTCOME]: doctor.outcome}
  }
}
