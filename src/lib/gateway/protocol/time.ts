/** Time formats of the API document, in local time. */

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

/** The local offset of a time, +07:00. */
function offsetOf(date: Date): string {
  const offset = -date.getTimezoneOffset()
  const abs = Math.abs(offset)
  return `${offset >= 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/** ISO 8601 to the second with the local offset, as gw writes every time: 2026-11-21T09:31:02+07:00. */
export const isoTime = (date = new Date()) => `${localDate(date)}T${localClock(date)}${offsetOf(date)}`

/** The forms of a time the gateway gives: `yyyy-MM-dd HH:mm:ss` or `yyyyMMddHHmmss`. */
const GATEWAY_TIME = /^(\d{4})-?(\d{2})-?(\d{2})[ T]?(\d{2}):?(\d{2}):?(\d{2})$/

/**
 * A time the gateway gives (`yyyy-MM-dd HH:mm:ss` or `yyyyMMddHHmmss`, in local time: the API
 * document names no zone) as ISO 8601 with the local offset, 2026-11-20T14:03:00+07:00, so a
 * spreadsheet or a script reads it without guessing. Text in another form, or naming no real
 * time (a 13th month), is returned as it is.
 */
export function gatewayTimeIso(text: string | undefined): string | undefined {
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
  const date = new Date(year, month - 1, day, hour, minute, second)
  // Date rolls a 13th month, a 32nd day or a 25th hour over into the next, and moves a local time
  // that a change to summer time skips (02:30 where clocks go from 02:00 to 03:00, or to 02:30)
  // to one that exists: such text names no time here, and is kept as it is.
  const named = [date.getFullYear(), date.getMonth() + 1, date.getDate(), date.getHours(), date.getMinutes()]
  const real = [year, month, day, hour, minute].every((part, i) => named[i] === part) && date.getSeconds() === second
  return real ? isoTime(date) : text
}

/** ISO 8601 with the local offset, as the envelope's time_stamp: 2026-11-21T09:31:02.123+07:00. */
export function isoWithOffset(date = new Date()): string {
  return `${localDate(date)}T${localClock(date)}.${pad(date.getMilliseconds(), 3)}${offsetOf(date)}`
}
