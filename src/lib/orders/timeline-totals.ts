/**
 * What an order's story adds up to (gw order timeline): paid, refunded as the gateway proved it,
 * and what is left, in the order's currency; refunds not proven either way said apart, never counted.
 */
import {PAID_ORDER_STATES, decimalOf} from '../gateway/protocol/index.js'
import type {TimelineEntry} from './timeline-entry.js'

/** A refund not proven either way: as this machine recorded it, or the gateway shows it now. */
interface Unproven {
  mch_refund_no: string
  status: string
  refund_fee?: number
  refund_amount?: string
  /** Recorded by an earlier gw that did not record the gateway: maybe another gateway's. */
  unattributed?: true
}

/**
 * Paid, refunded and left, in the order's currency. `refunded` counts only refunds the gateway
 * showed succeeded; refunds not proven either way (sent with no outcome yet, processing, not
 * confirmable on a channel without a refund query, or recorded by an earlier gw without the
 * gateway) are said apart, never counted.
 */
export interface Totals {
  fee_type: string
  paid_fee: number
  paid_amount?: string
  /** Undefined when the refunds are not known here (refunds_not_known says why). */
  refunded_fee?: number
  refunded_amount?: string
  left_fee?: number
  left_amount?: string
  /** Refunds not proven either way, and their amount (of those whose amount is known). */
  unproven?: Unproven[]
  unproven_fee?: number
  unproven_amount?: string
  refunds_not_known?: string
}

/** Refund states that prove money went back (the gateway showed it), and those that prove none did. */
const PROVEN = new Set(['SUCCESS', 'refunded'])
const NOT_MADE = new Set(['FAIL', 'failed', 'absent'])

/**
 * What the story adds up to: paid (once the order took money), refunded as proven, what is left,
 * and refunds not proven either way apart. Undefined for an order that took no money, or whose
 * total is not known.
 */
export function totalsOf(
  entries: TimelineEntry[],
  order: {state?: string; total_fee?: number; fee_type?: string},
): Totals | undefined {
  const paid = PAID_ORDER_STATES.includes(order.state ?? '') || entries.some((entry) => entry.kind === 'paid')
  const {total_fee, fee_type} = order
  if (!paid || total_fee === undefined || !fee_type) return undefined
  let refunded = 0
  let unprovenFee = 0
  const unproven: Unproven[] = []
  for (const entry of entries) {
    if (entry.kind !== 'refund') continue
    // The gateway's word now (with refresh) over what this machine recorded.
    const status = entry.gateway_state ?? entry.status
    if (NOT_MADE.has(status)) continue
    if (PROVEN.has(status) && !entry.unattributed && entry.refund_fee !== undefined) refunded += entry.refund_fee
    else {
      const {mch_refund_no, refund_fee, refund_amount, unattributed} = entry
      unproven.push({mch_refund_no, status, refund_fee, refund_amount, ...(unattributed ? {unattributed} : {})})
      unprovenFee += refund_fee ?? 0
    }
  }
  const amount = (fee: number) => decimalOf(fee, fee_type)
  const base = {fee_type, paid_fee: total_fee, paid_amount: amount(total_fee)}
  // A refunded order none of whose refunds this machine can name: the gateway lists them only when asked by one.
  if (order.state === 'REFUND' && !refunded && !unproven.length)
    return {
      ...base,
      refunds_not_known:
        "the order is REFUND, refunded in part or whole by refunds this machine did not make: the gateway lists them when asked with one of their numbers (gw refund query's --mch-refund-no, a number from the merchant platform)",
    }
  const left = total_fee - refunded
  const apart = unproven.length ? {unproven, unproven_fee: unprovenFee, unproven_amount: amount(unprovenFee)} : {}
  return {
    ...base,
    refunded_fee: refunded,
    refunded_amount: amount(refunded),
    left_fee: left,
    left_amount: amount(left),
    ...apart,
  }
}
