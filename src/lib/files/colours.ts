/** Colours as a reader sees them: two that look the same hide text written in one on the other. */

/** Whether two `rrggbb` colours look the same to a reader: every channel within 24 of 255 (FFFEFE is white, black on 0A0A0A unseen). */
export function looksAlike(a: string, b: string): boolean {
  return [0, 2, 4].every((at) => Math.abs(parseInt(a.slice(at, at + 2), 16) - parseInt(b.slice(at, at + 2), 16)) <= 24)
}
