/**
 * The rows of a bulk refund and where each stands in a run: the refund planned for it, what an
 * earlier run sent, and its outcome (the refund's state as a row, refund.ts); the one test of
 * "still to send", and how the journal and the gateway's answers move a row from one outcome to
 * another.
 */
import {type Amount, formatAmount, minorUnitsOf} from '../../gateway/protocol/index.js'
import type {OrderReference} from '../../orders/reference.js'
import {
  type Lookup,
  type MadeBy,
  type PlannedRefund,
  type RowOutcome,
  isFinal,
  refundedRow,
  rowOfLookup,
} from '../refund.js'
import {quoted} from '../../untrusted.js'
import type {IntentRecord, RowHistory} from './journal.js'

/** Why --skip-invalid is no way out of a file held back by its words (a title, a note, a comment, an approval column). */
export const WHOLE_FILE = 'the file is held back by its words, not a row: --skip-invalid skips none of it'

export interface Problem {
  line: number
  message: string
  /**
   * It holds the whole file back (a title, a comment on no row, notes or an approval column that
   * say not to refund): --skip-invalid skips no line of it.
   */
  file?: true
}

/** The refund a usable row asks for. */
export interface RowRequest {
  readonly ref: OrderReference
  /** Every order number the row gives (the first is `ref`); the others must be the same order's. */
  readonly numbers: OrderReference
  readonly amount: Amount
  readonly feeType?: string
  readonly totalFee?: number
  readonly channel?: string
  readonly attach?: string
}

/** A row of the file as read; `request` is undefined when the row itself is unusable. */
export interface RefundRow {
  readonly line: number
  /** The refund number the row gives; '' when it is to be derived once the order is known. */
  readonly mchRefundNo: string
  /** The order number as the row gives it (in whichever column), '' when none. */
  readonly order: string
  /** The currency the row names (its fee_type, or its amount's symbol), usable or not. */
  readonly feeType?: string
  readonly request?: RowRequest
}

/** The refund as an earlier run sent it (the journal's intent). */
export interface SentRefund {
  mch_refund_no: string
  mch_order_no: string
  gw_order_no?: string
  refund_fee: number
  fee_type: string
  /** When that run wrote its intent (UTC ISO, as the journal holds it). */
  at?: string
  /** The journal's line holding the intent. */
  journal_line?: number
}

/** Who made a refund a row finds made before this send: an earlier run of this file when the journal holds its intent, else elsewhere. */
export const madeBefore = (state: RowState): Exclude<MadeBy, 'this_run'> => (state.sent ? 'earlier_run' : 'elsewhere')

/** A success of a refund number learned now: an earlier run of this file sent it (`sent`), else it was made elsewhere. */
export const succeeded = (state: RowState, facts: Parameters<typeof refundedRow>[1]): RowOutcome =>
  refundedRow(madeBefore(state), facts, state.sent?.at)

/** A row's place in the run: the refund planned for it, what an earlier run sent, and what became of it. */
export interface RowState {
  readonly outcome: RowOutcome
  readonly planned?: PlannedRefund
  readonly sent?: SentRefund
  /**
   * The journal's record of this row disagrees with what gw derives from the row (its refund
   * number, amount, order): edited, or another file's. It is evidence, not authority: the row is
   * never sent on its word, and only a lookup of the row's own refund number settles it.
   */
  readonly edited?: string
  /** A failure the journal records, said again only once a lookup (where the channel has one) has not shown the refund made. */
  readonly failedBefore?: RowOutcome & {readonly status: 'failed'}
}

/** A row not sent yet, of which nothing else is known: one object for all of them (states are replaced, never changed). */
export const NOT_SENT: RowState = Object.freeze({outcome: Object.freeze({status: 'pending'} as const)})

/** Not sent, or sent without a known outcome: the gateway is still to be asked (by sending, or by looking up). */
export const isOpen = (state: RowState) => state.outcome.status === 'pending' || state.outcome.status === 'unknown'

