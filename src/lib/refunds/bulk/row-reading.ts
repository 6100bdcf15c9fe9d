/**
 * A row of a refund file as read: its order (by any of its numbers), the amount it asks for in
 * the currency it names (its fee_type, its amount's symbol, its column's header), its refund
 * number, and every problem that stops it before anything is sent. Field lengths come from the
 * protocol's table of the refund operation.
 */
import {
  AmountError,
  CHANNELS_BY_OPERATION,
  CURRENCIES,
  ORDER_NUMBER_FIELDS,
  type Amount,
  fieldMax,
  formatAmount,
  isCurrency,
  minorUnitsOf,
  parseMinorUnits,
  toMinorUnits,
} from '../../gateway/protocol/index.js'
import {amountOfField, minorUnitsOfField} from '../../files/amount-cell.js'
import {mergedNote, orderColumnOf, orderNumbersOf, rowProblems, unresolvedFormulas} from '../../files/row-checks.js'
import {type ColumnCurrencies, type TableRow, columnCurrency} from '../../files/table.js'
import {shellWord} from '../../errors.js'
import type {StatusWords} from '../../orders/status-words.js'
import type {OrderNumberField, OrderReference} from '../../orders/reference.js'
import {quoted, shown} from '../../untrusted.js'
import {AMOUNT_FIELDS} from './refund-columns.js'
import type {RefundRow, RowRequest} from './rows.js'

const CHECKED_LENGTHS = [...ORDER_NUMBER_FIELDS, 'mch_refund_no', 'attach'] as const

type RowAmount = {amount: Amount; currency?: string}

/** The amount one field of a row asks for (and the currency its text names), or the problem with it. A negative is never turned positive. */
function fieldAmount(
  row: TableRow,
  field: 'refund_fee' | 'refund_amount',
  feeType: string | undefined,
): RowAmount | string {
  let read
  try {
    read = field === 'refund_fee' ? minorUnitsOfField(row, field) : amountOfField(row, field, feeType)
  } catch (error) {
    if (error instanceof AmountError) return `${field}: ${error.message}`
    throw error
  }
  const said = quoted(row.get(field))
  if (read.negative) return `${field} ${said} is negative; a refund must be above zero (it is never read as positive)`
  if (!/[1-9]/.test(read.decimal)) return `${field} is zero; a refund must be above zero`
  if (field === 'refund_fee') {
    const minor = Number(read.decimal)
    return Number.isSafeInteger(minor) ? {amount: {minor}} : `refund_fee: ${said} is too large`
  }
  const currency = feeType ?? read.currency
  if (currency && isCurrency(currency)) {
    try {
      toMinorUnits(read.decimal, currency, row.note(field) ? read.decimal : row.get(field))
    } catch (error) {
      return `refund_amount: ${(error as AmountError).message}`
    }
  }
  return {amount: {decimal: read.decimal}, currency: read.currency}
}

/**
 * The amount a row asks for, or the problem with it. Both forms filled (gw's own report fed
 * back in gives both) are one amount when they agree in the row's currency. `feeType`: the
 * currency the row names (fee_type) or its amount column's header does (`Refund (JPY)`).
 */
function rowAmount(row: TableRow, feeType: string | undefined): RowAmount | string {
  const filled = (field: string) => row.get(field) !== '' || row.note(field) !== undefined
  if (!filled('refund_fee') && !filled('refund_amount'))
    return `no amount: fill refund_fee or refund_amount${mergedNote(row, AMOUNT_FIELDS)}`
  if (!filled('refund_amount')) return fieldAmount(row, 'refund_fee', feeType)
  const decimal = fieldAmount(row, 'refund_amount', feeType)
  if (!filled('refund_fee') || typeof decimal === 'string') return decimal
  const minor = fieldAmount(row, 'refund_fee', feeType)
  if (typeof minor === 'string') return minor
  const currency = feeType ?? decimal.currency
  const both = `both refund_fee (${quoted(row.get('refund_fee'))}) and refund_amount (${quoted(row.get('refund_amount'))}) are filled`
  if (!currency || !isCurrency(currency))
    return `${both}, and no fee_type says their currency; give one, or fill fee_type`
  const asMinor = minorUnitsOf(decimal.amount, currency)
  if (asMinor !== minorUnitsOf(minor.amount, currency))
    return `${both} and disagree: ${formatAmount(asMinor, currency)} is ${asMinor} in minor units; give one`
  return {...minor, currency: decimal.currency}
}

/** The constant of `known` that `text` is (else `text` itself); undefined when empty. */
const interned = (known: readonly string[], text: string) => known.find((k) => k === text) ?? (text || undefined)

