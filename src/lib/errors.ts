/**
 * Exit codes of docs/design.md and the one error type that carries them. Every failure a user
 * can meet ends as a GwError: a sentence saying what failed and one saying what to do.
 */

/**
 * How a command ends, in docs/design.md's words, and its exit code: the one table. Services and views
 * say what happened (an outcome); only the base command turns it into the process's exit code.
 */
export const EXIT_CODES = {
  done: 0,
  /** The gateway said no (result FAIL), reconcile found mismatches, a batch had failed rows. */
  refused: 1,
  /** Bad usage or input: nothing was sent. */
  usage: 2,
  transport: 3,
  /** An answer or notification failed verification: nothing in it trusted. */
  signature: 4,
  /** Money may have moved and is not proven: the next run settles it. */
  unknown: 5,
  /** A bulk run's refunds sent, and no channel can show their outcome: confirm them on the merchant platform. */
  not_confirmable: 6,
  hung_up: 129,
  interrupted: 130,
  terminated: 143,
} as const
export type Outcome = keyof typeof EXIT_CODES

/**
 * How a command's run ended, carried by the result it returns (never in its --json document: a
 * symbol is no JSON key). Only the base command makes it the exit code; a result without it is done.
 */
export const OUTCOME = Symbol('how the run ended')
export type Ended = {[OUTCOME]?: Outcome}
export type ExitCode = (typeof EXIT_CODES)[Outcome]

/** Of several outcomes met by one command's parts (a list's refresh, a replay), the gravest: the one of the highest code. */
export const gravest = (outcomes: readonly Outcome[]): Outcome =>
  outcomes.reduce<Outcome>((worst, outcome) => (EXIT_CODES[outcome] > EXIT_CODES[worst] ? outcome : worst), 'done')

/** The outcomes an error ends a command with. */
export type ErrorKind = Exclude<Outcome, 'done' | 'not_confirmable'>

/** The signals that stop gw's work, and what each is: Ctrl-C, a stop asked for, its terminal closed. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
export type StopSignal = (typeof STOP_SIGNALS)[number]
const KIND_OF_SIGNAL = {SIGINT: 'interrupted', SIGTERM: 'terminated', SIGHUP: 'hung_up'} as const

/** Which of them stopped the work (an AbortSignal's reason): Ctrl-C unless it says otherwise. */
export const stopSignalOf = (reason: unknown): StopSignal =>
  STOP_SIGNALS.includes(reason as StopSignal) ? (reason as StopSignal) : 'SIGINT'

/** How a run stopped by a signal ends: interrupted (130) for SIGINT (Ctrl-C), terminated (143) for SIGTERM, hung up (129) for SIGHUP. */
export const outcomeOfSignal = (signal: unknown): Outcome => KIND_OF_SIGNAL[stopSignalOf(signal)]

/** The error of work stopped by a signal before anything was sent: its kind gives 130, 143 or 129. */
export const stoppedError = (signal: unknown, message: string, advice: string) =>
  new GwError(KIND_OF_SIGNAL[stopSignalOf(signal)], message, {advice})

/** The command was stopped (a signal, Ctrl-C at a question): it ends so, never taken for a failed step. */
export const isStopped = (error: unknown): boolean =>
  error instanceof GwError && Object.values<string>(KIND_OF_SIGNAL).includes(error.kind)

export class GwError extends Error {
  readonly kind: ErrorKind
  /** What to do about it, one sentence. */
  readonly advice?: string
  /** Extra facts for --json (err_code, field, line...). */
  readonly details?: Record<string, unknown>

  constructor(
    kind: ErrorKind,
    message: string,
    options: {advice?: string; details?: Record<string, unknown>; cause?: unknown} = {},
  ) {
    super(message, {cause: options.cause})
    this.kind = kind
    this.advice = options.advice
    this.details = options.details
  }

  get exitCode(): ExitCode {
    return EXIT_CODES[this.kind]
  }
}

export const usageError = (message: string, advice?: string, details?: Record<string, unknown>) =>
  new GwError('usage', message, {advice, details})

/** What the system's codes for a failed write of this machine's own files mean, in words. */
const LOCAL_WRITE_FAILURES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission was denied',
  EPERM: 'the operation was not permitted',
  ENOENT: 'its folder is gone',
  EIO: 'the disk reported an input/output error',
}

/** The system calls that write (or put in place) a file. */
const WRITING = new Set(['write', 'writev', 'fsync', 'fdatasync', 'close', 'rename', 'ftruncate', 'mkdir', 'copyfile'])

/**
 * A write of gw's own output or state that the machine refused (a full disk, an output folder
 * removed during the run): said as that, exit 5 as docs/design.md has a batch stopped by a local
 * write failure, with what to do. Undefined for any other error. `writing`: the caller knows the
 * call wrote (an open for writing), which the error alone does not say; `file`: the file to name
 * (the output asked for, not the temporary file written first).
 */
export function localWriteFailure(error: unknown, known: {writing?: boolean; file?: string} = {}): GwError | undefined {
  const {code, path, dest, syscall} = (error ?? {}) as NodeJS.ErrnoException & {dest?: string}
  const meaning = code ? LOCAL_WRITE_FAILURES[code] : undefined
  if (!meaning || !syscall || !(known.writing || WRITING.has(syscall))) return undefined
  const where = known.file ?? dest ?? path
  return new GwError(
    'unknown',
    `${where ? `${where} could not be written` : 'A file could not be written'}: ${meaning} (${code}).`,
    {
      advice: 'Make room (or put the folder back), then run the same command again.',
      cause: error,
    },
  )
}

/** The profile a suggested command is for: named with --profile or not. */
export interface SuggestedFor {
  name: string
  named?: boolean
}

/**
 * Text as one word of a command to paste into a shell (POSIX shells, zsh): as it is when plain,
 * else in single quotes, inside which a shell expands nothing (not `$`, not an interactive
 * bash's `!`); a quote in it is closed, escaped and opened again.
 */
export function shellWord(text: string): string {
  return /^[\w./=,:@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}

/**
 * A gw command line to suggest, that runs as printed when pasted into a shell: each word quoted
 * where a shell would read it otherwise (a file name with a space, a number with a `$`), and the
 * profile named when the command's own was given with --profile (GW_PROFILE and the default
 * carry over by themselves). Put at the end of a sentence, with nothing after it to paste along.
 */
export function gwCommand(profile: SuggestedFor | undefined, ...words: (string | number)[]): string {
  const named = profile?.named ? ['--profile', profile.name] : []
  return ['gw', ...words, ...named].map((word) => shellWord(String(word))).join(' ')
}
