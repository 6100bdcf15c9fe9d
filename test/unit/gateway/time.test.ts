import {afterEach, describe, expect, it} from 'vitest'

import {
  compactTimestamp,
  displayTime,
  gatewayTimeIso,
  isoTime,
  isoTimeIn,
  isoWithOffset,
  localZone,
  zoneDisagreement,
  zoneName,
} from '../../../src/lib/gateway/protocol/time.js'

const zone = process.env.TZ

/** Node reads TZ again when it is set: each case runs in the zone named. */
function inZone(tz: string) {
  process.env.TZ = tz
}

describe('the times gw writes and reads, in local time with the offset', () => {
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ
    else process.env.TZ = zone
  })

  it.each([
    ['UTC', '2026-11-21T09:31:02+00:00', '2026-11-21T09:31:02.007+00:00'],
    ['Asia/Bangkok', '2026-11-21T09:31:02+07:00', '2026-11-21T09:31:02.007+07:00'],
    ['America/St_Johns', '2026-11-21T09:31:02-03:30', '2026-11-21T09:31:02.007-03:30'],
    ['Asia/Kathmandu', '2026-11-21T09:31:02+05:45', '2026-11-21T09:31:02.007+05:45'],
  ])('in %s', (tz, seconds, milliseconds) => {
    inZone(tz)
    const date = new Date(2026, 10, 21, 9, 31, 2, 7)
    expect(isoTime(date)).toBe(seconds)
    expect(isoWithOffset(date)).toBe(milliseconds)
    expect(displayTime(date)).toBe('2026-11-21 09:31:02')
    expect(compactTimestamp(date)).toBe('20261121093102')
    // A gateway in this machine's zone.
    expect(gatewayTimeIso('2026-11-21 09:31:02', tz)).toBe(seconds)
    expect(gatewayTimeIso('20261121093102', tz)).toBe(seconds)
  })

  it.each([
    ['UTC', '2026-11-27T13:33:18+00:00'],
    ['Asia/Bangkok', '2026-11-27T20:33:18+07:00'],
    ['America/New_York', '2026-11-27T08:33:18-05:00'],
    ['Asia/Kathmandu', '2026-11-27T19:18:18+05:45'],
  ])("a gateway time is read in the gateway's zone, never this machine's: gw in %s", (tz, shown) => {
    inZone(tz)
    expect(gatewayTimeIso('2026-11-27 20:33:18', 'Asia/Bangkok')).toBe(shown)
    expect(Date.parse(gatewayTimeIso('20261127203318', 'Asia/Bangkok')!)).toBe(Date.parse('2026-11-27T13:33:18Z'))
    expect(gatewayTimeIso('2026-11-27 13:33:18', 'UTC')).toBe(shown)
  })

  it('zones are named as IANA names, in any case; this process knows its own', () => {
    expect(zoneName('asia/bangkok')).toBe('Asia/Bangkok')
    expect(zoneName('UTC')).toBe('UTC')
    expect(zoneName('Mars/Olympus')).toBeUndefined()
    expect(zoneName('')).toBeUndefined()
    inZone('America/St_Johns')
    expect(localZone()).toBe('America/St_Johns')
  })

  it('the offset is the one of the time itself, across a change of summer time', () => {
    inZone('Europe/Berlin')
    expect(isoTime(new Date(2026, 0, 5, 12, 0, 0))).toBe('2026-01-05T12:00:00+01:00')
    expect(isoTime(new Date(2026, 6, 5, 12, 0, 0))).toBe('2026-07-05T12:00:00+02:00')
  })

  it("a gateway time that a change to summer time skips in the gateway's zone (by an hour, or half of one) comes back as it is", () => {
    inZone('UTC')
    expect(gatewayTimeIso('2026-03-29 02:30:00', 'Europe/Berlin')).toBe('2026-03-29 02:30:00')
    expect(gatewayTimeIso('2026-03-29 03:30:00', 'Europe/Berlin')).toBe('2026-03-29T01:30:00+00:00')
    // Clocks go back: the first of the two 02:30s (+02:00).
    expect(gatewayTimeIso('2026-10-25 02:30:00', 'Europe/Berlin')).toBe('2026-10-25T00:30:00+00:00')
    expect(gatewayTimeIso('20261004021500', 'Australia/Lord_Howe')).toBe('20261004021500')
    expect(gatewayTimeIso('20261004023000', 'Australia/Lord_Howe')).toBe('2026-10-03T15:30:00+00:00')
    inZone('Europe/Berlin')
    expect(gatewayTimeIso('2026-10-25 02:30:00', 'Europe/Berlin')).toBe('2026-10-25T02:30:00+02:00')
  })

  it('a gateway time in another form, or of no real day or hour, comes back as it is; none is none', () => {
    expect(gatewayTimeIso('yesterday', 'Asia/Bangkok')).toBe('yesterday')
    for (const unreal of [
      '2026-13-01 10:00:00',
      '2026-02-30 10:00:00',
      '2026-11-21 24:00:00',
      '20261121096002',
      '0099-01-01 00:00:00',
      '2026-11-21 10:00:60',
    ])
      expect(gatewayTimeIso(unreal, 'Asia/Bangkok')).toBe(unreal)
    expect(gatewayTimeIso('', 'Asia/Bangkok')).toBeUndefined()
    expect(gatewayTimeIso(undefined, 'Asia/Bangkok')).toBeUndefined()
  })
})

