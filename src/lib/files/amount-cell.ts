/**
 * The one way an amount is read from a row of a file, CSV or workbook: a workbook cell by its
 * value (a number cell is its stored number, whatever sign or symbols its format shows; one whose
 * format shows another number than it holds, 1,500 for 1,499.6, is refused naming both, as what
 * the sheet shows is what is refunded; a percentage, a date or a formula without a stored result
 * is refused), any text by the amount rule (money.ts, readAmountText). The sign is kept: callers refuse a negative amount, never turn it positive.
 */
import {AmountError, type TypedAmount, readAmountText} from '../gateway/protocol/index.js'
import {quoted} from '../untrusted.js'
import type {TableRow} from './table.js'
import {formulasWithoutResult} from './workbook-cells.js'

/** The amount in `field` of `row`, for a row in `currency` when known; throws AmountError saying what is wrong. */
export function amountOfField(row: TableRow, field: string, currency?: string): TypedAmount {
  const note = row.note(field)
  switch (note?.kind) {
    case 'number': {
      const shown = shownNumber(row.get(field))
      if (shown !== undefined && Number(shown) !== Math.abs(Number(note.value)))
        throw new AmountError(
          `the cell shows ${grouped(shown)} but holds ${grouped(note.value.replace('-', ''))}: the sheet shows another amount than the one it would refund; type the amount meant into the cell (or show its decimals)`,
        )
      return {decimal: note.value.replace('-', ''), negative: note.value.startsWith('-')}
    }
    case 'percent':
      throw new AmountError(`the cell is a percentage (${row.get(field)}), not an amount`)
    case 'date':
      throw new AmountError(`the cell is a date (${row.get(field)}), not an amount`)
    case 'formula':
      throw new AmountError(formulasWithoutResult([note.address]))
    default:
      return readAmountText(row.get(field), currency, row.amountContext(field))
  }
}

/** The number a number cell's shown text stands for, without its sign (its format's literal text may hold a -). */
const shownNumber = (text: string) => /\d+(?:\.\d+)?/.exec(text)?.[0]

/** 1499.6 as 1,499.6: digits grouped by thousands, as a sheet shows them. */
const grouped = (decimal: string) => decimal.replace(/^(-?\d+)/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','))

/** Minor units in `field` (`15050`): a whole number, from a number cell's value or the text. */
export function minorUnitsOfField(row: TableRow, field: string): TypedAmount {
  const read = amountOfField(row, field)
  if (read.currency || read.decimal.includes('.'))
    throw new AmountError(`${quoted(row.get(field))} is not a whole number of minor units (like 15050 for 150.50)`)
  return read
}
