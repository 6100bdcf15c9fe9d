/**
 * `gw refund list`: the refunds made on this machine for the profile's appid, newest first,
 * filtered by time, channel and status; with `refresh`, the gateway is asked for each order's
 * refunds (one order query and one refund query per order) and each refund shows the state it
 * has there now. The history is not changed by a list: settling refunds is refund create's work.
 */
import type {Outcome} from '../errors.js'
import {type RefundOrder, decimalOf, isoTime, normalizeRefundState} from '../gateway/protocol/index.js'
import {
  type ListFilter,
  REFRESH_OUTCOME,
  type RefreshFailure,
  emitList,
  markFailed,
  refreshAsker,
  selectionOf,
} from '../orders/list.js'
import type {RefundRecords} from './ports.js'
import type {RefundService} from './service.js'

/**
 * A refund as listed (--json, --out): `made_at` as an order's, each `_fee` beside its `_amount`,
 * its order by both numbers gw knows.
 */
export interface ListedRefund {
  made_at: string
  mch_refund_no: string
  mch_order_no: string
  gw_order_no?: string
  channel?: string
  refund_fee: number
  refund_amount?: string
  fee_type?: string
  /** The total of its order, where this machine knows it (what --amount also matches). */
  total_fee?: number
  total_amount?: string
  /** As the history says (refunded, processing, failed, unknown, intent...), or after --refresh as the gateway says. */
  status: string
  gw_refund_no?: string
  /** Where it was made: refund create, or a bulk file's name. */
  source?: string
  refresh_failed?: string
  [REFRESH_OUTCOME]?: Outcome
  /** Recorded by an earlier gw, which did not record the gateway: shown, never used for a refund (gw history). */
  unattributed?: true
  /** Why --refresh did not ask the gateway (its channel has no refund query): the status is the one gw knew. */
  refresh_skipped?: string
}

/** The columns of a refund list written to a file, and a row of it. */
export const REFUND_LIST_COLUMNS = [
  'made_at',
  'mch_refund_no',
  'mch_order_no',
  'gw_order_no',
  'channel',
  'refund_fee',
  'refund_amount',
  'fee_type',
  'status',
  'gw_refund_no',
  'source',
] as const

export const refundListRow = (r: ListedRefund) => ({
  ...r,
  refund_amount: r.fee_type ? {minor: r.refund_fee, currency: r.fee_type} : undefined,
})

/** The states a listed refund can have. */
export const REFUND_LIST_STATES = ['refunded', 'processing', 'failed', 'unknown', 'intent', 'absent']

/** A refund query's state in the words of the history. */
const GATEWAY_STATUS: Record<string, string> = {SUCCESS: 'refunded', PROCESSING: 'processing', FAIL: 'failed'}

/** The refunds of the list as the history knows them, newest first, read from the query as they are used. */
function* listedRefunds(records: RefundRecords, filter: ListFilter): Generator<ListedRefund> {
  for (const r of records.refunds(selectionOf(filter))) {
    const status = r.status ?? 'refunded'
    yield {
      made_at: isoTime(new Date(r.at)),
      mch_refund_no: r.mch_refund_no,
      mch_order_no: r.mch_order_no,
      gw_order_no: r.gw_order_no,
      channel: r.channel,
      refund_fee: r.refund_fee,
      refund_amount: decimalOf(r.refund_fee, r.fee_type),
      fee_type: r.fee_type,
      total_fee: r.total_fee,
      total_amount: decimalOf(r.total_fee, r.fee_type),
      status,
      gw_refund_no: r.gw_refund_no,
      source: r.source,
      ...(r.unattributed ? {unattributed: true as const} : {}),
    }
  }
}

/** What the gateway said of an order's refunds, for each of its listed refunds. */
type OrderRefunds = {there: RefundOrder[]} | {skipped: string} | RefreshFailure

/** How many orders' answers are kept for their other refunds in the list: a bound, not a cache of the history. */
const ORDERS_KEPT = 1024

/**
 * `gw refund list`: each refund to `emit` as it comes; with refresh, the gateway is asked for
 * its order's refunds first (one order query and one refund query per order: the answer serves
 * every refund of that order listed near it, so an order's refunds made together are asked once).
 */
export function listRefunds(
  refunds: RefundService,
  filter: ListFilter,
  emit: (refund: ListedRefund) => Promise<void>,
): Promise<{stopped: boolean; total: number}> {
  const asked = new Map<string, Promise<OrderRefunds>>()
  const ask = refreshAsker()
  const refundsOf = (refund: ListedRefund): Promise<OrderRefunds> =>
    ask(async () => {
      const found = await refunds.order({mch_order_no: refund.mch_order_no}, refund.channel)
      const there = await refunds.refundsOf(found, [refund.mch_refund_no])
      return there ? {there} : {skipped: `${found.channel} has no refund query`}
    })
  const refresh = async (refund: ListedRefund) => {
    let answer = asked.get(refund.mch_order_no)
    if (!answer) {
      answer = refundsOf(refund)
      asked.set(refund.mch_order_no, answer)
      if (asked.size > ORDERS_KEPT) asked.delete(asked.keys().next().value!)
    }
    const said = await answer
    if ('failed' in said) markFailed(refund, said)
    else if ('skipped' in said) refund.refresh_skipped = said.skipped
    else {
      const there = said.there.find((k) => k.mch_refund_no === refund.mch_refund_no)
      refund.status = there
        ? (GATEWAY_STATUS[normalizeRefundState(there.refund_state)] ?? there.refund_state)
        : 'absent'
      refund.gw_refund_no = there?.gw_refund_no ?? refund.gw_refund_no
    }
  }
  const count = () => refunds.records.count(selectionOf(filter))
  const listed = listedRefunds(refunds.records, filter)
  return emitList(listed, filter, {refresh, state: (r) => r.status, count}, emit)
}
