/**
 * Reconcile's judgement of one row, without I/O: what the merchant's row says, and how it
 * compares with the gateway's order (or with the gateway's refusal to find it).
 */
import {GwError} from '../errors.js'
import {
  ALL_CHANNELS,
  AmountError,
  CURRENCIES,
  ORDER_NOT_FOUND,
  ORDER_NUMBER_FIELDS,
  fieldMax,
  formatAmount,
  isCurrency,
  lookupError,
  parseMinorUnits,
  toDecimal,
  toMinorUnits,
} from '../gateway/protocol/index.js'
import {amountOfField} from '../files/amount-cell.js'
import {orderColumnOf, orderNumbersOf, rowProblems, unresolvedFormulas} from '../files/row-checks.js'
import {type ColumnCurrencies, type TableRow, columnCurrency} from '../files/table.js'
import {type OrderReference, WRONG_CHANNEL, disagreement} from '../orders/reference.js'
import type {FoundOrder} from '../orders/finding.js'
import {quoted} from '../untrusted.js'
import {type StatusMeaning, StatusWords} from '../orders/status-words.js'

export const CLASSES = [
  'match',
  'amount_mismatch',
  'currency_mismatch',
  'status_mismatch',
  'missing_at_gateway',
  'query_failed',
  'invalid_row',
] as const
export type Classification = (typeof CLASSES)[number]

/** The fields reconcile reads from the merchant's file. */
export const RECONCILE_FIELDS = [
  ...ORDER_NUMBER_FIELDS,
  'channel',
  'total_fee',
  'amount',
  'fee_type',
  'status',
  'mch_refund_no',
]

/** What the merchant's row says of its order. */
export interface MerchantView {
  ref: OrderReference
  /** Every order number the row gives (the first is `ref`); the others must be the same order's. */
  numbers?: OrderReference
  channel?: string
  totalFee?: number
  amount?: string
  feeType?: string
  /** The row's status as written, and what it means. */
  status?: {text: string; meaning: StatusMeaning}
  /** A refund of the order the merchant knows: the gateway's refund query needs one to list the order's refunds. */
  mchRefundNo?: string
}

/** What an order has refunded, and who says so: the gateway's refund query, or this machine's history (a channel without one). */
export interface RefundedTotal {
  minor: number
  from: 'gateway' | 'history'
}

/** " (from this machine's history; the gateway has no refund query for alipay)", or '' for the gateway's word. */
const sourceNote = (refunded: RefundedTotal | undefined, channel: string) =>
  refunded?.from === 'history' ? ` (from this machine's history; the gateway has no refund query for ${channel})` : ''

/** The gateway's side of a row and the verdict, as written beside the row. */
export interface Verdict {
  mch_order_no?: string
  classification: Classification
  detail: string
  gateway_state?: string
  gateway_total_fee?: number
  gateway_fee_type?: string
  gateway_channel?: string
  gateway_amount?: string
  time_paid?: string
  refunded_total?: number
  refunded_amount?: string
  /** The row's own amount, in minor units, when it gives one (the summary sums it beside the gateway's). */
  merchant_total_fee?: number
  /** The summary's currency: the gateway's when known, else the row's. */
  currency?: string
}

/** What is compared, by the fields that say it: a file with such a column must fill it on every row. */
const COMPARED: readonly (readonly string[])[] = [['total_fee', 'amount'], ['fee_type'], ['status']]

