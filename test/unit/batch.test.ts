import {setTimeout as sleep} from 'node:timers/promises'

import {describe, expect, it} from 'vitest'

import {runBatch} from '../../src/lib/batch.js'

describe('runBatch', () => {
  it('does every item, never more than `concurrency` at once', async () => {
    let running = 0
    let most = 0
    const done: number[] = []
    await runBatch(
      Array.from({length: 20}, (_, i) => i),
      async (i) => {
        running++
        most = Math.max(most, running)
        await sleep(2)
        running--
        done.push(i)
      },
      {concurrency: 3},
    )
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({length: 20}, (_, i) => i))
    expect(most).toBe(3)
  })

  it('pulls a stream lazily, one pull at a time', async () => {
    let pulled = 0
    async function* items() {
      for (let i = 0; i < 10; i++) {
        pulled++
        yield i
      }
    }
    const seen: number[] = []
    await runBatch(items(), async (i) => void seen.push(i), {concurrency: 4})
    expect(pulled).toBe(10)
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('stops taking items when the signal aborts; those in flight finish', async () => {
    const stop = new AbortController()
    const finished: number[] = []
    const outcome = await runBatch(
      Array.from({length: 100}, (_, i) => i),
      async (i) => {
        if (i === 5) stop.abort()
        await sleep(1)
        finished.push(i)
      },
      {concurrency: 2, signal: stop.signal},
    )
    expect(outcome.stopped).toBe(true)
    expect(finished.length).toBeGreaterThanOrEqual(6)
    expect(finished.length).toBeLessThan(10)
  })

  it('starts nothing after a stop: an item waiting for its turn under the rate is dropped at once', async () => {
    const stop = new AbortController()
    const started: number[] = []
    // Timers fire in the order they fall due, however busy the machine: this one falls due after
    // item 1's slot (200 ms) and before the first slot a worker waits for (400 ms).
    let slotPassed = false
    const beforeNextSlot = setTimeout(() => (slotPassed = true), 390)
    const outcome = await runBatch(
      Array.from({length: 20}, (_, i) => i),
      async (i) => {
        started.push(i)
        if (i === 1) stop.abort()
      },
      {concurrency: 4, rate: 5, signal: stop.signal},
    )
    clearTimeout(beforeNextSlot)
    // At 5 a second, items 0 and 1 start at 0 and 200 ms; the stop comes then, while three workers
    // wait for later slots (up to 800 ms away): none of them starts, and the run ends at once.
    expect(outcome.stopped).toBe(true)
    expect(started).toEqual([0, 1])
    expect(slotPassed).toBe(false)
  })

  it('starts no more than `rate` items per second', async () => {
    const started: number[] = []
    await runBatch([1, 2, 3, 4, 5], async () => void started.push(Date.now()), {concurrency: 5, rate: 50})
    expect(started.at(-1)! - started[0]!).toBeGreaterThanOrEqual(4 * 20 - 5)
  })
})
