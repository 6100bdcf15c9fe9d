import {describe, expect, it} from 'vitest'

import {parseTimeBound, parseTimeRange} from '../../src/lib/cli/time-range.js'

const now = new Date(2026, 10, 21, 12, 0, 0)
const at = (value: string) => parseTimeBound(value, '--since', now)
const refused = (value: string) => expect(() => at(value), value).toThrow(/--since .* is not a time gw reads/)

describe('--since and --until', () => {
  it('read dates, local times, times with Z or an offset, today, yesterday and durations', () => {
    expect(at('2026-11-20')).toEqual(new Date(2026, 10, 20))
    expect(at('2026-11-20T14:05')).toEqual(new Date(2026, 10, 20, 14, 5))
    expect(at('2026-11-20 14:05:09.5')).toEqual(new Date(2026, 10, 20, 14, 5, 9, 500))
    expect(at('2026-11-20T14:00Z').toISOString()).toBe('2026-11-20T14:00:00.000Z')
    expect(at('2026-11-20T14:00+07:00').toISOString()).toBe('2026-11-20T07:00:00.000Z')
    expect(at('2026-11-20T14:00-0330').toISOString()).toBe('2026-11-20T17:30:00.000Z')
    expect(at('2028-02-29')).toEqual(new Date(2028, 1, 29))
    expect(at('today')).toEqual(new Date(2026, 10, 21))
    expect(at('Yesterday')).toEqual(new Date(2026, 10, 20))
    expect(at('90m').getTime()).toBe(now.getTime() - 90 * 60_000)
    expect(at('3650d').getTime()).toBe(now.getTime() - 3650 * 86_400_000)
  })

  it('refuse days and months that do not exist instead of rolling them over, and times out of range', () => {
    for (const value of [
      '2026-02-30',
      '2026-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-11-31T10:00',
      '2026-11-20T24:00',
    ])
      refused(value)
    for (const value of ['2026-11-20T10:60', '2026-11-20T10:00:61', '2026-11-20T10:00+15:00', '2026-11-20T10:00+99:00'])
      refused(value)
  })

  it('refuse a local time a clock change skips; read years before 100 as they are written', () => {
    const zone = process.env.TZ
    process.env.TZ = 'America/New_York'
    try {
      refused('2026-03-08T02:30')
      expect(at('2026-03-08T03:30').toISOString()).toBe('2026-03-08T07:30:00.000Z')
      expect(at('2026-03-08').getDate()).toBe(8)
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
    expect(at('0095-01-01').getFullYear()).toBe(95)
    expect(at('0095-01-01T00:00Z').getUTCFullYear()).toBe(95)
  })

  it('refuse durations beyond ten years and words it does not know', () => {
    for (const value of ['3651d', '99999999999d', '1y', 'last week', '', '-5d']) refused(value)
  })

  it('read a day named as the whole day: --since from its start, --until to its end', () => {
    expect(parseTimeRange({since: '2026-12-01', until: '2026-12-01'}, now)).toEqual({
      since: new Date(2026, 11, 1),
      until: new Date(2026, 11, 2),
    })
    expect(parseTimeRange({since: 'today', until: 'today'}, now)).toEqual({
      since: new Date(2026, 10, 21),
      until: new Date(2026, 10, 22),
    })
    expect(parseTimeRange({until: 'yesterday'}, now).until).toEqual(new Date(2026, 10, 21))
    // A time given is that instant.
    expect(parseTimeRange({until: '2026-12-01T00:00'}, now).until).toEqual(new Date(2026, 11, 1))
    expect(parseTimeRange({until: '2026-12-01T10:00Z'}, now).until?.toISOString()).toBe('2026-12-01T10:00:00.000Z')
    const zone = process.env.TZ
    process.env.TZ = 'America/New_York'
    try {
      // The day clocks go forward is 23 hours long, and yesterday is the calendar's.
      const range = parseTimeRange({since: '2026-03-08', until: '2026-03-08'}, now)
      expect(range.until!.getTime() - range.since!.getTime()).toBe(23 * 3_600_000)
      expect(parseTimeBound('yesterday', '--since', new Date(2026, 2, 9, 12))).toEqual(new Date(2026, 2, 8))
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
  })

  it('refuse a --since that is not before --until', () => {
    expect(() => parseTimeRange({since: '2d', until: '3d'}, now)).toThrow('--since 2d is not before --until 3d')
    expect(() => parseTimeRange({since: '2026-12-02', until: '2026-12-01'}, now)).toThrow('is not before')
    expect(parseTimeRange({since: '3d', until: '2d'}, now).since).toEqual(new Date(now.getTime() - 3 * 86_400_000))
  })
})
