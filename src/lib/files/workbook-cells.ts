/**
 * A workbook cell by its value: a number cell is the number the file stores (a double, read to
 * the digits a spreadsheet shows of it, never the text its format shows: a red or parenthesised
 * negative is negative, `[$฿-41E]#,##0.00` is a number), a percentage is marked as one, a date
 * cell is an ISO date, and a formula without a stored result is marked with its address. The
 * text a person sees (number-format) is kept beside the value, for order numbers and for writing
 * the row back.
 */
import {formatNumber} from './number-format.js'

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
  /** `subtotal`: the number is a SUBTOTAL formula's result (a totals row under a filter). */
  | {kind: 'number'; value: string; subtotal?: boolean}
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

/** Excel's built-in number formats gw tells apart: dates and percentages (ECMA-376 18.8.30). */
const BUILT_IN_DATES = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 30, 36, 45, 46, 47, 50, 57])
const BUILT_IN_PERCENT = new Set([9, 10])

/** A format's code with literal text, colours and conditions taken out. */
const codeOf = (format: string) => format.replace(/"[^"]*"|\\.|\[(?!h\]|hh\]|m\]|mm\]|s\]|ss\])[^\]]*\]|[_*]./gi, '')

export const isPercentFormat = (format: string) => codeOf(format.split(';')[0]!).includes('%')
export const isDateFormat = (format: string) => /[ydhs]|\[[hms]+\]|m/i.test(codeOf(format.split(';')[0]!))

/** A style's number format: a built-in id's kind, or its code. */
export interface NumberStyle {
  code?: string
  kind?: 'date' | 'percent'
}

export function numberStyle(id: number, code: string | undefined): NumberStyle {
  if (code !== undefined) {
    if (isPercentFormat(code)) return {code, kind: 'percent'}
    if (/^(general|@)?$/i.test(code.trim())) return {code}
    if (isDateFormat(code)) return {code, kind: 'date'}
    return {code}
  }
  if (BUILT_IN_DATES.has(id)) return {kind: 'date'}
  if (BUILT_IN_PERCENT.has(id)) return {code: id === 9 ? '0%' : '0.00%', kind: 'percent'}
  return {code: BUILT_IN_CODES[id]}
}

/** Built-in number formats whose digits matter to the shown text. */
const BUILT_IN_CODES: Record<number, string> = {1: '0', 2: '0.00', 3: '#,##0', 4: '#,##0.00', 11: '0.00E+00'}

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
  /** Shown struck through (its font's strike), as a row crossed out by hand. */
  struck?: boolean
}

/** A formula that totals the rows above it as a filter shows them: `SUBTOTAL(109,D2:D7)`, ODF's `of:=SUBTOTAL(9;[.D2:.D7])`. */
export const isSubtotal = (formula: string) => /^(?:of:)?=?\s*(?:_xlfn\.)?(?:SUBTOTAL|AGGREGATE)\s*\(/i.test(formula)

/**
 * A number cell: the stored digits `raw`, its style, the workbook's date system. Its value is the
 * double the digits stand for, to the 15 significant digits a spreadsheet shows and keeps of a
 * typed number (its shortest round-trip form whenever that has 15 digits or fewer): Gnumeric's
 * `12.3400000000000000001` is 12.34, as every spreadsheet shows it, and a sum's float noise
 * (`0.30000000000000004`) is 0.3, while a real third decimal (12.345) stays, to be refused as
 * an amount.
 */
export function numberCell(raw: string, style: NumberStyle | undefined, date1904 = false): ReadCell {
  const number = STORED_NUMBER.test(raw) ? Number(raw) : NaN
  if (!Number.isFinite(number)) return {text: raw}
  const value = formatNumber(number)
  const inexact = Math.abs(number) >= EXACT_LIMIT && Number.isInteger(number)
  const numFmt = style?.code ? {numFmt: style.code} : {}
  if (style?.kind === 'date') {
    const date = serialDate(number, date1904)
    return {text: dateText(date), note: {kind: 'date'}, typed: {typed: date, ...numFmt}}
  }
  const text = formatNumber(number, style?.code)
  const note: CellNote = {kind: style?.kind === 'percent' ? 'percent' : 'number', value}
  return {text, note, typed: {typed: number, ...numFmt}, ...(inexact ? {inexact} : {})}
}
