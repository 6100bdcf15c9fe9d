/**
 * Asking before money moves. On a --live profile every money-moving command asks; a bulk
 * refund always asks. A terminal gets a question; without one, --yes is required.
 */
import {stopSignalOf, stoppedError, usageError} from '../errors.js'
import {type CommandIO, canAsk} from '../io/streams.js'
import {terminalSafe, viewSafe} from '../untrusted.js'
import {terminalClosed} from './interrupt.js'

export interface ConfirmOptions {
  profile: {name: string; appid: string; live: boolean}
  /** The flag that answers for the user (--yes, or --again) was given. */
  yes: boolean
  /** That flag's name, for the message without a terminal; --yes when not said. */
  flag?: string
  /** Ask even on a test profile (bulk refunds). */
  always?: boolean
  /** Said after "Add --yes to confirm" when there is no terminal, e.g. another way to look first. */
  otherwise?: string
  /** The command's stop (Ctrl-C, SIGTERM, SIGHUP): it takes the question away, and nothing is sent. */
  signal?: AbortSignal
  /** What to read before answering (a bulk run's plan), shown above the question when there is one. */
  before?: string
}

/**
 * A question's answer. Ctrl-C typed at it reaches no signal handler (the question reads the
 * terminal key by key, and takes the key itself): it stops the command as the signal would (exit
 * 130), saying `stopped`, never as an unexpected failure.
 */
export async function answered<T>(question: Promise<T>, stopped: string): Promise<T> {
  try {
    return await question
  } catch (error) {
    if ((error as Error).name !== 'ExitPromptError') throw error
    throw stoppedError('SIGINT', stopped, 'Run the same command again.')
  }
}

/** A passphrase asked on the command's terminal, its input hidden. */
export async function askHidden(message: string, io: CommandIO): Promise<string> {
  const {password} = await import('@inquirer/prompts')
  return answered(
    password({message}, {input: io.stdin, output: io.stderr}),
    'Stopped before the passphrase was given: nothing was sent.',
  )
}

export async function confirm(action: string, options: ConfirmOptions, io: CommandIO): Promise<void> {
  const {profile, yes} = options
  if (yes || (!profile.live && !options.always)) return
  if (!canAsk(io)) {
    const what = profile.live
      ? `Profile "${profile.name}" is live and this would ${action}.`
      : `Not confirmed: this would ${action}.`
    // `otherwise` may end in a command to run: nothing follows it, so it pastes as printed.
    const otherwise = options.otherwise ? `, ${options.otherwise}` : '.'
    throw usageError(what, `Add ${options.flag ?? '--yes'} to confirm (no terminal to ask on)${otherwise}`)
  }
  const {confirm: ask} = await import('@inquirer/prompts')
  // The question names files and numbers that came from files and the history: made visible, never run by the terminal.
  if (options.before) io.stderr.write(`${viewSafe(options.before)}\n`)
  // Test or live said in the question itself: asked on a test profile too, it must not read as live.
  const mode = profile.live ? 'LIVE: ' : options.always ? 'TEST: ' : ''
  const message = terminalSafe(`${mode}${action} (profile "${profile.name}", ${profile.appid})?`)
  const stopped = (signal: unknown) =>
    stoppedError(signal, 'Stopped before the question was answered: nothing was sent.', 'Run the same command again.')
  // A terminal closed under the question fails its reads, then the question's clean-up (EIO on
  // stdin, which readline throws again as its own error before the hang-up's signal is heard):
  // that is the hang-up, never a crash. The listeners go once the question is answered; after a
  // stop or a hang-up gw is ending, and the closed terminal's last errors may still come.
  let closed!: () => void
  const hungUp = new Promise<never>((_, reject) => (closed = () => reject(stopped('SIGHUP'))))
  const onError = (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EIO') throw error
    terminalClosed()
    closed()
  }
  io.stdin.on('error', onError)
  process.on('uncaughtException', onError)
  let ok: boolean
  try {
    const asked = ask({message, default: false}, {input: io.stdin, output: io.stderr, signal: options.signal})
    ok = await Promise.race([answered(asked, 'Stopped before the question was answered: nothing was sent.'), hungUp])
  } catch (error) {
    if ((error as Error).name === 'AbortPromptError') throw stopped(stopSignalOf(options.signal?.reason))
    throw error
  }
  io.stdin.off('error', onError)
  process.off('uncaughtException', onError)
  if (!ok) throw usageError('Cancelled; nothing was sent.')
}
