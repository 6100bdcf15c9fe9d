/**
 * Runs work over many items with a bound on concurrency and, optionally, on the rate of
 * starts per second. Pulls items lazily (a stream stays a stream) and stops taking new ones
 * when the signal aborts, letting those in flight finish: one pulled but waiting for its turn
 * under the rate is dropped, never started after the stop. Also the port such long work is given
 * by the command that runs it: its progress and its stop signal.
 */
import {setTimeout as sleep} from 'node:timers/promises'

/** How long work shows how far it is: the command draws it, the work ticks it. */
export interface Progress {
  tick(failed: boolean): void
  /** Ends the display (once; later ticks are still counted, not shown), so other lines never share its line. */
  stop(): void
}

/** Long work under way: its progress, and the signal that asks it to stop gracefully (Ctrl-C). */
export interface Work {
  progress: Progress
  signal: AbortSignal
  /** Stops the progress display and the signal handling. */
  done(): void
}

export interface BatchOptions {
  concurrency: number
  /** Starts per second at most. */
  rate?: number
  signal?: AbortSignal
}

export async function runBatch<T>(
  items: AsyncIterable<T> | Iterable<T>,
  work: (item: T) => Promise<void>,
  options: BatchOptions,
): Promise<{stopped: boolean}> {
  const iterator =
    Symbol.asyncIterator in items
      ? (items as AsyncIterable<T>)[Symbol.asyncIterator]()
      : (items as Iterable<T>)[Symbol.iterator]()
  let pulling: Promise<unknown> = Promise.resolve()
  // One pull at a time: async generators must not be entered concurrently.
  const next = () => {
    const result = pulling.then(() => iterator.next())
    pulling = result.catch(() => {})
    return result
  }
  const interval = options.rate ? 1000 / options.rate : 0
  let nextStart = Date.now()
  const {signal} = options
  /** Waits for the item's turn under the rate; a stop ends the wait at once. */
  const slot = async () => {
    if (!interval) return
    const now = Date.now()
    const at = Math.max(now, nextStart)
    nextStart = at + interval
    if (at > now) await sleep(at - now, undefined, {signal}).catch(() => undefined)
  }
  const worker = async () => {
    for (;;) {
      if (signal?.aborted) return
      const {value, done} = await next()
      if (done) return
      await slot()
      // An item waiting for its turn (a rate slot, a pull) is not in flight: after a stop it is not started.
      if (signal?.aborted) return
      await work(value as T)
    }
  }
  await Promise.all(Array.from({length: Math.max(1, options.concurrency)}, worker))
  return {stopped: Boolean(options.signal?.aborted)}
}

/**
 * Work over a stream whose results finish out of order but must be used in the stream's
 * order (reconcile writes rows as the file has them). A bounded window: no item is taken
 * more than `window` places ahead of the oldest one not yet emitted, so memory does not
 * grow with the stream however slow one item is.
 */
export async function mapInOrder<T, R>(
  items: AsyncIterable<T> | Iterable<T>,
  work: (item: T) => Promise<R>,
  emit: (result: R) => Promise<void>,
  options: BatchOptions & {window: number},
): Promise<{stopped: boolean}> {
  const finished = new Map<number, R>()
  let next = 0
  let taken = 0
  let roomMade: (() => void) | undefined
  let emitting = Promise.resolve()
  const flush = async () => {
    while (finished.has(next)) {
      const result = finished.get(next)!
      finished.delete(next)
      next++
      await emit(result)
    }
    if (taken - next < options.window) roomMade?.()
  }
  const numbered = (async function* () {
    for await (const item of items) {
      while (taken - next >= options.window) await new Promise<void>((resolve) => (roomMade = resolve))
      yield {seq: taken++, item}
    }
  })()
  const outcome = await runBatch(
    numbered,
    async ({seq, item}) => {
      finished.set(seq, await work(item))
      emitting = emitting.then(flush)
      await emitting
    },
    options,
  )
  await emitting
  return outcome
}
