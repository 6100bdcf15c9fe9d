import {describe, expect, it} from 'vitest'

import {rateText} from '../../src/lib/cli/progress.js'

describe('the rate a progress line shows', () => {
  it('is over one second at least: rows done in the first milliseconds are no rate of thousands a second', () => {
    expect(rateText(46, 3)).toBe('46/s')
    expect(rateText(1, 0)).toBe('1.0/s')
  })

  it('keeps one decimal under 10 a second, whole numbers above, with thousands marked', () => {
    expect(rateText(7, 2000)).toBe('3.5/s')
    expect(rateText(460, 3000)).toBe('153/s')
    expect(rateText(46_000, 3000)).toBe('15,333/s')
  })
})
