/**
 * The gateway is the shared truth of several desks: a refund made elsewhere (another machine of
 * the merchant's, the merchant platform) is seen before another is sent. Where this machine knows
 * a refund number of the order, the refund query lists every refund of it (and a refund of the
 * same amount in the last 7 days is a repeat: SingleRefunds.identical). Where it knows none, the
 * refund query cannot be asked (an unknown number is GW_INVALID_ORDER_NO), but the order query
 * says REFUND once any refund of it succeeded: a refund made elsewhere. A pure decision, asked by
 * a single refund (a question) and by a bulk run's checks (a problem of the order's rows).
 */
import {type RefundOrder, hasRefundQuery} from '../gateway/protocol/index.js'
import type {FoundOrder} from '../orders/finding.js'
import {type RefundEntry, isMade} from '../store/records.js'

/** An order the gateway shows refunded, of which this machine knows no refund. */
export interface RefundedElsewhere {
  mch_order_no: string
  channel: string
  /** The channel has a refund query: a number of one of its refunds would list them all. */
  listable: boolean
}

/**
 * Whether the order was refunded elsewhere: the gateway says REFUND (a refund of it succeeded),
 * this machine made none of its refunds, and no list of them could be had (`listed`: the refund
 * query's list, under a number this machine or the file knows).
 */
export function refundedElsewhere(
  found: FoundOrder,
  madeHere: readonly RefundEntry[],
  listed: readonly RefundOrder[] | undefined,
): RefundedElsewhere | undefined {
  if (found.record.result !== 'REFUND' || listed !== undefined || madeHere.some(isMade)) return undefined
  return {
    mch_order_no: found.record.mch_order_no ?? '',
    channel: found.channel,
    listable: hasRefundQuery(found.channel),
  }
}

/** It in words: what the gateway shows, and what cannot be seen from here. */
export function describeRefundedElsewhere(elsewhere: RefundedElsewhere): string {
  const unseen = elsewhere.listable
    ? 'which refund and how much are not known here (its refund number lists them: gw refund query ORDER --mch-refund-no NUMBER)'
    : `the gateway has no refund query for ${elsewhere.channel}, so which refund and how much cannot be seen here`
  return `order ${elsewhere.mch_order_no} shows a refund made (REFUND), and this machine made none of its refunds: it was refunded elsewhere (another machine, or the merchant platform); ${unseen}`
}
