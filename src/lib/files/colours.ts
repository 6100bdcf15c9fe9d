/**
 * Colours and sizes as a reader sees them: two colours that look the same hide text written in one
 * on the other, and text in a font too small to read shows as a dot or a smudge.
 */

/** Whether two `rrggbb` colours look the same to a reader: every channel within 24 of 255 (FFFEFE is white, black on 0A0A0A unseen). */
export function looksAlike(a: string, b: string): boolean {
  return [0, 2, 4].every((at) => Math.abs(parseInt(a.slice(at, at + 2), 16) - parseInt(b.slice(at, at + 2), 16)) <= 24)
}

/** A colour gw cannot tell (a theme colour the workbook's theme does not say, a gradient): never taken as one that shows. */
export const UNTOLD = '?'

/** Whether gw cannot tell text in colour `text` on `ground` shows: one of them is UNTOLD. */
export const untoldOn = (text: string | undefined, ground: string | undefined) => text === UNTOLD || ground === UNTOLD

/**
 * Whether text in colour `text` (automatic when undefined: drawn to show) on a cell of `ground`
 * (the sheet's white when undefined: no fill) is unseen: the two look alike, or gw cannot tell
 * one of them (untoldOn: not proof that it shows). A conditional format's fill or font colour,
 * where it applies, is the cell's.
 */
export const unseenOn = (text: string | undefined, ground: string | undefined) =>
  untoldOn(text, ground) || (text !== undefined && looksAlike(text, ground ?? 'ffffff'))

/**
 * The smallest font a person reads a number in, in points. At 100% zoom LibreOffice (and Excel)
 * draw a point as 1⅓ pixels: at 1 pt an order number is a dotted line, at 2 and 3 pt a smudge, at
 * 4 pt its digits are 5 pixels high and 3, 6 and 8 look alike; from 5 pt they are told apart.
 */
export const SMALLEST_READABLE = 5

/** Whether text of `points` (a font's size) is too small to read. */
export const tooSmall = (points: number | undefined) => points !== undefined && points < SMALLEST_READABLE

/**
 * Whether text of a cell that shrinks it to fit its column (`points`, its font's size; undefined:
 * it does not shrink) is drawn too small to read in a column `width` digits of the default font
 * wide (the room its text has): Excel and LibreOffice scale the font by the width over the text's
 * length (a character about a digit wide), and 500.00 in a column 1.5 wide is drawn at under 3 pt.
 * The .xlsx and .ods readers each tell a column's width in digits; this tells the size for both.
 */
export const shrunkTooSmall = (text: string, points: number | undefined, width: number) =>
  points !== undefined && text.trim() !== '' && tooSmall(points * Math.min(1, width / text.trim().length))
