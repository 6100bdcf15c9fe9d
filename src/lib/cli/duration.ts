/**
 * Lengths of time as people write them, one reading for every flag that takes one (--timeout,
 * --wait-timeout, --expire, --auto-pay, and --since/--until's "30m ago"): a number of seconds, or
 * a number with its unit, s, m, h or d (60, 60s, 5m, 2h, 7d).
 */
const UNIT_SECONDS: Record<string, number> = {s: 1, m: 60, h: 3600, d: 86_400}

/** The seconds `text` stands for; undefined when it is not a length of time (or a unit is required and missing). */
export function durationSeconds(text: string, {unitRequired = false} = {}): number | undefined {
  const match = /^(\d{1,9})\s*([smhd])?$/i.exec(text.trim())
  if (!match || (unitRequired && !match[2])) return undefined
  return Number(match[1]) * UNIT_SECONDS[(match[2] ?? 's').toLowerCase()]!
}

/** Seconds as the largest unit that says them exactly: 300 is 5m, 90 is 90s, 604800 is 7d. */
export function durationText(seconds: number): string {
  const [unit, size] = Object.entries(UNIT_SECONDS)
    .reverse()
    .find(([, size]) => seconds % size === 0 && seconds >= size) ?? ['s', 1]
  return `${seconds / size}${unit}`
}
