import {describe, expect, it} from 'vitest'

import {jitteredBackoff, linearBackoff, tries} from '../../src/lib/retry.js'

describe('retry policies', () => {
  it('yield every try number, waiting before each retry', async () => {
    const seen: [number, number][] = []
    const started = Date.now()
    for await (const n of tries({tries: 3, delayMs: () => 10})) seen.push([n, Date.now() - started])
    expect(seen.map(([n]) => n)).toEqual([1, 2, 3])
    expect(seen[2]![1]).toBeGreaterThanOrEqual(18)
  })

  it('stop when the caller breaks out', async () => {
    const seen: number[] = []
    for await (const n of tries({tries: 5, delayMs: () => 0})) {
      seen.push(n)
      if (n === 2) break
    }
    expect(seen).toEqual([1, 2])
  })

  it('back off linearly, or exponentially with full jitter under a cap', () => {
    expect([2, 3, 4].map(linearBackoff(300))).toEqual([300, 600, 900])
    for (let i = 0; i < 50; i++) {
      expect(jitteredBackoff(250, 4000)(2)).toBeLessThanOrEqual(250)
      expect(jitteredBackoff(250, 4000)(10)).toBeLessThanOrEqual(4000)
    }
  })
})
