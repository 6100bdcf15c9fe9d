/** Which of two builds is newer (gw version --check): by version, then the commit's day, then its time. */
import {describe, expect, it} from 'vitest'

import {buildOf, compareBuilds} from '../../src/commands/version.run.js'

const build = (id: string, committedAt?: string) => buildOf(id, committedAt)!

describe('two builds compared', () => {
  const morning = build('0.1.0+20261127.4453574', '2026-11-27T09:15:00Z')

  it('orders builds of one day by the time of their commit', () => {
    expect(compareBuilds(build('0.1.0+20261127.9abcdef', '2026-11-27T16:40:00Z'), morning)).toBe('newer')
    expect(compareBuilds(build('0.1.0+20261127.0fedcba', '2026-11-27T08:00:00Z'), morning)).toBe('not newer')
    expect(compareBuilds(build('0.1.0+20261127.4453574', '2026-11-27T09:15:00Z'), morning)).toBe('same')
  })

  it('orders by version first, then by day, and says when one day gives no time to order by', () => {
    expect(compareBuilds(build('0.2.0+20261101.1111111'), morning)).toBe('newer')
    expect(compareBuilds(build('0.1.0+20261128.1111111'), morning)).toBe('newer')
    expect(compareBuilds(build('0.1.0+20261126.1111111', '2026-11-26T23:00:00Z'), morning)).toBe('not newer')
    expect(compareBuilds(build('0.1.0+20261127.9abcdef'), morning)).toBe('not known')
    // A time that is not one (an edited build.json) is no time.
    expect(build('0.1.0+20261127.9abcdef', 'tomorrow').committed_at).toBeUndefined()
    expect(compareBuilds(build('0.1.0+20261127.9abcdef', '2026-13-45T99:00:00Z'), morning)).toBe('not known')
  })
})
