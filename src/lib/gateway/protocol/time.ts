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

/** ISO 8601 with the local offset, as the envelope's time_stamp: 2026-11-21T09:31:02.123+07:00. */
export function isoWithOffset(date = new Date()): string {
  const offset = -date.getTimezoneOffset()
  const sign = offset >= 0 ? '+' : '-'
  const abs = Math.abs(offset)
  return `${displayTime(date).replace(' ', 'T')}.${pad(date.getMilliseconds(), 3)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}
