/**
 * Ctrl-C, SIGTERM and SIGHUP (the terminal gw runs in was closed: a lost SSH session, a closed
 * window) as an AbortSignal, for work that stops gracefully (a bulk refund, a list, reconcile,
 * the listener, the sandbox): the first signal aborts, so the work finishes what is in flight and
 * records it; a second Ctrl-C or SIGTERM quits at once with 130 or 143 (a second SIGHUP is the
 * same hang-up: the shell passes it on, then the kernel sends its own).
 *
 * Outside such work a signal ends gw at once, as it always did, but through its exit handlers:
 * what waits to be committed to the history is. After SIGHUP the terminal is gone and writing
 * to it fails (EIO): what gw would say there is dropped, its files are written as ever, and gw
 * ends by the hang-up itself once its exit handlers have run (which shells report as 129): Node
 * 20 aborts on its way out of a process whose terminal is gone, as resetting the terminal's mode
 * fails (nodejs/node#51519, fixed in later versions), and a signal's end skips that reset.
 */
import {EXIT_CODES, STOP_SIGNALS, type StopSignal, outcomeOfSignal} from '../errors.js'

interface Interrupt {
  signal: AbortSignal
  /** Stops listening for the signals. */
  dispose(): void
}

/** How many pieces of work are listening for the signals now: while any is, none ends gw at once. */
let listening = 0
/** The terminal has been closed (a SIGHUP, or a question's read of it failing). */
let hungUp = false

/** The signal aborts with the name of the signal received (`SIGINT`, `SIGTERM`, `SIGHUP`) as its reason. */
export function onInterrupt(onFirst?: () => void): Interrupt {
  const controller = new AbortController()
  const handler = (received: StopSignal) => {
    // A hang-up comes twice (the shell passes it on, then the kernel sends its own): only Ctrl-C
    // or SIGTERM again quits at once.
    if (controller.signal.aborted) {
      if (received !== 'SIGHUP') endNow(received)
      return
    }
    onFirst?.()
    controller.abort(received)
  }
  listening += 1
  for (const name of STOP_SIGNALS) process.on(name, handler)
  return {
    signal: controller.signal,
    dispose() {
      listening -= 1
      for (const name of STOP_SIGNALS) process.off(name, handler)
    },
  }
}

let ending = false
/** A SIGHUP has been heard (the terminal may have been found closed before it came). */
let hangUpHeard = false

/**
 * A write to the terminal that fails with EIO: the terminal is gone, and its SIGHUP may not have
 * been handled yet (a progress line written in between). Taken as the hang-up it announces, not
 * as an error that ends gw mid-work; the SIGHUP that follows stops the work. A reader gone from
 * stdout's pipe (EPIPE, `| head`) is not an error either, as oclif has it; any other error is.
 */
function onOutputError(error: NodeJS.ErrnoException): void {
  if (error.code === 'EIO') terminalClosed()
  else if (error.code !== 'EPIPE') throw error
}

/** From a command's start: a signal ends gw through its exit handlers, unless its work listens for it. */
export function endOnSignals(): void {
  if (ending) return
  ending = true
  // stdout's listener is oclif's (EPIPE dropped, all else thrown), which this one replaces.
  for (const stream of [process.stdout, process.stderr]) stream.removeAllListeners('error').on('error', onOutputError)
  for (const name of STOP_SIGNALS) {
    process.on(name, (received: StopSignal) => {
      if (received === 'SIGHUP') {
        // Heard once: the shell's and the kernel's are one hang-up, and the work ends as it was ending.
        if (hangUpHeard) return
        hangUpHeard = true
        terminalClosed()
      }
      if (!listening) endNow(received)
    })
  }
}

/**
 * The terminal is gone. Writes to it (or to a pipe whose reader it took along) fail as errors of
 * the stream, which would end gw mid-work (oclif throws any but EPIPE): they are dropped, as what
 * they said has no reader left. When the work ends, gw ends by the hang-up.
 */
export function terminalClosed(): void {
  if (hungUp) return
  hungUp = true
  for (const stream of [process.stdout, process.stderr]) stream.removeAllListeners('error').on('error', () => undefined)
  // A question being asked reads the terminal, and fails the same way (setRawMode EIO).
  if (process.stdin.isTTY) process.stdin.on('error', () => undefined)
  process.once('beforeExit', endHungUp)
}

/** Ends gw at once with the exit code of `received` (after a hang-up, by the hang-up). */
function endNow(received: StopSignal): void {
  if (hungUp) endHungUp()
  else process.exit(EXIT_CODES[outcomeOfSignal(received)])
}

/** Runs gw's exit handlers, then ends it by SIGHUP, its default action restored (no reset of the terminal's mode). */
function endHungUp(): void {
  // Windows (its console closed) has no signal to end by: process.kill throws ENOSYS there. Its
  // exit code says the same, after the exit handlers.
  if (process.platform === 'win32') process.exit(EXIT_CODES.hung_up)
  process.emit('exit', process.exitCode === undefined ? EXIT_CODES.hung_up : Number(process.exitCode))
  process.removeAllListeners('SIGHUP')
  process.kill(process.pid, 'SIGHUP')
}
