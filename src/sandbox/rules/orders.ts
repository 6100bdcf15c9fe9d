/**
 * The gateway's rules for orders (sections 3, 4.1, 4.2 and 4.5): what creating, querying and
 * closing check, do and answer; and the payer's side (scanning the QR, paying or declining).
 */
import {randomBytes} from 'node:crypto'

import QRCode from 'qrcode'

import {
  type CloseResult,
  type OrderChannel,
  type OrderCreated,
  type OrderRecord,
  QR_LIFETIME,
  compactTimestamp,
} from '../../lib/gateway/protocol/index.js'
import {newNonce} from '../../lib/gateway/signing.js'
import type {SandboxOrder} from '../ledger.js'
import type {Merchant} from '../merchants.js'
import {promptPayPayload} from '../promptpay.js'
import {type Book, type Outcome, type Params, refuse} from './book.js'
import {orderRecord} from './records.js'
import {randomDigits} from './refunds.js'

/** Why the order cannot be created, when it cannot. */
function refusal(book: Book, merchant: Merchant, p: Params): Outcome<never> | undefined {
  const channel = p.channel as OrderChannel
  if (!merchant.channels.includes(channel)) {
    return refuse(
      'CHANNEL_LIST_ERROR',
      `merchant ${merchant.appid} has no ${channel} service; it has ${merchant.channels.join(', ')}`,
    )
  }
  if (!(merchant.currencies as string[]).includes(p.fee_type!)) {
    const registered = merchant.currencies.join(', ')
    return refuse(
      'GW_FEETYPE_NOT_MATCH',
      `fee_type ${p.fee_type} is not registered for ${merchant.appid}; registered: ${registered}`,
    )
  }
  const total = Number(p.total_fee)
  if (total < merchant.min_amount || total === 0) {
    return refuse(
      'GW_AMOUNT_IS_TOO_SMALL',
      `total_fee ${total} is below the minimum ${Math.max(1, merchant.min_amount)}`,
    )
  }
  if (total > merchant.amount_limit) {
    return refuse('GW_EXCEED_AMOUNT_LIMIT', `total_fee ${total} exceeds the limit ${merchant.amount_limit}`)
  }
  const lifetime = QR_LIFETIME[channel]
  for (const parameter of ['tmn_expire_time', 'expire_time'] as const) {
    if (p[parameter] !== undefined && lifetime.parameter !== parameter) {
      const takes = parameter === 'tmn_expire_time' ? 'truemoney' : 'scb_qrcard'
      return refuse('GW_INVALID_PARAM', `${parameter} applies to ${takes} only`)
    }
  }
  const requested = lifetime.parameter && p[lifetime.parameter]
  if (requested !== undefined && lifetime.maxSeconds !== undefined && Number(requested) > lifetime.maxSeconds) {
    return refuse('GW_INVALID_PARAM', `${lifetime.parameter} must be at most ${lifetime.maxSeconds} seconds`)
  }
  if (book.ledger.byMchOrderNo(merchant.appid, p.mch_order_no!)) {
    return refuse('GW_DUPLICATED_ORDERNO', `mch_order_no ${p.mch_order_no} was already used`)
  }
  return undefined
}

