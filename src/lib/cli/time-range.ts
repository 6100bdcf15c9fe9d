/**
 * --since and --until as people write them: a date (local time), a date and time (local, or with
 * Z or an offset), "today" or "yesterday", or a duration back from now (30m, 24h, 7d). A day
 * named (a date, today, yesterday) is the whole day: --since from its start, --until to its end,
 * so `--since 2026-12-01 --until 2026-12-01` is that day. Read strictly: 2026-02-30 or month 13
 * is refused rather than rolled into March, an offset is at most ±14:00, a duration at most ten years.
 */
import {usageError} from '../errors.js'
import {shown} from '../untrusted.js'
import {durationSeconds} from './duration.js'

const DAY_MS = 86_400_000
const MAX_DURATION_MS = 3650 * DAY_MS

const startOfDay = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate())
/** The start of a day `days` later, by the calendar (a day of a clock change is 23 or 25 hours). */
const daysLater = (day: Date, days: number) => {
  const later = new Date(day)
  later.setDate(later.getDate() + days)
  return later
}

/** A date, optionally a time (seconds and milliseconds optional), optionally Z or an offset. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(z|([+-])(\d{2}):?(\d{2}))?)?$/

const MONTHS = 'January February March April May June July August September October November December'.split(' ')

/**
 * A date and time as written: the instant (`day`: it named a day, no time), or why there is none
 * (February 30th), or undefined when it is not one's shape.
 */
function dateTime(text: string): {at: Date; day: boolean} | {why: string} | undefined {
  const match = DATE_TIME.exec(text)
  if (!match) return undefined
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => Number(part ?? 0))
  const millisecond = Number((match[7] ?? '0').padEnd(3, '0'))
  const [zone, sign, offsetHours, offsetMinutes] = match.slice(8, 12)
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  const offset = zone && zone !== 'z' ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) : 0
  if (month! < 1 || month! > 12) return {why: `there is no month ${month}`}
  if (day! < 1 || day! > daysInMonth)
    return {why: `there is no such day: ${MONTHS[month! - 1]} ${year} has ${daysInMonth} days`}
  if (hour! > 23 || minute! > 59 || second! > 59)
    return {why: `there is no such time of day (hours 00 to 23, minutes and seconds 00 to 59)`}
  if (Number(offsetMinutes ?? 0) > 59 || Math.abs(offset) > 14 * 60)
    return {why: 'an offset from UTC is at most ±14:00'}
  // setFullYear, not the Date constructor, which takes years 0 to 99 as 1900 to 1999.
  if (zone) {
    const utc = new Date(0)
    utc.setUTCFullYear(year!, month! - 1, day!)
    utc.setUTCHours(hour!, minute!, second!, millisecond)
    return {at: new Date(utc.getTime() - offset * 60_000), day: false}
  }
  const local = new Date(0)
  local.setFullYear(year!, month! - 1, day!)
  local.setHours(hour!, minute!, second!, millisecond)
  // A local time a clock change skips (02:30 when clocks go from 02:00 to 03:00) does not exist.
  const given = match[4] !== undefined
  return given && (local.getHours() !== hour || local.getMinutes() !== minute)
    ? {why: "this machine's clocks skip that time (a change to summer time)"}
    : {at: local, day: !given}
}

/** A bound of a range: `end`, the --until of one (a day named ends where the next begins). */
export function parseTimeBound(value: string, flag: string, now = new Date(), end = false): Date {
  const text = value.trim().toLowerCase()
  const day = (start: Date) => (end ? daysLater(start, 1) : start)
  if (text === 'today') return day(startOfDay(now))
  if (text === 'yesterday') return day(daysLater(startOfDay(now), -1))
  const seconds = durationSeconds(text, {unitRequired: true})
  const back = seconds === undefined ? undefined : seconds * 1000
  if (back !== undefined && back <= MAX_DURATION_MS) return new Date(now.getTime() - back)
  const parsed = back === undefined ? dateTime(text) : undefined
  if (parsed && 'at' in parsed) return parsed.day ? day(parsed.at) : parsed.at
  throw usageError(
    `${flag} ${shown(value, 40)} is not a time gw reads${parsed ? `: ${parsed.why}` : ''}.`,
    'Give a date (2026-11-20), a date and time (2026-11-20T14:00, or with an offset: 2026-11-20T14:00+07:00), today, yesterday, or a duration back from now up to ten years (30m, 24h, 7d).',
  )
}

/** --since and --until read, the first before the second. */
export function parseTimeRange(
  range: {since?: string; until?: string},
  now = new Date(),
): {since?: Date; until?: Date} {
  const since = range.since === undefined ? undefined : parseTimeBound(range.since, '--since', now)
  const until = range.until === undefined ? undefined : parseTimeBound(range.until, '--until', now, true)
  if (since && until && since.getTime() >= until.getTime())
    throw usageError(
      `--since ${shown(range.since, 40)} is not before --until ${shown(range.until, 40)}: nothing could be listed.`,
      'Swap them, or give an earlier --since.',
    )
  return {since, until}
}
