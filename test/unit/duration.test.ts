import {describe, expect, it} from 'vitest'

import {durationSeconds, durationText} from '../../src/lib/cli/duration.js'

describe('lengths of time', () => {
  it('reads seconds, or a number with its unit, in any case', () => {
    expect(['60', '60s', '1m', '1M', '2h', '7d'].map((text) => durationSeconds(text))).toEqual([
      60, 60, 60, 60, 7200, 604_800,
    ])
  })

  it('refuses what is not one, and a bare number where a unit is required (--since 30 is no time)', () => {
    expect(['', 'soon', '1.5m', '-5s', '5 minutes', '1w'].map((text) => durationSeconds(text))).toEqual(
      Array(6).fill(undefined),
    )
    expect(durationSeconds('30', {unitRequired: true})).toBeUndefined()
    expect(durationSeconds('30m', {unitRequired: true})).toBe(1800)
  })

  it('says seconds in the largest unit that says them exactly', () => {
    expect([0, 1, 90, 300, 900, 86_400, 604_800].map(durationText)).toEqual([
      '0s',
      '1s',
      '90s',
      '5m',
      '15m',
      '1d',
      '7d',
    ])
  })
})