/** What the row says, or why it cannot be used. */
export function readMerchantRow(
  row: TableRow,
  defaultChannel: string | undefined,
  statuses = new StatusWords(),
  /** The currency the amount column's header names (`Amount (MYR)`). */
  columns: ColumnCurrencies = {},
): MerchantView | string {
  const unresolved = unresolvedFormulas(row)
  if (unresolved) return unresolved
  const column = orderColumnOf(row)
  if (!column) return 'no order number'
  const [shape] = rowProblems(row)
  if (shape) return shape
  const numbers = orderNumbersOf(row)
  for (const [field, number] of Object.entries(numbers)) {
    const max = fieldMax('order_query', field)
    if ([...number].length > max) return `${field} is longer than ${max} characters`
  }
  // An empty cell in a compared column is never a silent pass.
  const empty = COMPARED.filter(
    (fields) => fields.some((f) => row.has(f)) && fields.every((f) => !row.get(f) && !row.note(f)),
  )
  if (empty.length) {
    const names = empty.map((fields) => fields.filter((f) => row.has(f)).join(' / '))
    return `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} empty: the row cannot be compared`
  }
  const channel = row.get('channel').toLowerCase() || defaultChannel
  if (channel && !(ALL_CHANNELS as readonly string[]).includes(channel))
    return `channel ${quoted(row.get('channel'))} is not one of ${ALL_CHANNELS.join(', ')}`
  const written = row.get('fee_type').toUpperCase() || undefined
  if (written && !isCurrency(written)) return `fee_type ${quoted(row.get('fee_type'))} is not ${CURRENCIES.join(', ')}`
  const said = columnCurrency(row, ['amount'], columns)
  if (said && written && said.currency !== written)
    return `fee_type is ${written} but the amount's column ${quoted(said.header)} says ${said.currency}`
  const feeType = written ?? said?.currency
  let totalFee: number | undefined
  try {
    if (row.get('total_fee')) totalFee = parseMinorUnits(row.get('total_fee'))
  } catch (error) {
    return `total_fee: ${(error as AmountError).message}`
  }
  let amount: string | undefined
  let named: string | undefined
  if (row.get('amount') || row.note('amount')) {
    try {
      const read = amountOfField(row, 'amount', feeType)
      if (read.negative) return `amount ${quoted(row.get('amount'))} is negative`
      amount = read.decimal
      named = read.currency
    } catch (error) {
      if (error instanceof AmountError) return `amount: ${error.message}`
      throw error
    }
  }
  const text = row.get('status')
  const meaning = text ? statuses.meaningOf(text) : undefined
  if (text && !meaning) return statuses.unknown(text)
  const status = text && meaning ? {text, meaning} : undefined
  const mchRefundNo = row.get('mch_refund_no') || undefined
  return {
    ref: {[column]: numbers[column]},
    numbers,
    channel,
    totalFee,
    amount,
    feeType: feeType ?? named,
    status,
    mchRefundNo,
  }
}

/** The currency a row names (its fee_type, or its amount's symbol), for the summary of a row that cannot be used. */
export function currencyOfRow(row: TableRow): string | undefined {
  const feeType = row.get('fee_type').toUpperCase()
  if (isCurrency(feeType)) return feeType
  try {
    return row.get('amount') ? amountOfField(row, 'amount').currency : undefined
  } catch {
    return undefined
  }
}

/** The merchant's amount in minor units, when the row gives one and its currency is known. */
function merchantMinor(view: MerchantView, currency = view.feeType): number | undefined {
  const fromAmount = view.amount === undefined || !currency ? undefined : toMinorUnits(view.amount, currency)
  // Both forms (gw's own order list gives both) are one amount when they agree.
  if (view.totalFee !== undefined && fromAmount !== undefined && fromAmount !== view.totalFee)
    throw new AmountError(
      `total_fee ${view.totalFee} and amount ${quoted(view.amount)} disagree: ${formatAmount(fromAmount, currency)} is ${fromAmount} in minor units`,
    )
  return view.totalFee ?? fromAmount
}

/**
 * The merchant's state against the gateway's: undefined when they agree, else the difference.
 * An order the gateway has refunded is told apart, by its refunded total, as partly or fully
 * refunded: `paid` and `refunded_partly` agree with a partial refund only, `cancelled` with a
 * full one.
 */
function stateDifference(
  {text, meaning}: NonNullable<MerchantView['status']>,
  found: FoundOrder,
  refunded?: RefundedTotal,
): string | undefined {
  const record = found.record
  const gateway = record.result
  const said = `status: merchant ${text}, gateway ${gateway}`
  if ('state' in meaning) return meaning.state === gateway ? undefined : said
  if (!meaning.states.includes(gateway)) {
    const why =
      gateway === 'SUCCESS' && meaning.word === 'unpaid'
        ? ' (paid at the gateway: a missed notification?)'
        : gateway === 'SUCCESS' && meaning.word === 'cancelled'
          ? ' (paid at the gateway and not refunded)'
          : ''
    return `${said}${why}`
  }
  if (gateway !== 'REFUND' || meaning.refunded === 'either') return undefined
  const total = record.total_fee
  if (refunded?.from === 'history' && refunded.minor === 0)
    return `${said} (partly or fully refunded is not known: the gateway has no refund query for ${found.channel} and this machine made no refund of it that was shown to succeed; the merchant platform shows its refunds)`
  if (refunded === undefined || total === undefined)
    return `${said} (partly or fully refunded is not known: the gateway lists an order's refunds only when asked with one of their numbers; give it in a mch_refund_no column)`
  const fully = refunded.minor >= total
  if (fully === (meaning.refunded === 'fully')) return undefined
  const amount = (minor: number) => formatAmount(minor, record.fee_type)
  const how = fully
    ? `refunded in full, ${amount(refunded.minor)}`
    : `refunded in part, ${amount(refunded.minor)} of ${amount(total)}`
  return `${said} (${how}${sourceNote(refunded, found.channel)})`
}

