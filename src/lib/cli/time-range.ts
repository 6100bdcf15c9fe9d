/**
 * --since and --until as people write them: a date (its start, local time), a date and time,
 * "today" or "yesterday", or a duration back from now (30m, 24h, 7d).
 */
import {usageError} from '../errors.js'
import {shown} from '../untrusted.js'

const UNIT_MS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000}

const startOfDay = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate())

export function parseTimeBound(value: string, flag: string, now = new Date()): Date {
  const text = value.trim().toLowerCase()
  if (text === 'today') return startOfDay(now)
  if (text === 'yesterday') return new Date(startOfDay(now).getTime() - UNIT_MS.d!)
  const duration = /^(\d+)\s*([mhd])$/.exec(text)
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!]!)
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (day) return new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]))
  const parsed = /^\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}/.test(text) ? new Date(value.trim().replace(' ', 'T')) : undefined
  if (parsed && !Number.isNaN(parsed.getTime())) return parsed
  throw usageError(
    `${flag} ${shown(value, 40)} is not a time gw reads.`,
    'Give a date (2026-11-20), a date and time (2026-11-20T14:00), today, yesterday, or a duration back from now (30m, 24h, 7d).',
  )
}

/** Whether an ISO time falls in [since, until). */
export const within = (at: string, range: {since?: Date; until?: Date}) => {
  const time = Date.parse(at)
  return (!range.since || time >= range.since.getTime()) && (!range.until || time < range.until.getTime())
}