/** The one test of "still to send": planned, open, and not on the word of an edited journal. */
export const isToSend = (state: RowState): state is RowState & {planned: PlannedRefund} =>
  state.planned !== undefined && isOpen(state) && !state.edited

/** The row's refund number: as planned, as an earlier run sent it, or as the file gives it ('' when not known). */
export const numberOf = (row: RefundRow, state: RowState) =>
  state.planned?.mch_refund_no ?? state.sent?.mch_refund_no ?? row.mchRefundNo

/** The amount and currency a row stands for, as planned, as sent before, or as written in minor units. */
export function rowAmount(row: RefundRow, state: RowState): {refund_fee?: number; fee_type?: string} {
  if (state.planned) return {refund_fee: state.planned.refund_fee, fee_type: state.planned.fee_type}
  if (state.sent) return state.sent
  const amount = row.request?.amount
  return {refund_fee: amount && 'minor' in amount ? amount.minor : undefined, fee_type: row.feeType}
}

/**
 * What a refund query's answer for a refund number makes of a row that may have been sent: a
 * success is an earlier run's when the journal holds its intent, else made elsewhere; unknown
 * leaves the row as it was (sending the same number again is safe, and settles it).
 */
export function settleByLookup(state: RowState, lookup: Lookup): RowState {
  const facts = {mch_refund_no: state.planned?.mch_refund_no, sentAt: state.sent?.at}
  const outcome = rowOfLookup(lookup, madeBefore(state), facts)
  return outcome ? {...state, outcome} : state
}

/**
 * A row's state from the journal of earlier runs. A final outcome after its intent is done; an
 * intent without one (or with processing) is asked about again under the same number; an
 * outcome without its intent is not trusted: the row is looked up. A failed outcome is looked up
 * too before it is said again (a journal edited to say failed would hide a refund made). An
 * intent that is not this row's refund (another number than the row gives, another order or
 * amount) makes the row edited: its journal lines are not used.
 */
export function stateFromJournal(row: RefundRow, entry: RowHistory | undefined): RowState {
  const intent = entry?.intent
  if (!intent) return entry?.outcome ? {outcome: {status: 'unknown'}} : NOT_SENT
  const disagreement = journalDisagreement(row, intent)
  if (disagreement)
    return {outcome: {status: 'unknown'}, edited: `the journal's line ${entry.intentLine} ${disagreement}`}
  const {mch_refund_no, mch_order_no, gw_order_no, refund_fee, fee_type, at} = intent
  const sent = {mch_refund_no, mch_order_no, gw_order_no, refund_fee, fee_type, at, journal_line: entry.intentLine}
  const outcome = entry.outcome
  if (!outcome || outcome.mch_refund_no !== mch_refund_no || !isFinal(outcome))
    return {outcome: {status: 'unknown'}, sent}
  const {status, gw_refund_no, refund_time, err_code, err_msg, advice, earlier_run_at} = outcome
  if (status === 'failed')
    return {outcome: {status: 'unknown'}, sent, failedBefore: {status, gw_refund_no, err_code, err_msg, advice}}
  if (status === 'not_confirmable') return {outcome: {status, advice}, sent}
  if (status === 'already_refunded') return {outcome: {status, gw_refund_no, refund_time}, sent}
  // Refunded by a run of this file before this one.
  const state = {outcome: {status: 'pending'}, sent} as const
  return {...state, outcome: succeeded(state, {gw_refund_no, refund_time, earlier_run_at})}
}

/**
 * What no two rows' journal lines can both hold, each row's own lines agreeing with it: one
 * gateway refund made for two rows, one gateway order under two merchant order numbers. An
 * edit (a line copied to another row's), whoever made it: those rows are not taken on the
 * journal's word; each is looked up under its own refund number, as an edited row is.
 */
