/**
 * Trying again: one loop shape for every retry in gw (the client's attempts, answers that
 * stay NOTSURE, preflight rounds, send-and-look-up rounds). A policy says how many tries in
 * all and how long to wait before each retry; the caller decides what counts as done.
 */
import {setTimeout as sleep} from 'node:timers/promises'

export interface RetryPolicy {
  /** Tries in all, the first included. */
  tries: number
  /** Milliseconds to wait before try `n` (n >= 2). */
  delayMs(n: number): number
}

/** Exponential backoff from `baseMs`, capped at `capMs`, with full jitter (so that many clients do not retry in step). */
export const jitteredBackoff =
  (baseMs: number, capMs: number) =>
  (n: number): number =>
    Math.random() * Math.min(capMs, baseMs * 2 ** (n - 2))

/** A wait that grows by `stepMs` each retry: 1 x step before the second try, 2 x before the third. */
export const linearBackoff =
  (stepMs: number) =>
  (n: number): number =>
    stepMs * (n - 1)

/** Yields the try numbers 1..tries, waiting the policy's delay before each retry. */
export async function* tries(policy: RetryPolicy): AsyncGenerator<number> {
  for (let n = 1; n <= policy.tries; n++) {
    if (n > 1) {
      const delay = policy.delayMs(n)
      if (delay > 0) await sleep(delay)
    }
    yield n
  }
}
