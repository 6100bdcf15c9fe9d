/** Time formats of the API document, in local time. */

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** `yyyyMMddHHmmss`, the request time_stamp. */
export function compactTimestamp(date = new Date()): string {
  return `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`
}

/** `yyyy-MM-dd HH:mm:ss`, as time_end and refund_time appear in samples. */
export function displayTime(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

/** ISO 8601 to the second with the local offset, as gw writes every time: 2026-11-21T09:31:02+07:00. */
export const isoTime = (date = new Date()) => isoWithOffset(date).replace(/\.\d{3}/, '')

/**
 * A time the gateway gives (`yyyy-MM-dd HH:mm:ss` or `yyyyMMddHHmmss`, in local time: the API
 * document names no zone) as ISO 8601 with the local offset, 2026-11-20T14:03:00+07:00, so a
 * spreadsheet or a script reads it without guessing. Text in another form is returned as it is.
 */
export function gatewayTimeIso(text: string | undefined): string | undefined {
  const parts = text && /^(\d{4})-?(\d{2})-?(\d{2})[ T]?(\d{2}):?(\d{2}):?(\d{2})$/.exec(text.trim())
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
  return Number.isNaN(date.getTime()) ? text : isoTime(date)
}

/** ISO 8601 with the local offset, as the envelope's time_stamp: 2026-11-21T09:31:02.123+07:00. */
export function isoWithOffset(date = new Date()): string {
  const offset = -date.getTimezoneOffset()
  const sign = offset >= 0 ? '+' : '-'
  const abs = Math.abs(offset)
  return `${displayTime(date).replace(' ', 'T')}.${pad(date.getMilliseconds(), 3)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}
