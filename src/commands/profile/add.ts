import {existsSync, readFileSync} from 'node:fs'

import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {runDoctor, type DoctorReport} from '../../lib/profiles/doctor.js'
import {GwError, usageError} from '../../lib/errors.js'
import {viewProfile, type ProfileView} from '../../lib/profiles/view.js'
import {normalizeBaseUrl, readKeyArgument} from '../../lib/profiles/store.js'
import {doctorView} from '../../lib/render/doctor.js'
import {SIGN_SCHEMES, type SignScheme, parsePrivateKey, parsePublicKey} from '../../lib/gateway/signing.js'

/** What the guided set-up asks for, in order: the flag, the question, the check of an answer. */
const QUESTIONS = [
  {
    flag: 'appid',
    message: 'Merchant appid (like mch20001)',
    check: (v: string) =>
      v.trim() && v.trim().length <= 32 ? true : 'The appid is 1 to 32 characters, like mch20001.',
  },
  {
    flag: 'base-url',
    message: 'Gateway base URL, up to the operation name (like https://host/Gateway)',
    check: (v: string) => attempt(() => normalizeBaseUrl(v)),
  },
  {flag: 'private-key', message: 'Your private key file (PEM)', check: (v: string) => keyFile(v, parsePrivateKey)},
  {
    flag: 'gateway-public-key',
    message: 'The gateway public key file (PEM)',
    check: (v: string) => keyFile(v, parsePublicKey),
  },
] as const

function attempt(run: () => unknown): true | string {
  try {
    run()
    return true
  } catch (error) {
    return error instanceof GwError
      ? `${error.message}${error.advice ? ` ${error.advice}` : ''}`
      : (error as Error).message
  }
}

function keyFile(path: string, parse: (pem: string) => unknown): true | string {
  if (!existsSync(path)) return `There is no file ${path}.`
  return attempt(() => parse(readFileSync(path, 'utf8')))
}

export default class ProfileAdd extends GwCommand<typeof ProfileAdd> {
  static override summary = 'add or replace a profile: appid, base URL and keys'
  static override description =
    'The key files are copied into the profile store (files readable by you only, 0600). The first profile added becomes the default. On a terminal, what is missing is asked for, and gw doctor then checks the new profile; without one, every missing flag is named.'
  static override examples = [
    '<%= config.bin %> profile add',
    '<%= config.bin %> profile add shop --appid mch20001 --base-url https://gateway.example/Gateway --private-key ./mch20001.pem --gateway-public-key ./gateway.pub.pem --live',
    '<%= config.bin %> profile add test --appid mch20001 --base-url http://127.0.0.1:8787/Gateway --private-key ./key.pem --gateway-public-key ./gw.pem --default',
  ]

  static override args = {name: Args.string({description: 'profile name'})}
  static override flags = {
    appid: Flags.string({description: 'merchant number, like mch20001'}),
    'base-url': Flags.string({description: 'address up to the operation name, like https://host/Gateway'}),
    'private-key': Flags.string({description: 'PEM file of the merchant private key (PKCS#1 or PKCS#8)'}),
    'gateway-public-key': Flags.string({description: 'PEM file of the gateway public key (SPKI or PKCS#1)'}),
    'sign-scheme': Flags.string({description: 'signature scheme', options: [...SIGN_SCHEMES], default: 'rsa-md5'}),
    live: Flags.boolean({description: 'a production account: money moves; commands that move it ask first'}),
    default: Flags.boolean({description: 'make it the default profile'}),
  }

  async run(): Promise<ProfileView & {doctor?: DoctorReport}> {
    const {flags} = this
    if (flags.profile) throw usageError('--profile does not apply to profile add; give the name as the argument.')
    const answers: Record<string, string | undefined> = {
      name: this.args.name,
      appid: flags.appid,
      'base-url': flags['base-url'],
      'private-key': flags['private-key'],
      'gateway-public-key': flags['gateway-public-key'],
    }
    const missing = [
      ...(answers.name ? [] : ['NAME']),
      ...QUESTIONS.filter((q) => !answers[q.flag]).map((q) => `--${q.flag}`),
    ]
    const guided = missing.length > 0
    if (guided) {
      if (!process.stdin.isTTY || !process.stderr.isTTY) {
        throw usageError(
          `Missing: ${missing.join(', ')}.`,
          'Give them as flags (there is no terminal to ask on); see gw profile add --help.',
        )
      }
      const {input} = await import('@inquirer/prompts')
      const ask = (message: string, validate: (v: string) => true | string) =>
        input({message, validate}, {output: process.stderr})
      answers.name ??= await ask('Profile name', (v) =>
        /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(v) ? true : 'Use letters, digits, ".", "_" or "-".',
      )
      for (const question of QUESTIONS) answers[question.flag] ??= await ask(question.message, question.check)
    }
    const name = answers.name!
    const check = this.store.add(
      {
        name,
        appid: answers.appid!,
        baseUrl: answers['base-url']!,
        privateKeyPem: readKeyArgument(answers['private-key']!, 'private key'),
        gatewayPublicKeyPem: readKeyArgument(answers['gateway-public-key']!, 'gateway public key'),
        signScheme: flags['sign-scheme'] as SignScheme,
        live: flags.live,
      },
      {makeDefault: flags.default},
    )
    for (const warning of check.warnings) this.warning(warning)
    const profile = this.store.load(name)
    const view = viewProfile(profile, this.store.defaultName() === name)
    this.log(
      `Profile "${view.name}" saved${view.default ? ' (default)' : ''}: ${view.appid} at ${view.base_url}${view.live ? ', LIVE' : ''}.`,
    )
    if (!guided) {
      this.log(`Check it against the gateway with: gw doctor --profile ${view.name}`)
      return view
    }
    this.log('Checking it against the gateway (gw doctor):')
    const doctor = await runDoctor(() => profile, 10_000)
    this.log(doctorView(doctor))
    return {...view, doctor}
  }
}
