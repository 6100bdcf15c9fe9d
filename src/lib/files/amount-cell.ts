/**
 * The one way an amount is read from a row of a file, CSV or workbook: a workbook cell by its
 * value (a number cell is its stored number whatever its format shows; a percentage, a date or a
 * formula without a stored result is refused), any text by the amount rule (money.ts,
 * readAmountText). The sign is kept: callers refuse a negative amount, never turn it positive.
 */
import {AmountError, type TypedAmount, readAmountText} from '../gateway/protocol/index.js'
import {quoted} from '../untrusted.js'
import type {TableRow} from './table.js'
import {formulasWithoutResult} from './workbook-cells.js'

/** The amount in `field` of `row`, for a row in `currency` when known; throws AmountError saying what is wrong. */
export function amountOfField(row: TableRow, field: string, currency?: string): TypedAmount {
  const note = row.note(field)
  switch (note?.kind) {
    case 'number':
      return {decimal: note.value.replace('-', ''), negative: note.value.startsWith('-')}
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

/** Minor units in `field` (`15050`): a whole number, from a number cell's value or the text. */
export function minorUnitsOfField(row: TableRow, field: string): TypedAmount {
  const read = amountOfField(row, field)
  if (read.currency || read.decimal.includes('.'))
    throw new AmountError(`${quoted(row.get(field))} is not a whole number of minor units (like 15050 for 150.50)`)
  return read
}
