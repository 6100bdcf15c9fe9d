/**
 * Totals rows at the foot (or in the middle) of finance's sheets: a row with amounts and a cell
 * such as `Total`, `Totals`, `Grand total` or `รวม`, or a row with no order number whose amount is
 * the sum of the rows above it (one without an order number that is not their sum stays a row,
 * and a problem). Such a row is never a row to act on: it is reported, and checked against the
 * sum of the rows above it (since the last totals row) when every one of their amounts could be
 * read.
 */
import {AmountError, type TypedAmount} from '../gateway/protocol/index.js'
import {amountOfField} from './amount-cell.js'
import {orderColumnOf} from './row-checks.js'
import type {TableRow} from './table.js'
import {heldDigits} from './workbook-cells.js'

/** A totals row found: its line, the amount it gives, and the sum of the rows above when known. */
export interface TotalsRow {
  line: number
  label: string
  amount: string
  /** The sum of the rows above (since the previous totals row); undefined when one of them could not be read. */
  sum?: string
  /** Whether it is that sum; undefined when it could not be checked, and `unchecked` says why. */
  agrees?: boolean
  /** A SUBTOTAL: checked against the rows the sheet shows (a filter's hidden rows left out). */
  shown?: boolean
  unchecked?: string
}

const TOTAL_WORDS = /^(grand\s*|sub-?\s*)?totals?\b\D*$|^(ยอด)?รวม/i

/** Decimals summed exactly at this scale; an amount with more places makes the sum unknown. */
const PLACES = 6
const scaled = (decimal: string, negative: boolean) => {
  const [whole, fraction = ''] = decimal.split('.')
  if (fraction.length > PLACES) return undefined
  const value = BigInt(`${whole}${fraction.padEnd(PLACES, '0')}`)
  return negative ? -value : value
}
/** What the check of a totals row found, in words: on the terminal and in a report's line for it. */
export function totalsVerdict(t: TotalsRow): string {
  if (t.unchecked) return `not checked (${t.unchecked})`
  const rows = t.shown ? 'the rows above it that the sheet shows' : 'the rows above it'
  return t.agrees
    ? `it agrees with ${rows} (${t.sum})`
    : `it does NOT agree with the sum of ${rows} (${t.sum}): check the file for missing or extra rows`
}

/**
 * A total as the spreadsheet that wrote it holds it. A sum's float noise printed in full
 * (Gnumeric's CSV writes `2847.1399999999999999` for a SUM of two-decimal amounts) has more than
 * the 15 significant digits a spreadsheet keeps: it is read to those, as it was shown.
 */
function asHeld(amount: TypedAmount): TypedAmount {
  if (amount.decimal.replace('.', '').replace(/^0+/, '').length <= 15) return amount
  return {...amount, decimal: heldDigits(Number(amount.decimal))}
}

/** A sum as a decimal, with at least `places` decimals (a total's own: 15.00 beside 15.00). */
const decimalOf = (value: bigint, places: number) => {
  const digits = (value < 0n ? -value : value).toString().padStart(PLACES + 1, '0')
  const fraction = digits.slice(-PLACES).replace(/0+$/, '').padEnd(places, '0')
  return `${value < 0n ? '-' : ''}${digits.slice(0, -PLACES)}${fraction ? `.${fraction}` : ''}`
}

export class TotalsRows {
  readonly found: TotalsRow[] = []
  #sum: bigint | undefined = 0n
  /** The sum of the rows the sheet shows (a SUBTOTAL's, which leaves out the rows a filter hides). */
  #shown: bigint | undefined = 0n

  /** `fields`: the amount fields, in the order read. */
  constructor(readonly fields: readonly string[]) {}

  /** The row's amount: undefined when it has none, else what it reads as or why it cannot be read. */
  #amountOf(row: TableRow): TypedAmount | {unreadable: string} | undefined {
    const field = this.fields.find((f) => row.get(f) !== '' || row.note(f))
    if (!field) return undefined
    try {
      return amountOfField(row, field)
    } catch (error) {
      if (error instanceof AmountError) return {unreadable: error.message}
      throw error
    }
  }

  /** Whether `row` is a totals row (then recorded); otherwise its amount joins the sum. */
  take(row: TableRow): boolean {
    const amount = this.#amountOf(row)
    // The word in the order number's cell, or in any cell of a row without one: a row of a real
    // order with a note such as "Total refund" stays a row.
    const column = orderColumnOf(row)
    // A SUBTOTAL formula without an order number (the total of the rows a filter shows) is one too.
    const subtotal =
      !column &&
      this.fields.some((f) => row.note(f)?.kind === 'number' && (row.note(f) as {subtotal?: boolean}).subtotal)
    const label = column
      ? TOTAL_WORDS.test(row.get(column))
        ? row.get(column)
        : undefined
      : (row.values.find((v) => TOTAL_WORDS.test(v.trim())) ?? (subtotal ? 'SUBTOTAL' : undefined))
    // Said to be one, it is one even without an amount (a file read without an amount column).
    if (label && amount === undefined) {
      const unchecked = this.fields.some((f) => row.has(f)) ? 'it gives no amount' : 'the file has no amount column'
      this.found.push({line: row.line, label: label.trim(), amount: '', unchecked})
      this.#sum = this.#shown = 0n
      return true
    }
    // A row without an order number but with formulas without a result may have one: a row, and a problem.
    const unresolved = !column && !label && row.formulas().length > 0
    if (amount === undefined || (column && !label) || unresolved) {
      const value = amount && !('unreadable' in amount) ? scaled(amount.decimal, amount.negative) : undefined
      const add = (sum: bigint | undefined) =>
        !amount ? sum : value === undefined || sum === undefined ? undefined : sum + value
      this.#sum = add(this.#sum)
      if (!row.hidden) this.#shown = add(this.#shown)
      return false
    }
    const read = 'unreadable' in amount ? undefined : asHeld(amount)
    const total = read && scaled(read.decimal, read.negative)
    const covered = subtotal ? this.#shown : this.#sum
    // Without a word such as Total, a row without an order number is a totals row only when it is the sum of the rows above.
    if (!label && (total === undefined || total !== covered)) return false
    const places = Math.min(PLACES, read?.decimal.split('.')[1]?.length ?? 0)
    const sum = covered === undefined ? undefined : decimalOf(covered, places)
    const unchecked =
      sum === undefined
        ? 'an amount above it could not be read'
        : total === undefined
          ? `its own amount could not be read: ${'unreadable' in amount ? amount.unreadable : 'too many decimal places'}`
          : undefined
    this.found.push({
      line: row.line,
      label: label?.trim() ?? '',
      amount: read ? `${read.negative ? '-' : ''}${read.decimal}` : row.get(this.fields.find((f) => row.has(f))!),
      ...(sum !== undefined ? {sum} : {}),
      ...(unchecked ? {unchecked} : {agrees: total === covered}),
      ...(subtotal ? {shown: true} : {}),
    })
    this.#sum = this.#shown = 0n
    return true
  }
}
