import {setTimeout as sleep} from 'node:timers/promises'

import {describe, expect, it} from 'vitest'

import {mapInOrder} from '../../src/lib/batch.js'

async function* count(n: number, pulled: {n: number}) {
  for (let i = 0; i < n; i++) {
    pulled.n = i + 1
    yield i
  }
}

describe('mapInOrder', () => {
  it('emits in the stream order although work finishes out of order', async () => {
    const emitted: number[] = []
    await mapInOrder(
      count(50, {n: 0}),
      async (i) => (await sleep((i * 7) % 5), i),
      async (i) => void emitted.push(i),
      {concurrency: 8, window: 16},
    )
    expect(emitted).toEqual(Array.from({length: 50}, (_, i) => i))
  })

  it('never takes an item more than `window` places ahead of the oldest not emitted', async () => {
    const pulled = {n: 0}
    let release!: () => void
    const slow = new Promise<void>((resolve) => (release = resolve))
    let ahead = 0
    const run = mapInOrder(
      count(1000, pulled),
      async (i) => {
        if (i === 0) await slow
        return i
      },
      async () => {},
      {concurrency: 4, window: 10},
    )
    await sleep(20)
    ahead = pulled.n
    release()
    await run
    expect(ahead).toBeLessThanOrEqual(11)
    expect(pulled.n).toBe(1000)
  })

  it('stops taking items on the signal; what was taken is still emitted in order', async () => {
    const stop = new AbortController()
    const emitted: number[] = []
    const outcome = await mapInOrder(
      count(1000, {n: 0}),
      async (i) => {
        if (i === 20) stop.abort()
        return i
      },
      async (i) => void emitted.push(i),
      {concurrency: 4, window: 32, signal: stop.signal},
    )
    expect(outcome.stopped).toBe(true)
    expect(emitted).toEqual(Array.from({length: emitted.length}, (_, i) => i))
    expect(emitted.length).toBeLessThan(1000)
  })
})
