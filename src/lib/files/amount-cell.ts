/**
 * The one way an amount is read from a row of a file, CSV or workbook: from the text the cell
 * shows (render, then read: a workbook's number cell is shown by its own format, shown-number),
 * by the amount rule (money.ts, readAmountText). A number cell's value must agree with what it
 * shows, at the shown amount's own digits (binary noise below 1e-9 of it aside: `=B2-C2` showing
 * 12.34 over 12.3400000000001 is 12.34): a cell that shows nothing (`;;;`), words (`"see note"`),
 * or another number than it holds (`#,##0,` shows 1,500 of 1,500,000; `"50.00"` over 5,000; 1,500
 * over 1,499.6) is refused naming both, never read as either. A percentage, a date or a formula
 * without a stored result is refused. The sign is kept: callers refuse a negative amount, never
 * turn it positive.
 */
import {
  AmountError,
  CurrencyMismatch,
  type TypedAmount,
  currencyOfMark,
  isCurrency,
  readAmountText,
} from '../gateway/protocol/index.js'
import {quoted} from '../untrusted.js'
import type {TableRow} from './table.js'
import {type CellNote, formulasWithoutResult} from './workbook-cells.js'

/** The amount in `field` of `row`, for a row in `currency` when known; throws AmountError saying what is wrong. */
export function amountOfField(row: TableRow, field: string, currency?: string): TypedAmount {
  const note = row.note(field)
  switch (note?.kind) {
    case 'number':
      return shownAmount(row.get(field), note, currency)
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

/** Binary noise a computed cell may hold beside what it shows, relative to the shown amount. */
const NOISE = 1e-9

/** A number cell's amount: the one its text shows, when the value it holds agrees. */
function shownAmount(text: string, note: Extract<CellNote, {kind: 'number'}>, currency?: string): TypedAmount {
  const holds = grouped(note.value)
  const format = note.format
    ? ` (${note.byRule ? 'a conditional format shows it by' : 'its number format is'} ${quoted(note.format)})`
    : ''
  if (note.unrenderable !== undefined)
    throw new AmountError(
      `the cell holds ${holds} in ${note.unrenderable}, which gw cannot show as the sheet does; format the cell as a number (0.00), or with its currency ([$฿-41E]#,##0.00)`,
    )
  if (!text.trim())
    throw new AmountError(
      `the cell looks empty${format} but holds ${holds}: the sheet does not show the amount gw would refund; format the cell to show it, or clear it`,
    )
  let read: TypedAmount
  try {
    // The rendering writes the format code's own separators: a point marks decimals (`#.##` shows 1500 as `1500.`).
    read = readAmountText(text.replace(/(\d)\.(?!\d)/g, '$1'), currency, {mark: 'point', by: 'its number format'})
  } catch (error) {
    if (error instanceof CurrencyMismatch) throw new AmountError(`${error.message}${format}`)
    if (!(error instanceof AmountError)) throw error
    throw new AmountError(
      `the cell shows ${quoted(text.trim())}${format} but holds ${holds}: it shows no amount; type the amount meant into the cell`,
    )
  }
  // An .ods currency cell says its currency beside its text (the symbol its style shows may be none).
  if (note.currency) {
    const said = currencyOfMark(note.currency) ?? note.currency
    const other = read.currency ?? (currency && isCurrency(currency.toUpperCase()) ? currency.toUpperCase() : undefined)
    if (!isCurrency(said))
      throw new AmountError(`the cell is a currency cell in ${said}, which the gateway does not take${format}`)
    if (other && other !== said)
      throw new AmountError(`the cell is a currency cell in ${said} but the row is ${other}${format}`)
    read = {...read, currency: said}
  }
  const shown = Number(read.decimal) * (read.negative ? -1 : 1)
  const held = Number(note.value)
  if (note.written !== undefined && !readsAs(note.written, shown))
    throw new AmountError(
      `the file's own text of the cell is ${quoted(note.written.trim())}, but its number style shows ${quoted(text.trim())}${format} (it holds ${holds}): a file previewer and a spreadsheet would show two amounts; open and save it in your spreadsheet`,
    )
  // A negative its format shows without its minus (`#,##0.00;[Red]#,##0.00`): negative, as it holds.
  if (held < 0 && shown > 0 && Math.abs(held + shown) <= NOISE * shown)
    throw new AmountError(
      `the cell holds ${holds}, a negative amount its number format shows as ${quoted(text.trim())}, without its minus${format}; a refund must be above zero (it is never read as positive)`,
    )
  const agrees = shown === 0 ? held === 0 : Math.abs(held - shown) <= NOISE * Math.abs(shown)
  if (!agrees)
    throw new AmountError(
      `the cell shows ${quoted(text.trim())}${format} but holds ${holds}: the sheet shows another amount than the one it holds; type the amount meant into the cell, or format it to show all of it`,
    )
  return read
}

/** Whether `text` reads as `amount` with either decimal mark (an .ods's text is in the locale it was saved in). */
function readsAs(text: string, amount: number): boolean {
  return (['point', 'comma'] as const).some((mark) => {
    try {
      const read = readAmountText(text, undefined, {mark})
      return Number(read.decimal) * (read.negative ? -1 : 1) === amount
    } catch {
      return false
    }
  })
}

/** 1499.6 as 1,499.6: digits grouped by thousands, as a sheet shows them. */
const grouped = (decimal: string) => decimal.replace(/^(-?\d+)/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','))

/**
 * Minor units in `field` (`15050`): a whole number, from the cell's shown text. A cell showing
 * `50.00` over 50 is 50, as `50` is (a whole number with its decimals shown as zeros).
 */
export function minorUnitsOfField(row: TableRow, field: string): TypedAmount {
  const read = amountOfField(row, field)
  const [whole, fraction = ''] = read.decimal.split('.')
  if (read.currency || /[1-9]/.test(fraction))
    throw new AmountError(`${quoted(row.get(field))} is not a whole number of minor units (like 15050 for 150.50)`)
  return {...read, decimal: whole!}
}