/** The note on a matching row of a partly refunded order. */
function partlyRefunded(found: FoundOrder, refunded?: RefundedTotal): string {
  const record = found.record
  if (record.result !== 'REFUND' || refunded === undefined || record.total_fee === undefined) return ''
  if (refunded.minor >= record.total_fee) return ''
  const amount = (minor: number) => formatAmount(minor, record.fee_type)
  return `partly refunded at the gateway: ${amount(refunded.minor)} of ${amount(record.total_fee)}${sourceNote(refunded, found.channel)}`
}

/** Minor units as a decimal in the currency, when the currency is one gw knows. */
const decimalOf = (minor: number | undefined, currency: string | undefined) =>
  minor !== undefined && currency && isCurrency(currency) ? toDecimal(minor, currency) : undefined

/** A row whose order query failed: missing at the gateway, or the query itself failed. */
export function classifyFailure(view: MerchantView, error: GwError): Verdict {
  let merchantTotal: number | undefined
  try {
    merchantTotal = merchantMinor(view)
  } catch (amountError) {
    const detail = `amount: ${(amountError as AmountError).message}`
    return {classification: 'invalid_row', detail, currency: view.feeType}
  }
  const side = {mch_order_no: view.ref.mch_order_no, merchant_total_fee: merchantTotal, currency: view.feeType}
  const code = error.details?.err_code as string | undefined
  if (code === ORDER_NOT_FOUND) return {...side, classification: 'missing_at_gateway', detail: error.message}
  if (code === WRONG_CHANNEL) return {...side, classification: 'invalid_row', detail: error.message}
  const advice = code ? lookupError(code)?.action : error.advice
  const detail = `${error.message}${advice && !error.message.includes(advice) ? ` ${advice}` : ''}`
  return {...side, classification: 'query_failed', detail}
}

/** The merchant's row against the gateway's order: a match, or the weightiest difference with every difference named. */
export function compare(view: MerchantView, found: FoundOrder, refunded?: RefundedTotal): Verdict {
  const refundedTotal = refunded?.minor
  const record = found.record
  const twoOrders = view.numbers && disagreement(view.numbers, record)
  if (twoOrders)
    return {
      mch_order_no: record.mch_order_no,
      classification: 'invalid_row',
      detail: twoOrders,
      currency: record.fee_type,
    }
  const result: Verdict = {
    mch_order_no: record.mch_order_no ?? view.ref.mch_order_no,
    classification: 'match',
    detail: '',
    gateway_state: record.result,
    gateway_total_fee: record.total_fee,
    gateway_fee_type: record.fee_type,
    gateway_amount: decimalOf(record.total_fee, record.fee_type),
    gateway_channel: found.channel,
    time_paid: record.time_end,
    refunded_total: refundedTotal,
    refunded_amount: decimalOf(refundedTotal, record.fee_type),
    currency: record.fee_type,
  }
  const differences: [Classification, string][] = []
  if (view.feeType && record.fee_type && view.feeType !== record.fee_type) {
    differences.push(['currency_mismatch', `currency: merchant ${view.feeType}, gateway ${record.fee_type}`])
  }
  let merchantTotal: number | undefined
  try {
    merchantTotal = merchantMinor(view, view.feeType ?? record.fee_type)
  } catch (error) {
    return {...result, classification: 'invalid_row', detail: `amount: ${(error as AmountError).message}`}
  }
  result.merchant_total_fee = merchantTotal
  if (merchantTotal !== undefined && record.total_fee !== undefined && merchantTotal !== record.total_fee) {
    const merchantAmount = formatAmount(merchantTotal, view.feeType ?? record.fee_type)
    differences.push([
      'amount_mismatch',
      `amount: merchant ${merchantAmount}, gateway ${formatAmount(record.total_fee, record.fee_type)}`,
    ])
  }
  const state = view.status && stateDifference(view.status, found, refunded)
  if (state) differences.push(['status_mismatch', state])
  if (differences.length === 0) return {...result, detail: partlyRefunded(found, refunded)}
  // One class per row, the weightiest; the detail names every difference.
  const weight: Classification[] = ['currency_mismatch', 'amount_mismatch', 'status_mismatch']
  differences.sort((a, b) => weight.indexOf(a[0]) - weight.indexOf(b[0]))
  return {...result, classification: differences[0]![0], detail: differences.map((d) => d[1]).join('; ')}
}
