/**
 * The guided `gw profile add`: what is missing from the flags is asked for on a terminal,
 * each answer checked as it is typed (a URL, a readable key file), in the order a merchant
 * has them at hand.
 */
import {existsSync, readFileSync} from 'node:fs'

import {GwError, usageError} from '../../lib/errors.js'
import {type CommandIO, canAsk} from '../../lib/io/streams.js'
import {answered} from '../../lib/cli/confirm.js'
import {isEncryptedPem, parsePrivateKey, parsePublicKey} from '../../lib/gateway/signing.js'
import {typedPath} from '../../lib/paths.js'
import {normalizeBaseUrl} from '../../lib/profiles/settings.js'

export interface ProfileAnswers {
  name?: string
  appid?: string
  'base-url'?: string
  'private-key'?: string
  'gateway-public-key'?: string
  /** A production account; asked on a terminal when not given (--live / --no-live). */
  live?: boolean
}

type Check = (answer: string) => true | string

function attempt(run: () => unknown): true | string {
  try {
    run()
    return true
  } catch (error) {
    if (error instanceof GwError) return `${error.message}${error.advice ? ` ${error.advice}` : ''}`
    return (error as Error).message
  }
}

function keyFile(typed: string, parse: (pem: string) => unknown): true | string {
  const path = typedPath(typed)
  if (!existsSync(path)) return `There is no file ${path}.`
  return attempt(() => parse(readFileSync(path, 'utf8')))
}

/** What is asked, in order: the answer's name (NAME or a flag), the question, the check of an answer. */
const QUESTIONS: [Exclude<keyof ProfileAnswers, 'live'>, string, Check][] = [
  [
    'name',
    'Profile name',
    (v) => (/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(v) ? true : 'Use letters, digits, ".", "_" or "-".'),
  ],
  [
    'appid',
    'Merchant appid (like mch20001)',
    (v) => (v.trim() && v.trim().length <= 32 ? true : 'The appid is 1 to 32 characters, like mch20001.'),
  ],
  [
    'base-url',
    'Gateway base URL, up to the operation name (like https://host/Gateway)',
    (v) => attempt(() => normalizeBaseUrl(v)),
  ],
  // An encrypted key is taken here; its passphrase is asked next.
  [
    'private-key',
    'Your private key file (PEM)',
    (v) => keyFile(v, (pem) => isEncryptedPem(pem) || parsePrivateKey(pem)),
  ],
  ['gateway-public-key', 'The gateway public key file (PEM)', (v) => keyFile(v, parsePublicKey)],
]

/** The answers not given, as the user would give them: NAME, --appid, ... */
export function missingAnswers(answers: ProfileAnswers): string[] {
  return QUESTIONS.filter(([key]) => !answers[key]).map(([key]) => (key === 'name' ? 'NAME' : `--${key}`))
}

/** Asks for every missing answer on the terminal, and whether the account is live; without one, names them all (exit 2). */
export async function askMissing(answers: ProfileAnswers, io: CommandIO): Promise<Required<ProfileAnswers>> {
  const missing = missingAnswers(answers)
  if (missing.length && !canAsk(io)) {
    throw usageError(
      `Missing: ${missing.join(', ')}.`,
      'Give them as flags (there is no terminal to ask on); see gw profile add --help.',
    )
  }
  const {input, select} = await import('@inquirer/prompts')
  const complete = {...answers}
  const stopped = 'Stopped before the question was answered: no profile was saved.'
  for (const [key, message, validate] of QUESTIONS) {
    complete[key] ??= await answered(input({message, validate}, {input: io.stdin, output: io.stderr}), stopped)
  }
  // A key file's path as typed (~/keys/my.pem) is the file it names.
  for (const key of ['private-key', 'gateway-public-key'] as const) complete[key] = typedPath(complete[key]!)
  complete.live ??= await answered(
    select(
      {
        message: 'Which kind of account is it?',
        choices: [
          {name: 'test: the sandbox or the gateway test environment', value: false},
          {name: 'live: real money moves (commands that move it will ask first)', value: true},
        ],
      },
      {input: io.stdin, output: io.stderr},
    ),
    stopped,
  )
  return complete as Required<ProfileAnswers>
}
