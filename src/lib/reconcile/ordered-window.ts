/**
 * Work over a stream whose results finish out of order but must be used in the stream's
 * order (reconcile writes rows as the file has them). A bounded window: no item is taken
 * more than `window` places ahead of the oldest one not yet emitted, so memory does not
 * grow with the stream however slow one item is.
 */
import {type BatchOptions, runBatch} from '../batch.js'

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
