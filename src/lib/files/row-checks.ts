/**
 * What gw asks of a row of any table, whatever the command: the order numbers it gives, and
 * what is wrong with it before anything is sent (formulas without a result, merged cells,
 * order numbers a spreadsheet rounded or stripped of their leading zeros).
 */
import {ORDER_NUMBER_FIELDS} from '../gateway/protocol/index.js'
import {quoted} from '../untrusted.js'
import {invisibleIn} from './invisible.js'
import type {TableRow} from './table.js'
import {formulasWithoutResult} from './workbook-cells.js'

/** The order number field a row fills first, in the order mch, gw, channel. */
export const orderColumnOf = (row: TableRow) => ORDER_NUMBER_FIELDS.find((c) => row.get(c))

/** Every order number a row gives: the first names the order, the others must agree with it. */
export const orderNumbersOf = (row: TableRow): Partial<Record<(typeof ORDER_NUMBER_FIELDS)[number], string>> =>
  Object.fromEntries(ORDER_NUMBER_FIELDS.filter((c) => row.get(c)).map((c) => [c, row.get(c)]))

/**
 * A row whose fields are read from formulas without a stored result cannot be judged at all
 * (its order number may be one of them): the one thing to say of it, naming the cells.
 */
export function unresolvedFormulas(row: TableRow): string | undefined {
  const formulas = row.formulas()
  return formulas.length
    ? formulasWithoutResult(formulas.map(({field, address}) => `${address} (${field})`))
    : undefined
}

/** " (cell A6 is covered by the merged cells A5:A6; its value is in A5 only)" for the first of `fields` whose cell is merged into another, or ''. */
export function mergedNote(row: TableRow, fields: readonly string[]): string {
  for (const field of fields) {
    const range = row.merged(field)
    if (!range) continue
    const first = range.split(':')[0]
    return ` (its ${field} cell is covered by the merged cells ${range}; the value is in ${first} only: unmerge them and fill each row)`
  }
  return ''
}

/** An order number as a spreadsheet shows a long number in General format: 2.02611E+13. */
const ROUNDED = /^\d(?:\.\d+)?E\+\d+$/i

/**
 * Order numbers a spreadsheet has dropped the leading zeros of (000123 read as the number 123):
 * a number of digits shorter than the zero-padded ones of its column (the first seen). Rows before
 * the first padded one are kept (at most 1,000) and said once it is seen.
 */
export class DroppedZeros {
  #padded: {text: string; line: number} | undefined
  readonly #before: {line: number; text: string}[] = []

  /** The problem of `text` (an order number) on `line`, when its column is known to be padded; else undefined. */
  see(line: number, text: string): string | undefined {
    if (!/^\d+$/.test(text)) return undefined
    if (text.startsWith('0') && text.length > 1) {
      this.#padded ??= {text, line}
      return undefined
    }
    if (!this.#padded) {
      if (this.#before.length < 1000) this.#before.push({line, text})
      return undefined
    }
    return this.#problem(text)
  }

  /** The rows seen before the first padded number that are shorter than it: [line, problem]. */
  earlier(): [number, string][] {
    if (!this.#padded) return []
    return this.#before.flatMap(({line, text}) => {
      const problem = this.#problem(text)
      return problem ? [[line, problem] as [number, string]] : []
    })
  }

  #problem(text: string): string | undefined {
    const padded = this.#padded!
    if (text.length >= padded.text.length) return undefined
    return `order number ${quoted(text)} is shorter than the zero-padded ${quoted(padded.text)} of line ${padded.line}: a spreadsheet drops the leading zeros of a number (${text.padStart(padded.text.length, '0')} becomes ${text}); format the column as text and type them again`
  }
}

/** What is wrong with a row whatever the command: fields past its header, an order number Excel holds inexactly. */
export function rowProblems(row: TableRow): string[] {
  const problems: string[] = []
  if (row.extra)
    problems.push(
      `${row.extra} more field${row.extra === 1 ? '' : 's'} than the header has columns (a separator inside a value?)`,
    )
  for (const field of [...ORDER_NUMBER_FIELDS, 'mch_refund_no']) {
    const invisible = invisibleIn(row.get(field))
    if (invisible)
      problems.push(
        `${field} ${quoted(row.get(field))} holds an invisible character (${invisible}) inside it, which the gateway would receive as part of the number: type the number again`,
      )
  }
  for (const field of ORDER_NUMBER_FIELDS) {
    // A workbook's number past 15 digits is said as that: its digits were lost when it was stored, not shown.
    if (ROUNDED.test(row.get(field)) && !row.inexact(field))
      problems.push(
        `${field} ${quoted(row.get(field))} is a number a spreadsheet rounded and wrote in scientific notation: its digits are lost; format the column as text, type the numbers again and export it`,
      )
    if (row.inexact(field))
      problems.push(
        `${field} is a number of more than 15 digits in the workbook, which Excel cannot hold exactly (it reads ${row.get(field)}): store order numbers as text cells`,
      )
  }
  return problems
}
