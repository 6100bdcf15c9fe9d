/**
 * The rows of a bulk refund and what becomes of each: a status union with its facts, and
 * the one test of "still to send".
 */
import type {Amount} from '../../gateway/protocol/index.js'
import type {OrderReference} from '../../orders/reference.js'
import type {Lookup} from '../lookup.js'
import type {PlannedRefund} from '../service.js'
import type {RowHistory} from './journal.js'

export interface Problem {
  line: number
  message: string
}

/** The refund a usable row asks for. */
export interface RowRequest {
  readonly ref: OrderReference
  /** Identifies the order within the file (the column and the number). */
  readonly orderKey: string
  readonly amount: Amount
  readonly feeType?: string
  readonly totalFee?: number
  readonly channel?: string
  readonly attach?: string
}

/** A row of the file as read; `request` is undefined when the row itself is unusable. */
export interface RefundRow {
  readonly line: number
  readonly values: readonly string[]
  readonly mchRefundNo: string
  readonly request?: RowRequest
}

export type RowOutcome =
  | {readonly status: 'pending'}
  | {readonly status: 'unknown'; readonly advice?: string}
  | {readonly status: 'refunded' | 'already_refunded' | 'processing'; readonly gw_refund_no?: string}
  | {
      readonly status: 'failed'
      readonly gw_refund_no?: string
      readonly err_code?: string
      readonly err_msg?: string
      readonly advice?: string
    }
  | {readonly status: 'skipped_invalid'; readonly err_msg: string}

export type RowStatus = RowOutcome['status']

/** Statuses in the order summaries list them. */
export const ROW_STATUSES: readonly RowStatus[] = [
  'refunded',
  'already_refunded',
  'processing',
  'failed',
  'unknown',
  'pending',
  'skipped_invalid',
]

/** Outcomes a run never needs to ask about again. */
export const isFinal = (outcome: RowOutcome) =>
  outcome.status === 'refunded' || outcome.status === 'already_refunded' || outcome.status === 'failed'

/** A row's place in the run: the refund planned for it, and what became of it. */
export interface RowState {
  readonly outcome: RowOutcome
  readonly planned?: PlannedRefund
  /** Amount and currency as sent in an earlier run (from the journal), for rows not planned again. */
  readonly sent?: {refund_fee: number; fee_type: string}
}

/** Not sent, or sent without a known outcome: the gateway is still to be asked (by sending, or by looking up). */
export const isOpen = (state: RowState) => state.outcome.status === 'pending' || state.outcome.status === 'unknown'

/** The one test of "still to send": planned, and open. */
export const isToSend = (state: RowState): state is RowState & {planned: PlannedRefund} =>
  state.planned !== undefined && isOpen(state)

/** The amount and currency a row stands for, as planned, as sent before, or as written in minor units. */
export function amountOf(row: RefundRow, state: RowState): {refund_fee?: number; fee_type?: string} {
  if (state.planned) return {refund_fee: state.planned.refund_fee, fee_type: state.planned.fee_type}
  if (state.sent) return state.sent
  const amount = row.request?.amount
  return {refund_fee: amount && 'minor' in amount ? amount.minor : undefined, fee_type: row.request?.feeType}
}

/** What a refund query's answer for a refund number makes of a row that may have been sent. */
export function settleByLookup(state: RowState, lookup: Lookup): RowState {
  switch (lookup.state) {
    case 'SUCCESS':
      return {...state, outcome: {status: 'refunded', gw_refund_no: lookup.gw_refund_no}}
    case 'PROCESSING':
      return {...state, outcome: {status: 'processing', gw_refund_no: lookup.gw_refund_no}}
    case 'FAIL': {
      const err_msg = 'the channel reports the refund as failed'
      return {
        ...state,
        outcome: {status: 'failed', gw_refund_no: lookup.gw_refund_no, err_code: 'REFUND_FAILED', err_msg},
      }
    }
    case 'absent':
      return {...state, outcome: {status: 'pending'}}
    case 'unknown':
      // Sending again is safe (the gateway takes a number once) and settles it.
      return state
  }
}

/** A row's state from the journal of earlier runs; a processing refund is asked about again. */
export function stateFromJournal(row: RefundRow, entry: RowHistory | undefined): RowState {
  const outcome = entry?.outcome
  if (outcome && outcome.mch_refund_no === row.mchRefundNo && isFinal(outcome)) {
    const {status, gw_refund_no, err_code, err_msg, advice} = outcome
    const sent = entry?.intent && {refund_fee: entry.intent.refund_fee, fee_type: entry.intent.fee_type}
    return {
      outcome: status === 'failed' ? {status, gw_refund_no, err_code, err_msg, advice} : {status, gw_refund_no},
      sent,
    }
  }
  return {outcome: entry?.intent ? {status: 'unknown'} : {status: 'pending'}}
}