/** Reads one row; its refund number is the one given, or is derived once its order is known (plan). */
export function readRefundRow(
  row: TableRow,
  statuses: StatusWords,
  columns: ColumnCurrencies,
): {row: RefundRow; problems: string[]} {
  const unresolved = unresolvedFormulas(row)
  if (unresolved) {
    // Its order still names the row in the plan, unless the order number is one of the formulas.
    const column = orderColumnOf(row)
    const formula = new Set(row.formulas().map(({field}) => field))
    const order = column && !formula.has(column) ? row.get(column) : ''
    return {row: new FileRow(row.line, order, ''), problems: [unresolved]}
  }
  const orderColumn = orderColumnOf(row)
  const problems = standingProblems(row, statuses, orderColumn)
  const feeType = rowCurrency(row, columns, problems)
  // The channel as gw's own constant, as the currency is: one string for every row that names it.
  const refundChannels = CHANNELS_BY_OPERATION.order_refund
  const channel = interned(refundChannels, row.get('channel').toLowerCase())
  if (channel && !refundChannels.includes(channel)) {
    problems.push(
      `channel ${quoted(channel)} cannot be refunded through the API; refunds take ${refundChannels.join(', ')}`,
    )
  }
  let totalFee: number | undefined
  if (row.get('total_fee')) {
    try {
      totalFee = parseMinorUnits(row.get('total_fee'))
    } catch (error) {
      problems.push(`total_fee: ${(error as Error).message}`)
    }
  }
  const read = rowAmount(row, feeType)
  if (typeof read === 'string') problems.push(read)
  const given = row.get('mch_refund_no')
  // The currency the row names, said in the summary even when the row cannot be sent.
  const currency = [feeType, typeof read === 'string' ? undefined : read.currency].find((c) => c && isCurrency(c))
  if (problems.length || !orderColumn || typeof read === 'string') {
    return {row: new FileRow(row.line, orderColumn ? row.get(orderColumn) : '', given, currency), problems}
  }
  const numbers = orderNumbersOf(row)
  const request = {
    column: orderColumn,
    // Only when the row names its order more than once (the others must be the same order's).
    numbers: Object.keys(numbers).length > 1 ? numbers : undefined,
    amount: 'minor' in read.amount ? read.amount.minor : read.amount.decimal,
    totalFee,
    channel,
    attach: row.get('attach') || undefined,
  }
  return {row: new FileRow(row.line, row.get(orderColumn), given, feeType ?? read.currency, request), problems}
}

/**
 * What stops a row whatever its amount: the table's problems of any row, a status saying the sale
 * did not stand, a row the sheet does not show, no order number, a field longer than the gateway takes.
 */
function standingProblems(row: TableRow, statuses: StatusWords, orderColumn: string | undefined): string[] {
  const problems: string[] = rowProblems(row)
  const status = row.get('sale_status')
  const notStanding = status ? statuses.notStanding(status) : undefined
  if (notStanding)
    problems.push(
      `its status ${quoted(status)} says the sale did not stand (${notStanding}): such a row is never refunded; remove it, or say what the word means with --status-map ${shellWord(shown(`${status}=paid`, 60))}`,
    )
  const unseen = row.hidden ?? row.struck
  if (unseen)
    problems.push(
      `${unseen} in the sheet: such a row is never refunded silently; --only-visible leaves these rows out, --include-hidden refunds them too`,
    )
  if (!orderColumn)
    problems.push(
      `no order number: fill one of ${ORDER_NUMBER_FIELDS.filter((c) => row.has(c)).join(', ')}${mergedNote(row, ORDER_NUMBER_FIELDS)}`,
    )
  for (const name of CHECKED_LENGTHS) {
    const length = [...row.get(name)].length
    const max = fieldMax('order_refund', name)
    if (length > max) problems.push(`${name} is ${length} characters; at most ${max} are allowed`)
  }
  return problems
}

/**
 * The currency a row names: its fee_type, else the one its amount's column says (`Refund (JPY)`);
 * a fee_type the gateway does not take, or one the column contradicts, is a problem (in `problems`).
 */
function rowCurrency(row: TableRow, columns: ColumnCurrencies, problems: string[]): string | undefined {
  // The currency as gw's own constant: one string for every row that names it.
  const written = interned(CURRENCIES, row.get('fee_type').toUpperCase())
  if (written && !isCurrency(written)) {
    problems.push(
      `fee_type ${quoted(row.get('fee_type'))} is not a currency the gateway takes (${CURRENCIES.join(', ')})`,
    )
  }
  const said = columnCurrency(row, AMOUNT_FIELDS, columns)
  if (said && written && isCurrency(written) && said.currency !== written)
    problems.push(`fee_type is ${written} but the amount's column ${quoted(said.header)} says ${said.currency}`)
  return written ?? (said && isCurrency(said.currency) ? (said.currency as string) : undefined)
}

/** What a usable row asks for beside its currency, held flat (its RowRequest is made when asked). */
interface FlatRequest {
  column: OrderNumberField
  numbers?: OrderReference
  /** Minor units, or the decimal as written. */
  amount: number | string
  totalFee?: number
  channel?: string
  attach?: string
}

/**
 * A row as read: one small object per row, its request made each time it is asked for. A
 * million rows held as nested objects (the row, its request, its order reference, its amount)
 * took four times the memory.
 */
class FileRow implements RefundRow {
  readonly #column?: OrderNumberField
  readonly #numbers?: OrderReference
  readonly #amount?: number | string
  readonly #totalFee?: number
  readonly #channel?: string
  readonly #attach?: string

  constructor(
    readonly line: number,
    readonly order: string,
    readonly mchRefundNo: string,
    readonly feeType?: string,
    request?: FlatRequest,
  ) {
    this.#column = request?.column
    this.#numbers = request?.numbers
    this.#amount = request?.amount
    this.#totalFee = request?.totalFee
    this.#channel = request?.channel
    this.#attach = request?.attach
  }

  get request(): RowRequest | undefined {
    if (!this.#column) return undefined
    const ref = {[this.#column]: this.order}
    const amount = typeof this.#amount === 'number' ? {minor: this.#amount} : {decimal: this.#amount!}
    return {
      ref,
      numbers: this.#numbers ?? ref,
      amount,
      feeType: this.feeType,
      totalFee: this.#totalFee,
      channel: this.#channel,
      attach: this.#attach,
    }
  }
}
