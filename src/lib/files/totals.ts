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

/**
 * The words of a totals row: Total, Grand total, Subtotal, Excel's Data > Subtotal "INV-1 Total",
 * and the Thai, Japanese, Chinese and Arabic words finance writes (รวม, 合計, 総計, 小計, 合计,
 * 总计, المجموع, الإجمالي).
 */
const TOTAL_WORDS =
  /^(grand\s*|sub-?\s*)?totals?\b\D*$|\s(grand\s+)?total$|^(ยอด)?รวม|^(合計|総計|小計|合计|总计|小计|المجموع|الإجمالي)/i

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

/** The rows summed since a point: their sum, the sum of those the sheet shows, and their currencies. */
class Sums {
  sum: bigint | undefined = 0n
  /** The sum of the rows the sheet shows (a SUBTOTAL's, which leaves out the rows a filter hides). */
  shown: bigint | undefined = 0n
  readonly currencies = new Set<string>()

  add(value: bigint | undefined, readable: boolean, shown: boolean, currency: string | undefined) {
    const plus = (sum: bigint | undefined) =>
      !readable || value === undefined || sum === undefined ? undefined : sum + value
    this.sum = plus(this.sum)
    if (shown) this.shown = plus(this.shown)
    if (currency) this.currencies.add(currency)
  }
}

export class TotalsRows {
  readonly found: TotalsRow[] = []
  /** The rows since the last totals row, and since the last one that totalled them all (a grand total). */
  #group = new Sums()
  #run = new Sums()

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

  #reset(all: boolean) {
    this.#group = new Sums()
    if (all) this.#run = new Sums()
  }

  /**
   * Whether `row` is a totals row (then recorded); otherwise its amount joins the sums. A totals
   * row is checked against the rows since the last totals row, and else (a grand total under
   * Excel's Data > Subtotal, whose group totals it leaves out) against every row since the last
   * total of them all; a total over rows of two currencies is never checked as agreeing.
   */
  take(row: TableRow): boolean {
    const amount = this.#amountOf(row)
    // The word in the order number's cell, or in any cell of a row without one: a row of a real
    // order with a note such as "Total refund" stays a row.
    const column = orderColumnOf(row)
    // A SUBTOTAL formula (the total of the rows a filter shows) without an order number is one too.
    const formula = this.fields.some(
      (f) => row.note(f)?.kind === 'number' && (row.note(f) as {subtotal?: boolean}).subtotal,
    )
    const label = column
      ? TOTAL_WORDS.test(row.get(column))
        ? row.get(column)
        : undefined
      : (row.values.find((v) => TOTAL_WORDS.test(v.trim())) ?? (formula ? 'SUBTOTAL' : undefined))
    // Excel's Data > Subtotal writes "INV-1 Total" in the order column over a SUBTOTAL.
    const subtotal = formula && (!column || label !== undefined)
    // Said to be one, it is one even without an amount (a file read without an amount column).
    if (label && amount === undefined) {
      const unchecked = this.fields.some((f) => row.has(f)) ? 'it gives no amount' : 'the file has no amount column'
      this.found.push({line: row.line, label: label.trim(), amount: '', unchecked})
      this.#reset(true)
      return true
    }
    // A row without an order number but with formulas without a result may have one: a row, and a problem.
    const unresolved = !column && !label && row.formulas().length > 0
    const readable = amount !== undefined && !('unreadable' in amount)
    if (amount === undefined || (column && !label) || unresolved) {
      if (amount) {
        const value = readable ? scaled(amount.decimal, amount.negative) : undefined
        const currency = row.get('fee_type').toUpperCase() || (readable ? amount.currency : undefined)
        for (const sums of [this.#group, this.#run]) sums.add(value, readable, !row.hidden, currency)
      }
      return false
    }
    const read = readable ? asHeld(amount) : undefined
    const total = read && scaled(read.decimal, read.negative)
    const coveredBy = (sums: Sums) => (subtotal ? sums.shown : sums.sum)
    // The rows it totals: those since the last totals row, else all since the last grand total.
    const grand = total !== undefined && total !== coveredBy(this.#group) && total === coveredBy(this.#run)
    const sums = grand ? this.#run : this.#group
    const covered = coveredBy(sums)
    // Without a word such as Total, a row without an order number is a totals row only when it is the sum of the rows above.
    if (!label && (total === undefined || total !== covered)) return false
    const places = Math.min(PLACES, read?.decimal.split('.')[1]?.length ?? 0)
    const sum = covered === undefined ? undefined : decimalOf(covered, places)
    const unchecked =
      sums.currencies.size > 1
        ? `the rows above it are in ${sums.currencies.size} currencies (${[...sums.currencies].join(', ')}): no one total can agree with them`
        : sum === undefined
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
    // A group's total leaves the run summing on (a grand total may follow); any other ends both.
    this.#reset(grand || total !== coveredBy(this.#group) || !subtotal)
    return true
  }
}
