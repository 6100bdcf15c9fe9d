/** What the gateway's refund query says of one refund number, in one mapping used everywhere. */
import {CHANNELS_BY_OPERATION, type RefundOrder, normalizeRefundState} from '../gateway/protocol/index.js'

export type Lookup =
  | {state: 'SUCCESS' | 'PROCESSING' | 'FAIL'; gw_refund_no?: string; refund_time?: string; refund_fee?: number}
  | {state: 'absent'}
  /** The gateway holds the refund number with another amount: not the refund asked about. */
  | {state: 'other_amount'; gw_refund_no?: string; refund_fee?: number}
  | {state: 'unknown'; why: string}

/**
 * A refund query's entry for a refund number (undefined: the order has no refund of that
 * number), as a refund of `refundFee`: a state is said of that refund only when the gateway
 * shows that number with that amount.
 */
export function lookupOf(entry: RefundOrder | undefined, refundFee: number): Lookup {
  if (!entry) return {state: 'absent'}
  // An entry without its amount (the gateway writes "" for what it does not have yet) proves nothing either way.
  if (entry.mch_refund_fee === undefined) return {state: 'unknown', why: 'the refund query does not show its amount'}
  if (entry.mch_refund_fee !== refundFee)
    return {state: 'other_amount', gw_refund_no: entry.gw_refund_no, refund_fee: entry.mch_refund_fee}
  const state = normalizeRefundState(entry.refund_state)
  if (state === 'SUCCESS' || state === 'PROCESSING' || state === 'FAIL') {
    return {state, gw_refund_no: entry.gw_refund_no, refund_time: entry.refund_time, refund_fee: entry.mch_refund_fee}
  }
  return {state: 'unknown', why: `the refund is in state ${entry.refund_state}`}
}

/** Refunds that count against an order's balance: SUCCESS and PROCESSING. */
export function refundedTotal(refunds: RefundOrder[]): number {
  return refunds
    .filter((r) => ['SUCCESS', 'PROCESSING'].includes(normalizeRefundState(r.refund_state)))
    .reduce((sum, r) => sum + (r.mch_refund_fee ?? 0), 0)
}

/** Whether the gateway answers refund queries for orders of this channel (section 4.4: not promptpay, not alipay). */
export const hasRefundQuery = (channel: string) => CHANNELS_BY_OPERATION.refund_query.includes(channel)

/** How the next run settles a refund sent without a known outcome: one sentence for every message that says it. */
export const howSettled = (refund: {channel: string; mch_refund_no: string}) =>
  hasRefundQuery(refund.channel)
    ? `gw looks refund ${refund.mch_refund_no} up first`
    : `gw sends refund number ${refund.mch_refund_no} again, which the gateway takes once`
