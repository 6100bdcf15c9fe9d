/** Time formats of the API document, in local time, and the gateway's times read in its zone. */

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** `yyyyMMddHHmmss`, the request time_stamp. */
export function compactTimestamp(date = new Date()): string {
  return `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`
}

/** `yyyy-MM-dd HH:mm:ss`, as time_end and refund_time appear in samples. */
export function displayTime(date: Date): string {
  return `${localDate(date)} ${localClock(date)}`
}

const localDate = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
const localClock = (date: Date) => `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`

/** An offset from UTC in minutes as ISO 8601 writes it: +07:00. */
function offsetText(minutes: number): string {
  const abs = Math.abs(minutes)
  return `${minutes >= 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/** The local offset of a time, +07:00. */
const offsetOf = (date: Date) => offsetText(-date.getTimezoneOffset())

/** ISO 8601 to the second with the local offset, as gw writes every time: 2026-11-21T09:31:02+07:00. */
export const isoTime = (date = new Date()) => `${localDate(date)}T${localClock(date)}${offsetOf(date)}`

/**
 * The same instant as isoTime writes it, on the clock of `zone` (an IANA name) with its offset:
 * 2026-11-21T02:31:02Z is 2026-11-21T09:31:02+07:00 in Asia/Bangkok, whatever zone gw runs in.
 */
export function isoTimeIn(date: Date, zone: string): string {
  const offset = offsetAt(date.getTime(), zone)
  const wall = new Date(date.getTime() + offset)
  const day = `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}`
  const clock = `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`
  return `${day}T${clock}${offsetText(Math.round(offset / 60_000))}`
}

/** The forms of a time the gateway gives: `yyyy-MM-dd HH:mm:ss` or `yyyyMMddHHmmss`. */
const GATEWAY_TIME = /^(\d{4})-?(\d{2})-?(\d{2})[ T]?(\d{2}):?(\d{2}):?(\d{2})$/

/** The zone the gateway writes its times in when a profile names none: the gateway is in Thailand. */
export const DEFAULT_GATEWAY_ZONE = 'Asia/Bangkok'

/** The zone this process reads and writes local times in (TZ, else the system's): the sandbox's gateway zone. */
export const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone

/** The IANA name of a time zone (`asia/bangkok` is `Asia/Bangkok`), or undefined when there is none of that name. */
export function zoneName(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', {timeZone: zone.trim()}).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

const FIFTEEN_MINUTES = 15 * 60_000
const clocks = new Map<string, Intl.DateTimeFormat>()
const offsets = new Map<string, number>()

/**
 * How far `zone`'s clock is ahead of UTC at an instant, in milliseconds. Zones change offset
 * on quarter hours, so one look-up serves a quarter of an hour (a reconcile of 50,000 rows reads
 * a handful of zones' clocks, not 50,000).
 */
function offsetAt(instant: number, zone: string): number {
  const key = `${zone} ${Math.floor(instant / FIFTEEN_MINUTES)}`
  const known = offsets.get(key)
  if (known !== undefined) return known
  let clock = clocks.get(zone)
  if (!clock) {
    const numeric = {year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric'} as const
    clock = new Intl.DateTimeFormat('en-US', {timeZone: zone, hourCycle: 'h23', ...numeric})
    clocks.set(zone, clock)
  }
  const part: Record<string, number> = {}
  for (const {type, value} of clock.formatToParts(instant)) part[type] = Number(value)
  const minute = instant - (((instant % 60_000) + 60_000) % 60_000)
  const offset = Date.UTC(part.year!, part.month! - 1, part.day, part.hour, part.minute) - minute
  if (offsets.size > 10_000) offsets.clear()
  offsets.set(key, offset)
  return offset
}

/**
 * A time the gateway gives (`yyyy-MM-dd HH:mm:ss` or `yyyyMMddHHmmss`: the merchant's local
 * time, no zone written) read in the zone the gateway writes in, never the zone of the machine
 * running gw, as ISO 8601 with this machine's offset, as gw writes every time:
 * `2026-11-20 14:03:00` from a gateway in Asia/Bangkok is 2026-11-20T07:03:00+00:00 on a machine
 * in UTC. Text in another form, or naming no time in that zone (a 13th month, an hour a change
 * to summer time skips), is returned as it is; a time clocks pass twice is the first.
 */
export function gatewayTimeIso(text: string | undefined, zone: string): string | undefined {
  const parts = text && GATEWAY_TIME.exec(text.trim())
  if (!parts) return text || undefined
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  // The clock's reading as if it were UTC; Date.UTC rolls a 13th month over, and takes year 99 as 1999.
  const wall = Date.UTC(year, month - 1, day, hour, minute, second)
  const rolled = new Date(wall)
  const named = [rolled.getUTCFullYear(), rolled.getUTCMonth() + 1, rolled.getUTCDate(), rolled.getUTCHours()]
  const real = [year, month, day, hour].every((part, i) => named[i] === part) && minute < 60 && second < 60
  if (!real) return text
  // The instants whose clock in the zone reads `wall`: none in a gap, two in an overlap.
  const day24 = 86_400_000
  const [first] = [wall - offsetAt(wall - day24, zone), wall - offsetAt(wall + day24, zone)]
    .filter((instant) => instant + offsetAt(instant, zone) === wall)
    .sort((a, b) => a - b)
  return first === undefined ? text : isoTime(new Date(first))
}

/** ISO 8601 with the local offset, as the envelope's time_stamp: 2026-11-21T09:31:02.123+07:00. */
export function isoWithOffset(date = new Date()): string {
  return `${localDate(date)}T${localClock(date)}.${pad(date.getMilliseconds(), 3)}${offsetOf(date)}`
}

/** An offset as ISO 8601 ends a time: `Z`, `+07:00`, `+0700`. */
const WRITTEN_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i

/** A gateway's time stamp written at another offset than the profile's zone has at that instant. */
export interface ZoneDisagreement {
  /** The offset the stamp writes, +09:00. */
  written: string
  /** The profile's zone, and its offset at that instant. */
  zone: string
  zoneOffset: string
  /** How far the times read in the profile's zone are off, in minutes (written less the zone's). */
  minutesOff: number
  /** Named zones at the written offset at that instant: Asia's first (the gateway's region), then by name. */
  zonesAtWritten: string[]
}

/** The offset a time stamp writes, in minutes, and its instant; undefined when it writes none (the 14-digit form). */
export function writtenOffset(stamp: string | undefined): {minutes: number; instant: number} | undefined {
  const text = stamp?.trim() ?? ''
  const written = WRITTEN_OFFSET.exec(text)?.[1]
  if (!written) return undefined
  const sign = written.startsWith('-') ? -1 : 1
  const minutes = /^z$/i.test(written) ? 0 : sign * (Number(written.slice(1, 3)) * 60 + Number(written.slice(-2)))
  const instant = Date.parse(`${text.slice(0, -written.length).replace(' ', 'T')}${offsetText(minutes)}`)
  return Number.isNaN(instant) || Math.abs(minutes) > 14 * 60 ? undefined : {minutes, instant}
}

/**
 * What a gateway's time stamp says of the zone it writes in, against the zone a profile reads
 * its times in: undefined when they agree at that instant, or when the stamp writes no offset
 * (the 14-digit form), which says nothing either way.
 */
export function zoneDisagreement(stamp: string | undefined, zone: string): ZoneDisagreement | undefined {
  const written = writtenOffset(stamp)
  if (!written) return undefined
  const {minutes, instant} = written
  const minutesOf = (name: string) => Math.round(offsetAt(instant, name) / 60_000)
  const zoneMinutes = minutesOf(zone)
  if (zoneMinutes === minutes) return undefined
  const zonesAtWritten = [...(minutes === 0 ? ['UTC'] : []), ...Intl.supportedValuesOf('timeZone')]
    .filter((name) => !name.startsWith('Etc/') && minutesOf(name) === minutes)
    .sort((a, b) => Number(b.startsWith('Asia/')) - Number(a.startsWith('Asia/')))
  return {
    written: offsetText(minutes),
    zone,
    zoneOffset: offsetText(zoneMinutes),
    minutesOff: minutes - zoneMinutes,
    zonesAtWritten,
  }
}
