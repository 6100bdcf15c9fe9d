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

/** A digit of LibreOffice's default 10 pt font is about 5.5 pt wide (Excel's width unit, a digit of Calibri 11, 5.25 pt). */
const DIGIT_POINTS = 5
export const isNarrow = (length: string | undefined) => (pointsOf(length) ?? DIGIT_POINTS) < DIGIT_POINTS
