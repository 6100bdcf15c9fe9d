/** The gateway's rules for refunds (sections 4.3 and 4.4): what a refund and a refund query check, do and answer. */
import {randomBytes} from 'node:crypto'

import {
  CHANNELS_BY_OPERATION,
  ORDER_NOT_FOUND,
  type RefundCreated,
  type RefundRecord,
  displayTime,
} from '../../lib/gateway/protocol/index.js'
import {newNonce} from '../../lib/gateway/signing.js'
import type {SandboxOrder, SandboxRefund} from '../ledger.js'
import type {Merchant} from '../merchants.js'
import {type Book, type Outcome, type Params, refuse} from './book.js'
import {cashOf, refundRecord} from './records.js'

/** How long the channel takes to settle a delayed refund (TRADE_STATE_ERROR). */
const REFUND_DELAY_SECONDS = 20 * 60

/** Numbers a channel would make up: digits only. */
export const randomDigits = (count: number) => [...randomBytes(count)].map((b) => String(b % 10)).join('')

/** What is left to refund: refunds that did not fail count against it. */
const balanceOf = (order: SandboxOrder) =>
  order.total_fee - order.refunds.filter((r) => r.state !== 'FAIL').reduce((sum, r) => sum + r.refund_fee, 0)

/** Why the refund cannot be made, when it cannot. */
function refusal(book: Book, merchant: Merchant, order: SandboxOrder, p: Params): Outcome<never> | undefined {
  if (!CHANNELS_BY_OPERATION.order_refund.includes(order.channel)) {
    return refuse('NOAUTH', `refunds are not supported for channel ${order.channel}`)
  }
  if (order.state === 'CLOSED') return refuse('ORDER_ALREADY_CANCEL', `order ${order.mch_order_no} is closed`)
  if (order.state !== 'SUCCESS' && order.state !== 'REFUND') {
    return refuse('ORDER_NOT_PAY', `order ${order.mch_order_no} is ${order.state}, not paid`)
  }
  if (book.ledger.refundNumberUsed(merchant.appid, p.mch_refund_no!)) {
    return refuse('GW_DUPLICATED_REFUND_ORDERNO', `mch_refund_no ${p.mch_refund_no} was already used`)
  }
  const fee = Number(p.refund_fee)
  if (p.fee_type !== order.fee_type || Number(p.total_fee) !== order.total_fee) {
    const said = `the order is ${order.total_fee} ${order.fee_type}; the request says ${p.total_fee} ${p.fee_type}`
    return refuse('GW_INVALID_REFUND_FEE_OR_TYPE', said)
  }
  if (fee <= 0) return refuse('GW_INVALID_REFUND_FEE_OR_TYPE', 'refund_fee must be above zero')
  const window = merchant.refund_window_days
  if (order.paid_at !== null && Date.now() > order.paid_at + book.scaled(window * 86_400)) {
    return refuse('GW_REFUND_EXPIRE', `the refund window of ${window} days has passed`)
  }
  if (fee > order.total_fee) {
    return refuse('GW_INVALID_REFUND_FEE', `refund_fee ${fee} is above the order total ${order.total_fee}`)
  }
  if (!merchant.partial_refund && fee !== order.total_fee) {
    return refuse(
      'GW_INVALID_REFUND_AMOUNT',
      `partial refunds are not allowed for ${merchant.appid}; refund ${order.total_fee}`,
    )
  }
  const balance = balanceOf(order)
  if (fee > balance) return refuse('GW_INVALID_REFUND_BALANCE', `refund_fee ${fee} is above the balance ${balance}`)
  return undefined
}

/** A refund; `processing` (a fault) makes it a delayed one, answered TRADE_STATE_ERROR. */
export function refund(book: Book, merchant: Merchant, p: Params, processing: boolean): Outcome<RefundCreated> {
  const order = book.find(merchant, p)
  if (!order) return book.notFound(p)
  const refused = refusal(book, merchant, order, p)
  if (refused) return refused
  const fee = Number(p.refund_fee)
  const now = Date.now()
  const made: SandboxRefund = {
    mch_refund_no: p.mch_refund_no!,
    gw_refund_no: book.number('910'),
    channel_refund_no: processing ? '' : `5020${randomDigits(24)}`,
    refund_fee: fee,
    state: processing ? 'PROCESSING' : 'SUCCESS',
    created_at: now,
    ...(processing ? {settles_at: now + book.scaled(REFUND_DELAY_SECONDS)} : {}),
    attach: p.attach ?? '',
    device_id: p.device_id ?? '',
    operator_id: p.operator_id ?? '',
  }
  order.refunds.push(made)
  if (!processing) order.state = 'REFUND'
  book.ledger.save(order)
  if (processing) return refuse('TRADE_STATE_ERROR', 'the refund result is delayed; query it later')
  const data: RefundCreated = {
    result: 'SUCCESS',
    appid: merchant.appid,
    attach: made.attach,
    cash_refund_fee: Math.round((cashOf(order).cash_fee * fee) / order.total_fee),
    channel: order.channel,
    channel_order_no: order.channel_order_no,
    channel_refund_no: made.channel_refund_no,
    device_id: made.device_id,
    fee_type: order.fee_type,
    gw_order_no: order.gw_order_no,
    gw_refund_no: made.gw_refund_no,
    mch_order_no: order.mch_order_no,
    mch_refund_no: made.mch_refund_no,
    nonce_str: newNonce(),
    operator_id: made.operator_id,
    refund_fee: fee,
    refund_time: displayTime(new Date(now)),
    total_fee: order.total_fee,
  }
  return {ok: true, data}
}

/** The refund query answers for the whole order, but only for a refund number the order has. */
export function queryRefund(book: Book, merchant: Merchant, p: Params): Outcome<RefundRecord> {
  const order = book.find(merchant, p)
  if (!order) return book.notFound(p)
  if (!CHANNELS_BY_OPERATION.refund_query.includes(order.channel)) {
    return refuse('NOAUTH', `refund query is not supported for channel ${order.channel}`)
  }
  if (!order.refunds.some((r) => r.mch_refund_no === p.mch_refund_no)) {
    return refuse(ORDER_NOT_FOUND, `order ${order.mch_order_no} has no refund ${p.mch_refund_no}`)
  }
  return {ok: true, data: refundRecord(order)}
}
