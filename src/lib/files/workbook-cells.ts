/**
 * A workbook cell read: its text is what the spreadsheet shows (a number rendered by its format:
 * shown-number), and what it holds beside when that is not text: a number cell's value to the 15
 * significant digits a spreadsheet keeps, a percentage marked as one, a date as an ISO date, a
 * formula without a stored result with its address. gw reads every cell from its shown text; the
 * value it holds must agree (amount-cell).
 */
import {type NumberFormat, showNumber} from './shown-number.js'

/**
 * Text in a workbook's XML as ECMA-376 escapes it (`_xHHHH_` for a character XML cannot keep,
 * `_x005F_` for a `_` that starts such a sequence), as Excel reads and writes it. XML reads a raw
 * CR as a new line, so a CR is written `_x000D_`: a cell's text comes back exactly. (Upper-case
 * hexadecimal, as Excel writes it and as exceljs reads it.)
 */
export const toWorkbookText = (text: string) =>
  text.replace(/_(?=x[0-9a-fA-F]{4}_)/g, '_x005F_').replace(/\r/g, '_x000D_')

/** The text of a workbook string with its `_xHHHH_` escapes read (Excel writes a CR as `_x000D_`). */
export const fromWorkbookText = (text: string) =>
  text.includes('_x')
    ? text.replace(/_x([0-9a-fA-F]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    : text

/** What a cell holds when it is not text: gw reads amounts from these, never from the shown text. */
export type CellNote =
  /**
   * `value`: what it holds; `format`: the code its text is shown by; `subtotal`: a SUBTOTAL
   * formula's result (a totals row under a filter); `unrenderable`: why gw cannot render what it
   * shows (a format whose symbol the machine showing it chooses); `currency`: the currency the
   * cell says it is in (an .ods currency cell's `office:currency`, a code or a symbol); `written`:
   * the text an .ods wrote in the cell, when another than its style shows (a file previewer shows it).
   */
  | {
      kind: 'number'
      value: string
      format?: string
      /** `format` is a conditional format's, whose rule holds for the cell (it shows the number so). */
      byRule?: boolean
      subtotal?: boolean
      unrenderable?: string
      currency?: string
      /** The text an .ods wrote in the cell (its `text:p`), when it is not the one its style shows. */
      written?: string
    }
  | {kind: 'percent'; value: string}
  | {kind: 'date'}
  | {kind: 'formula'; address: string}

/**
 * Cells holding formulas without a stored result (written by a program that does not calculate:
 * xlsxwriter, openpyxl, SheetJS), in words: never read as 0 or empty.
 */
export const formulasWithoutResult = (cells: readonly string[]) =>
  `formula without a stored result in ${cells.length === 1 ? 'cell' : 'cells'} ${cells.join(', ')}: open and save the workbook in your spreadsheet first (the program that wrote it does not calculate)`

/** Whole numbers Excel cannot hold exactly (it keeps 15 significant digits). */
const EXACT_LIMIT = 1e15

/** A number as the XML of a workbook stores it: `-1281.33`, `1.5E-2`, Gnumeric's `12.3400000000000000001`. */
const STORED_NUMBER = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/

const pad = (n: number) => String(n).padStart(2, '0')

/** A date as 2026-11-20, or 2026-11-20 14:03:00 when it has a time (the sheet's wall time, held as UTC). */
export function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return ''
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
  const seconds = date.getUTCHours() * 3600 + date.getUTCMinutes() * 60 + date.getUTCSeconds()
  return seconds === 0
    ? day
    : `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
}

/** Excel's day number (1900 or 1904 date system) as the date it stands for, to the second. */
export function serialDate(serial: number, date1904 = false): Date {
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30)
  return new Date(epoch + Math.round(serial * 86_400) * 1000)
}

/** A cell read: its shown text, and what it holds when it is not text. */
export interface ReadCell {
  text: string
  note?: CellNote
  /** A whole number past 15 digits: an order number stored as a number has lost digits. */
  inexact?: boolean
  /** A number or date cell as typed and formatted, for a workbook report to write back as it was. */
  typed?: {typed: number | Date; numFmt?: string}
  /** Shown struck through (its font's strike, a conditional format's, or every run of its text), as a row crossed out by hand. */
  struck?: boolean
  /** Some runs of its text struck through, not all. */
  partlyStruck?: boolean
  /** Some runs of its text written white on no fill, not all: the cell shows less than it holds. */
  partlyBlanked?: boolean
  /** Some runs of its text in a font too small to read, not all: the cell shows less than it holds. */
  partlySmall?: boolean
}

/** A formula that totals the rows above it as a filter shows them: `SUBTOTAL(109,D2:D7)`, ODF's `of:=SUBTOTAL(9;[.D2:.D7])`. */
export const isSubtotal = (formula: string) => /^(?:of:)?=?\s*(?:_xlfn\.)?(?:SUBTOTAL|AGGREGATE)\s*\(/i.test(formula)

/**
 * A number as the 15 significant digits a spreadsheet keeps of it, as a plain decimal (no
 * exponent): Gnumeric's `12.3400000000000000001` is 12.34, a sum's float noise
 * (`0.30000000000000004`) is 0.3, and a real third decimal (12.345) stays.
 */
export function heldDigits(value: number): string {
  const negative = value < 0
  const [mantissa, exponentText] = Math.abs(value).toPrecision(15).split('e')
  const [whole, fraction = ''] = mantissa!.split('.')
  let digits = `${whole}${fraction}`
  let point = whole!.length + Number(exponentText ?? 0)
  if (point <= 0) {
    digits = `${'0'.repeat(1 - point)}${digits}`
    point = 1
  }
  digits = digits.padEnd(point, '0')
  const int = digits.slice(0, point).replace(/^0+(?=\d)/, '')
  const frac = digits.slice(point).replace(/0+$/, '')
  const text = frac ? `${int}.${frac}` : int
  return negative && /[1-9]/.test(text) ? `-${text}` : text
}

/**
 * A number cell: the stored digits `raw`, its style's number format, the workbook's date system.
 * Its text is what the format shows; its value what it holds (heldDigits).
 */
export function numberCell(raw: string, format: NumberFormat | undefined, date1904 = false): ReadCell {
  const number = STORED_NUMBER.test(raw) ? Number(raw) : NaN
  if (!Number.isFinite(number)) return {text: raw}
  const value = heldDigits(number)
  const inexact = Math.abs(number) >= EXACT_LIMIT && Number.isInteger(number)
  const numFmt = format && format.code !== 'General' ? {numFmt: format.code} : {}
  if (format?.kind === 'date') {
    const date = serialDate(number, date1904)
    return {text: dateText(date), note: {kind: 'date'}, typed: {typed: date, ...numFmt}}
  }
  if (format?.kind === 'percent')
    return {text: showNumber(number, format.code), note: {kind: 'percent', value}, typed: {typed: number, ...numFmt}}
  const unrenderable =
    format?.localeCurrency === undefined
      ? format?.unrenderable
      : `Excel's built-in currency format ${format.localeCurrency}, whose symbol and shape depend on the computer that shows it (฿ on one, $ on another)`
  const text = unrenderable === undefined ? showNumber(number, format?.code) : value
  const note: CellNote = {
    kind: 'number',
    value,
    ...(format && format.code !== 'General' ? {format: format.code} : {}),
    ...(unrenderable === undefined ? {} : {unrenderable}),
  }
  return {text, note, typed: {typed: number, ...numFmt}, ...(inexact ? {inexact} : {})}
}
