/**
 * ODF's lengths and colours as its styles write them: a colour `#rrggbb`, a length in any of its
 * units (`0.2083in`, `0.35cm`, `10pt`) in points, a length of zero, a column narrower than a digit.
 */
import {looksAlike} from './colours.js'

/** `#rrggbb` as `rrggbb`; undefined for another form. */
export const hexOf = (colour: string | undefined) => /^#([0-9a-f]{6})$/i.exec(colour ?? '')?.[1]?.toLowerCase()

/** White, or as near it as a reader cannot tell. */
export const isWhite = (colour: string | undefined) => looksAlike(hexOf(colour) ?? '000000', 'ffffff')

/** A length of ODF (`0.2083in`, `0cm`) that is zero. */
export const isZeroLength = (length: string | undefined) =>
  length !== undefined && /^\s*0*(?:\.0*)?\s*[a-z%]*\s*$/i.test(length)

/** Points in a length's unit. */
const POINTS: Readonly<Record<string, number>> = {pt: 1, in: 72, cm: 72 / 2.54, mm: 72 / 25.4, pc: 12, px: 0.75}

/** A length in points (`1pt`, `0.35mm`); undefined for a percentage or another form. */
export const pointsOf = (length: string | undefined) => {
  const match = length === undefined ? null : /^\s*(\d*\.?\d+)\s*([a-z]+)\s*$/i.exec(length)
  const unit = match ? POINTS[match[2]!.toLowerCase()] : undefined
  return unit === undefined ? undefined : Number(match![1]) * unit
}

/** A column under 5 pt is narrower than any digit of LibreOffice's default 10 pt font (5.6 to 6.4 pt: widthInDigits; Excel's width unit, a digit of Calibri 11, is 5.25 pt). */
const DIGIT_POINTS = 5
export const isNarrow = (length: string | undefined) => (pointsOf(length) ?? DIGIT_POINTS) < DIGIT_POINTS

/** LibreOffice's width of a column that says none: 2.258 cm, in points. */
export const DEFAULT_COLUMN_POINTS = (2.258 * 72) / 2.54

const CELL_MARGIN = 1.2
const WIDEST_DIGIT = 6.4

/**
 * The room a column `points` wide gives its text, in digits of LibreOffice's default font (10 pt),
 * as shrink to fit scales text to it (colours' shrunkTooSmall): LibreOffice keeps about 1.2 pt
 * either side of a cell's text, and draws a digit 5.6 pt wide in Liberation Sans, 6.4 pt in DejaVu
 * Sans (drawn where Liberation Sans is not installed). The wider digit is taken, so an amount is
 * told drawn no larger than LibreOffice draws it: 1,500.00 shrunk to fit a column 0.6 cm wide,
 * drawn at 3.3 pt in DejaVu Sans, is told 2.9 pt.
 */
export const widthInDigits = (points: number) => Math.max(0, points - 2 * CELL_MARGIN) / WIDEST_DIGIT
