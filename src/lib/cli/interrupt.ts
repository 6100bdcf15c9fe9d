/**
 * Ctrl-C and SIGTERM as an AbortSignal, for work that stops gracefully (a bulk refund, the
 * listener, the sandbox): the first signal aborts, so the work finishes what is in flight
 * and records it; a second one quits at once with exit 130.
 */
import {ExitCode} from '../errors.js'

interface Interrupt {
  signal: AbortSignal
  /** Stops listening for the signals. */
  dispose(): void
}

export function onInterrupt(onFirst?: () => void): Interrupt {
  const controller = new AbortController()
  const handler = () => {
    if (controller.signal.aborted) process.exit(ExitCode.Interrupted)
    onFirst?.()
    controller.abort()
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