/** A new order; `origin` is where its payer page lives. */
export async function createOrder(
  book: Book,
  merchant: Merchant,
  p: Params,
  origin: string,
): Promise<Outcome<OrderCreated>> {
  const refused = refusal(book, merchant, p)
  if (refused) return refused
  const channel = p.channel as OrderChannel
  const lifetime = QR_LIFETIME[channel]
  const requested = lifetime.parameter && p[lifetime.parameter]
  const seconds = requested ? Number(requested) : lifetime.defaultSeconds
  const now = Date.now()
  const total = Number(p.total_fee)
  const order: SandboxOrder = {
    appid: merchant.appid,
    mch_order_no: p.mch_order_no!,
    gw_order_no: book.number('900'),
    channel_order_no: '',
    channel,
    total_fee: total,
    fee_type: p.fee_type!,
    state: 'NOTPAY',
    created_at: now,
    expires_at: seconds === undefined ? null : now + book.scaled(seconds),
    paid_at: null,
    closed_at: null,
    notify_url: p.notify_url ?? '',
    attach: p.attach ?? '',
    product: p.product ?? '',
    device_id: p.device_id ?? '',
    operator_id: p.operator_id ?? '',
    img_type: p.img_type ?? 'png',
    openid: '',
    refunds: [],
    notify: p.notify_url ? 'pending' : 'none',
    notifications: [],
  }
  let codeUrl = `${origin}/pay/${order.gw_order_no}`
  let extra: Partial<OrderCreated> = {}
  if (channel === 'promptpay') {
    const stall = `900${merchant.number}`
    const billerId = `0105${merchant.number.padStart(11, '0')}`.slice(0, 15)
    codeUrl = promptPayPayload({billerId, reference1: order.gw_order_no.slice(3), reference2: stall, amount: total})
    extra = {
      fee_type: order.fee_type,
      total_fee: total,
      PaymentID: order.gw_order_no,
      PaymentCode: codeUrl,
      stalls_name: stall,
    }
  } else if (channel === 'airpay') {
    codeUrl = `${origin}/qr/${order.gw_order_no}.png`
  }
  // airpay's imgdat is "not supported; scanning it shows an error": it encodes no payable link.
  const qrText = channel === 'airpay' ? 'AIRPAY: use code_url as the image source' : codeUrl
  const svg = async () => Buffer.from(await QRCode.toString(qrText, {type: 'svg', margin: 2})).toString('base64')
  const imgdat =
    order.img_type === 'svg' ? `data:image/svg+xml;base64,${await svg()}` : await QRCode.toDataURL(qrText, {margin: 2})
  book.ledger.save(order)
  const {appid, device_id, mch_order_no, gw_order_no} = order
  const data: OrderCreated = {result: 'SUCCESS', appid, device_id, nonce_str: newNonce(), mch_order_no, gw_order_no}
  return {ok: true, data: {...data, code_url: codeUrl, imgdat, trade_type: 'NATIVE', ...extra}}
}

export function queryOrder(book: Book, merchant: Merchant, p: Params): Outcome<OrderRecord> {
  const order = book.find(merchant, p)
  return order ? {ok: true, data: orderRecord(order)} : book.notFound(p)
}

export function closeOrder(book: Book, merchant: Merchant, p: Params): Outcome<CloseResult> {
  const order = book.find(merchant, p)
  if (!order) return book.notFound(p)
  if (order.state === 'CLOSED') return refuse('ORDER_ALREADY_CANCEL', `order ${order.mch_order_no} is already closed`)
  if (order.state === 'SUCCESS' || order.state === 'REFUND') {
    return refuse('CANCEL_ERROR', `order ${order.mch_order_no} is paid and cannot be closed; refund it instead`)
  }
  order.state = 'CLOSED'
  order.closed_at = Date.now()
  book.ledger.save(order)
  return {
    ok: true,
    data: {appid: merchant.appid, mch_order_no: order.mch_order_no, nonce_str: newNonce(), result: 'SUCCESS'},
  }
}

/** The payer opened the payment page: the order is being paid. */
export function scanned(book: Book, order: SandboxOrder): SandboxOrder {
  book.settle(order)
  if (order.state === 'NOTPAY') {
    order.state = 'USERPAYING'
    book.ledger.save(order)
  }
  return order
}

/** The payer confirmed (or declined). Returns a reason when the order cannot be paid. */
export function pay(book: Book, order: SandboxOrder, fail: boolean): string | undefined {
  book.settle(order)
  if (order.state === 'CLOSED') {
    const expired = order.expires_at !== null && order.closed_at === order.expires_at
    return `order ${order.mch_order_no} is closed${expired ? ' (its QR code expired)' : ''}`
  }
  if (order.state === 'PAYERROR') return `order ${order.mch_order_no} already failed`
  if (order.state !== 'NOTPAY' && order.state !== 'USERPAYING') return `order ${order.mch_order_no} is already paid`
  if (fail) {
    order.state = 'PAYERROR'
  } else {
    order.state = 'SUCCESS'
    order.paid_at = Date.now()
    order.channel_order_no = `4200${compactTimestamp().slice(0, 8)}${randomDigits(16)}`
    order.openid = `u_${randomBytes(4).toString('hex')}`
  }
  book.ledger.save(order)
  return undefined
}
