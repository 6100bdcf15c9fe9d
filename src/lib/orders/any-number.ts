/**
 * An order found by any number support has: the merchant's order number, the gateway's, the
 * channel's (a wallet's receipt shows it), or a refund's (gw's or the gateway's) that this
 * machine's history knows. The history is asked first, by its indexes; a number it does not know
 * is asked of the gateway as each of the order's numbers it can be (the gateway's and the channels'
 * are digits), on every channel at once (OrderService.discover). The gateway has no question by a refund number alone (its refund query
 * needs the order's), so a refund number this machine does not know is said to need the order's.
 */
import {GwError, type SuggestedFor, gwCommand, usageError} from '../errors.js'
import {CHANNELS_BY_OPERATION, ORDER_NOT_FOUND, ORDER_NUMBER_FIELDS} from '../gateway/protocol/index.js'
import type {GatewayHistory} from '../store/history.js'
import type {RefundEntry} from '../store/records.js'
import {quoted} from '../untrusted.js'
import {type OrderNumberField, type OrderReference, SEVERAL_ORDERS, looksLikeGatewayNumber} from './reference.js'
import type {FoundOrder} from './finding.js'
import type {OrderService} from './service.js'

/** What a number turned out to be, of the order found. */
export type NumberKind = OrderNumberField | 'mch_refund_no' | 'gw_refund_no'

/** Each kind of number in support's words. */
export const NUMBER_WORDS: Readonly<Record<NumberKind, string>> = {
  mch_order_no: 'merchant order number',
  gw_order_no: "gateway's order number",
  channel_order_no: "channel's order number",
  mch_refund_no: 'refund number',
  gw_refund_no: "gateway's refund number",
}

/** A number as this machine's history knows it: the order it names (by its merchant number), and how. */
interface KnownNumber {
  mch_order_no: string
  channel?: string
  is: NumberKind
  /** The refund the number names, when it is a refund's. */
  refund?: RefundEntry
}

/** An order found by a number: as the gateway shows it now, what the number is of it, and the refund it names. */
export type FoundByNumber = FoundOrder & {number_is: NumberKind; refund?: RefundEntry}

/**
 * What this machine's history knows `number` as: an order's merchant, gateway or channel number, or
 * a refund's, gw's or the gateway's. Undefined when it knows none; a number that names two orders
 * here (one's order number, another's refund number) is a problem said, never a guess.
 */
export function knownNumber(history: GatewayHistory, number: string, profile?: SuggestedFor): KnownNumber | undefined {
  const known: KnownNumber[] = []
  for (const field of ORDER_NUMBER_FIELDS) {
    const order = history.findOrder({[field]: number})
    if (order) known.push({mch_order_no: order.mch_order_no, channel: order.channel, is: field})
  }
  const refunds: [NumberKind, RefundEntry | undefined][] = [
    ['mch_refund_no', history.findRefund(number)],
    ['gw_refund_no', history.findRefundByGatewayNumber(number)],
  ]
  for (const [is, refund] of refunds) {
    if (!refund) continue
    const channel = refund.channel ?? history.findOrder({mch_order_no: refund.mch_order_no})?.channel
    known.push({mch_order_no: refund.mch_order_no, channel, is, refund})
  }
  const orders = [...new Set(known.map((k) => k.mch_order_no))]
  if (orders.length > 1) {
    const each = orders.map((order) => {
      const as = known.filter((k) => k.mch_order_no === order).map((k) => NUMBER_WORDS[k.is])
      return `order ${quoted(order, 40)} (as its ${as.join(' and ')})`
    })
    throw usageError(
      `${quoted(number, 40)} names ${orders.length} orders this machine knows: ${each.join(', ')}.`,
      `Name the order by its merchant number, as in ${gwCommand(profile, 'order', 'query', orders[0]!)}`,
      {err_code: SEVERAL_ORDERS},
    )
  }
  return known[0]
}

/**
 * The order `number` names, any number support has, as the gateway shows it now: the history's
 * knowledge first (a refund number leads to its order), else every channel asked at once with
 * the number as each of the order's numbers. Not found: exit 1, saying that a refund number this
 * machine did not make is asked by its order's number.
 */
async function findByAnyNumber(orders: OrderService, number: string, channel?: string): Promise<FoundByNumber> {
  const profile = orders.client.profile
  const known = knownNumber(orders.history, number, profile)
  if (known) {
    const found = await orders.find({mch_order_no: known.mch_order_no}, channel ?? known.channel)
    const channel_source = channel ? 'given' : known.channel ? 'history' : found.channel_source
    return {...found, channel_source, number_is: known.is, ...(known.refund ? {refund: known.refund} : {})}
  }
  // The gateway's and the channels' numbers are digits (16 or more): a number with letters is a merchant's.
  const fields = looksLikeGatewayNumber(number) ? ORDER_NUMBER_FIELDS : (['mch_order_no'] as const)
  const refs = fields.map((field): OrderReference => ({[field]: number}))
  const channels = channel ? [channel] : CHANNELS_BY_OPERATION.order_query
  const found = await orders.discover(refs, channels)
  if (found) {
    const field = ORDER_NUMBER_FIELDS.find((f) => found.ref[f])!
    const {ref: _asked, ...order} = found
    return {...order, channel_source: channel ? 'given' : 'discovered', number_is: field}
  }
  // On the channel given: an order the gateway knows on another is said so (the channel is wrong), as find says.
  if (channel) await orders.find({mch_order_no: number}, channel)
  const refundQuery = gwCommand(profile, 'refund', 'query', 'ORDER', '--mch-refund-no', 'REFUND_NO')
  throw new GwError(
    'refused',
    `No order has the number ${quoted(number, 40)}: this machine's history does not know it, and no channel knows it as ${fields.length > 1 ? 'a merchant, gateway or channel' : 'a merchant'} order number (tried ${channels.join(', ')}).`,
    {
      advice: `Check the number and the profile (appid). A refund number this machine did not make cannot be asked alone: the gateway answers for refunds only when asked by the order's number and one of its merchant refund numbers (the merchant platform shows both), as in ${refundQuery}`,
      details: {err_code: ORDER_NOT_FOUND},
    },
  )
}

/**
 * An order as a command names it: the argument as any number (findByAnyNumber), a flag
 * (--gw-order-no, --channel-order-no) as that number of the order.
 */
export async function findNamed(orders: OrderService, ref: OrderReference, channel?: string): Promise<FoundByNumber> {
  if (ref.mch_order_no) return findByAnyNumber(orders, ref.mch_order_no, channel)
  const found = await orders.find(ref, channel)
  return {...found, number_is: ORDER_NUMBER_FIELDS.find((field) => ref[field]) ?? 'mch_order_no'}
}