export function journalCrossCheck(rows: readonly RefundRow[], states: RowState[]): void {
  const firstOf = new Map<string, number>()
  /** The row that gave `key` first; none when this one (`i`) is the first. */
  const earlierWith = (key: string, i: number) => {
    const first = firstOf.get(key)
    if (first === undefined) firstOf.set(key, i)
    return first
  }
  const edits: [number, number, string][] = []
  const clash = (first: number, i: number, what: string) => {
    const lines = `lines ${states[first]!.sent!.journal_line} and ${states[i]!.sent!.journal_line}`
    edits.push([
      first,
      i,
      `the journal's ${lines} give ${what} to lines ${rows[first]!.line} and ${rows[i]!.line}: edited, or another file's journal`,
    ])
  }
  for (const [i, {sent, outcome}] of states.entries()) {
    if (!sent) continue
    const refund = 'gw_refund_no' in outcome ? outcome.gw_refund_no : undefined
    const byRefund = refund ? earlierWith(`refund\u0000${refund}`, i) : undefined
    if (byRefund !== undefined) {
      clash(byRefund, i, `gateway refund ${quoted(refund)}`)
      continue
    }
    const byOrder = sent.gw_order_no ? earlierWith(`order\u0000${sent.gw_order_no}`, i) : undefined
    if (byOrder !== undefined && states[byOrder]!.sent!.mch_order_no !== sent.mch_order_no)
      clash(byOrder, i, `gateway order ${quoted(sent.gw_order_no)}`)
  }
  for (const [first, i, edited] of edits)
    for (const at of [first, i]) states[at] = {outcome: {status: 'unknown'}, edited}
}

/** How a journal's intent is not the row's refund, in words; undefined when it may be (what the row says agrees). */
function journalDisagreement(row: RefundRow, intent: IntentRecord): string | undefined {
  const request = row.request
  const named = `refund ${quoted(intent.mch_refund_no)} of ${formatAmount(intent.refund_fee, intent.fee_type)} on order ${quoted(intent.mch_order_no)}`
  const differs = (what: string) =>
    `records ${named} for line ${row.line}, whose ${what}: edited, or another file's journal`
  if (row.mchRefundNo && row.mchRefundNo !== intent.mch_refund_no)
    return differs(`refund number is ${quoted(row.mchRefundNo)}`)
  if (!request) return undefined
  const {ref, amount, feeType} = request
  if (ref.mch_order_no && ref.mch_order_no !== intent.mch_order_no)
    return differs(`order is ${quoted(ref.mch_order_no)}`)
  if (ref.gw_order_no && intent.gw_order_no && ref.gw_order_no !== intent.gw_order_no)
    return differs(`gateway order is ${quoted(ref.gw_order_no)}`)
  const currency = feeType?.toUpperCase() ?? intent.fee_type
  if (currency !== intent.fee_type) return differs(`currency is ${quoted(currency)}`)
  let minor: number | undefined
  try {
    minor = minorUnitsOf(amount, currency)
  } catch {
    minor = undefined
  }
  if (minor !== intent.refund_fee)
    return differs(`amount is ${minor === undefined ? 'not that' : formatAmount(minor, currency)}`)
  return undefined
}

/** The columns a report adds to the input's: what became of each row. */
export const REPORT_COLUMNS = [
  'status',
  'mch_refund_no',
  'gw_refund_no',
  'refund_fee',
  'refund_amount',
  'fee_type',
  'refund_time',
  'earlier_run_at',
  'settled_by',
  'err_code',
  'err_msg',
  'advice',
] as const

/** An order several rows refund: their lines, what they send, and the order's balance. */
export interface OrderLine {
  order: string
  lines: number[]
  to_send_fee: number
  currency: string
  /** What is left to refund of the order before these rows. */
  balance_fee: number
}

/** A row left out: its line, why, and the flag that leaves it out (--only-visible: the sheet does not show it; --where, --status-map: not taken). */
export interface LeftOut {
  line: number
  why: string
  by: '--only-visible' | '--where' | '--status-map'
}
