/**
 * Ctrl-C and SIGTERM as an AbortSignal, for work that stops gracefully (a bulk refund, the
 * listener, the sandbox): the first signal aborts, so the work finishes what is in flight
 * and records it; a second one quits at once with exit 130.
 */
import {exitCodeOfSignal} from '../errors.js'

interface Interrupt {
  signal: AbortSignal
  /** Stops listening for the signals. */
  dispose(): void
}

/** The signal aborts with the name of the signal received (`SIGINT`, `SIGTERM`) as its reason. */
export function onInterrupt(onFirst?: () => void): Interrupt {
  const controller = new AbortController()
  const handler = (received: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(exitCodeOfSignal(received))
    onFirst?.()
    controller.abort(received)
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    },
  }
}
