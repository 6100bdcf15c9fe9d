/**
 * What the refund service asks of the world, as two ports. The gateway: a refund, the lookup of
 * its number (the refund query), the order, the profile it acts for. This machine's records of
 * that gateway: a refund's intent and its outcome, a refund by its number, the refunds of an order,
 * an order's claim, a reading of several questions at once, the records waiting settled. The
 * service factory adapts the real ones (the signed client and the order service; the store's
 * history of the gateway: `gatewayPort`, `recordsPort`); a test gives its own, in memory.
 */
import type {Answer} from '../gateway/answers.js'
import type {GatewayClient, GatewayProfile} from '../gateway/client.js'
import type {OrderReference} from '../orders/reference.js'
import type {FoundOrder} from '../orders/finding.js'
import type {OrderService} from '../orders/service.js'
import type {Recorded, Settled} from '../store/durability.js'
import type {GatewayIdentity} from '../store/gateway.js'
import type {ClaimHolder, OrderClaim} from '../store/claims.js'
import type {GatewayHistory} from '../store/history.js'
import type {Selection} from '../store/queries/lists.js'
import type {RefundEntry} from '../store/records.js'

/** The parameters of a refund request, as sent (every attempt and resend the same). */
export interface RefundParams {
  mch_order_no?: string
  gw_order_no?: string
  channel_order_no?: string
  channel: string
  total_fee: number
  fee_type: string
  mch_refund_no: string
  refund_fee: number
}

/** The parameters of a refund query (section 4.4). */
export interface RefundQueryParams {
  mch_order_no?: string
  gw_order_no?: string
  channel: string
  total_fee?: number
  fee_type?: string
  mch_refund_no: string
  refund_fee?: number
}

/** What else is known of the order asked about (its gateway number), which an answer must not contradict. */
type Known = {gw_order_no?: string}

export interface RefundGateway {
  /** The profile the gateway is asked for: its appid, and its name in the commands gw suggests. */
  readonly profile: GatewayProfile
  /** gw's own check of a refund's parameters before anything leaves: throws (usage) when they cannot be sent. */
  check(params: RefundParams): void
  /** Sends a refund; `signal` stops the retries (only what was sent is awaited). */
  refund(params: RefundParams, known: Known, signal?: AbortSignal): Promise<Answer<'order_refund'>>
  /** The refund query: every refund of the order, asked by one refund number of it. */
  lookup(query: RefundQueryParams, known: Known, signal?: AbortSignal): Promise<Answer<'refund_query'>>
  /** The order, by any of its numbers; `asking`: the command that asks again, for the advice. */
  order(
    ref: OrderReference,
    channel?: string,
    asking?: (ref: OrderReference) => (string | number)[],
  ): Promise<FoundOrder>
}

export interface RefundRecords {
  /** The gateway these records are of, and whether it is the only one this machine knows for its appid. */
  readonly gateway: GatewayIdentity
  isSoleGateway(): boolean
  /** Where they are kept (named in what gw says of them). */
  readonly file: string
  /** A refund about to be sent: synced before this returns; throws (LocalStateError) when it cannot be taken. */
  intent(facts: Omit<RefundEntry, 'type' | 'appid' | 'gateway' | 'at' | 'status'>): void
  /** What became of a refund; never throws: says where the record went (`sync`: before this returns). */
  outcome(
    entry: Omit<RefundEntry, 'type' | 'appid' | 'gateway' | 'at'> & {at?: string},
    options: {sync?: boolean; credit?: boolean},
  ): Recorded
  /** The refund of this number, whatever order it is of. */
  byNumber(mchRefundNo: string): RefundEntry | undefined
  /** The refunds of an order, in the order they were made. */
  ofOrder(mchOrderNo: string): RefundEntry[]
  hasRefunds(mchOrderNo: string): boolean
  /** One refund of an order at a time: its claim, refused while another run holds it. */
  claim(mchOrderNo: string): OrderClaim
  claims(mchOrderNos: Iterable<string>): {claim: OrderClaim; refused: Map<string, ClaimHolder>}
  /** Several questions asked in one reading (one transaction). */
  reading<T>(work: () => T): T
  /** The records waiting committed: where they went. */
  settle(): Settled
  /** The refunds listed, newest first, and how many a selection holds. */
  refunds(selection: Selection): Iterable<RefundEntry & {unattributed?: true}>
  count(selection: Selection): number
}

/** The gateway port of the signed client and the order service. */
export const gatewayPort = (client: GatewayClient, orders: OrderService): RefundGateway => ({
  profile: client.profile,
  check: (params) => client.check('order_refund', {...params}),
  refund: (params, known, signal) => client.call('order_refund', {...params}, known, {signal}),
  lookup: (query, known, signal) => client.call('refund_query', {...query}, known, {signal}),
  order: (ref, channel, asking) => orders.find(ref, channel, asking),
})

/** The records port of the store's history of one gateway. */
export const recordsPort = (history: GatewayHistory): RefundRecords => ({
  get gateway() {
    return history.gateway
  },
  isSoleGateway: () => history.isSoleGateway(),
  get file() {
    return history.file
  },
  intent: (facts) => history.recordIntent(facts),
  outcome: (entry, options) => history.recordOutcome(entry, options),
  byNumber: (mchRefundNo) => history.findRefund(mchRefundNo),
  ofOrder: (mchOrderNo) => history.refundsOf(mchOrderNo),
  hasRefunds: (mchOrderNo) => history.hasRefunds(mchOrderNo),
  claim: (mchOrderNo) => history.claimOrder(mchOrderNo),
  claims: (mchOrderNos) => history.claimOrders(mchOrderNos),
  reading: (work) => history.reading(work),
  settle: () => history.settle(),
  refunds: (selection) => history.refunds(selection),
  count: (selection) => history.count('refunds', selection),
})