describe('a time on the clock of a zone gw does not run in', () => {
  it.each([
    ['2026-11-21T02:31:02.700Z', 'Asia/Bangkok', '2026-11-21T09:31:02+07:00'],
    ['2026-11-21T02:31:02Z', 'Pacific/Chatham', '2026-11-21T16:16:02+13:45'],
    ['2026-11-21T02:31:02Z', 'America/St_Johns', '2026-11-20T23:01:02-03:30'],
    // Either side of a change to summer time.
    ['2026-03-08T06:59:59Z', 'America/New_York', '2026-03-08T01:59:59-05:00'],
    ['2026-03-08T07:00:00Z', 'America/New_York', '2026-03-08T03:00:00-04:00'],
  ])('%s in %s is %s, the same instant', (instant, tz, written) => {
    expect(isoTimeIn(new Date(instant), tz)).toBe(written)
    expect(Date.parse(written)).toBe(Math.floor(Date.parse(instant) / 1000) * 1000)
  })
})

describe("a gateway's time stamp against the profile's zone", () => {
  it('agrees at the offset the zone has at that instant, summer time included', () => {
    expect(zoneDisagreement('2026-11-21T09:31:02.123+07:00', 'Asia/Bangkok')).toBeUndefined()
    expect(zoneDisagreement('2026-07-01T09:00:00-04:00', 'America/New_York')).toBeUndefined()
    expect(zoneDisagreement('2026-01-01T09:00:00-05:00', 'America/New_York')).toBeUndefined()
    expect(zoneDisagreement('2026-01-01T09:00:00Z', 'Europe/London')).toBeUndefined()
    expect(zoneDisagreement('2026-11-21 09:31:02+0530', 'Asia/Kolkata')).toBeUndefined()
  })

  it('says nothing of a stamp that writes no offset, or none that is one', () => {
    for (const stamp of [
      '20261121093102',
      '',
      undefined,
      '2026-11-21 09:31:02',
      'yesterday',
      '2026-11-21T09:31:02+25:00',
    ])
      expect(zoneDisagreement(stamp, 'Asia/Bangkok')).toBeUndefined()
  })

  it('disagrees by the difference, naming the zones at the written offset, Asia first', () => {
    const far = zoneDisagreement('2026-11-21T09:31:02.123+09:00', 'Asia/Bangkok')!
    expect(far).toMatchObject({written: '+09:00', zone: 'Asia/Bangkok', zoneOffset: '+07:00', minutesOff: 120})
    expect(far.zonesAtWritten).toEqual(expect.arrayContaining(['Asia/Tokyo', 'Asia/Seoul', 'Pacific/Palau']))
    expect(far.zonesAtWritten.indexOf('Asia/Tokyo')).toBeLessThan(far.zonesAtWritten.indexOf('Pacific/Palau'))
    expect(zoneDisagreement('2026-11-21T02:31:02Z', 'Asia/Bangkok')).toMatchObject({minutesOff: -420})
    expect(zoneDisagreement('2026-11-21T02:31:02Z', 'Asia/Bangkok')!.zonesAtWritten[0]).toBe('UTC')
    // New York in summer is -04:00: a stamp at -05:00 then is another zone's.
    expect(zoneDisagreement('2026-07-01T09:00:00-05:00', 'America/New_York')).toMatchObject({minutesOff: -60})
  })
})
