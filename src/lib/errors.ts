/**
 * Exit codes of DESIGN.md and the one error type that carries them. Every failure a user
 * can meet ends as a GwError: a sentence saying what failed and one saying what to do.
 */

export const ExitCode = {
  Done: 0,
  Refused: 1,
  Usage: 2,
  Transport: 3,
  Signature: 4,
  Unknown: 5,
  Interrupted: 130,
  Terminated: 143,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

type ErrorKind = 'refused' | 'usage' | 'transport' | 'signature' | 'unknown' | 'interrupted' | 'terminated'

const EXIT_BY_KIND: Record<ErrorKind, ExitCode> = {
  refused: ExitCode.Refused,
  usage: ExitCode.Usage,
  transport: ExitCode.Transport,
  signature: ExitCode.Signature,
  unknown: ExitCode.Unknown,
  interrupted: ExitCode.Interrupted,
  terminated: ExitCode.Terminated,
}

/** The exit code of a run stopped by a signal: 130 for SIGINT (Ctrl-C), 143 for SIGTERM. */
export const exitCodeOfSignal = (signal: unknown) => (signal === 'SIGTERM' ? ExitCode.Terminated : ExitCode.Interrupted)

/** The error of work stopped by a signal before anything was sent: its kind gives 130 or 143. */
export const stoppedError = (signal: unknown, message: string, advice: string) =>
  new GwError(signal === 'SIGTERM' ? 'terminated' : 'interrupted', message, {advice})

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
    return EXIT_BY_KIND[this.kind]
  }
}

export const usageError = (message: string, advice?: string, details?: Record<string, unknown>) =>
  new GwError('usage', message, {advice, details})
