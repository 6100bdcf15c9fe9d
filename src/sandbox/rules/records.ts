/**
 * What the gateway says of an order, a refund and a payment, built from the ledger and typed
 * against the protocol's response shapes: drift between the sandbox and the client's schemas
 * fails to compile instead of showing only end to end.
 */
import {
  type NotificationData,
  type OrderRecord,
  type RefundRecord,
  displayTime,
  exponentOf,
} from '../../lib/gateway/protocol/index.js'
import {newNonce} from '../../lib/gateway/signing.js'
import type {SandboxOrder} from '../ledger.js'

/** Exchange rates to CNY, for cash_fee of Chinese wallets. */
const RATE_TO_CNY: Record<string, string> = {THB: '0.2101', MYR: '1.5500', JPY: '0.0480', AED: '1.9400'}
const CNY_CHANNELS = ['wechat', 'alipay']

/**
 * What the payer paid: in CNY on Chinese wallets, at the rate of the order's currency to CNY;
 * else the order's amount in its own currency, at no exchange (rate 1).
 */
export function cashOf(order: SandboxOrder): {cash_fee: number; cash_fee_type: string; rate: string} {
  if (!CNY_CHANNELS.includes(order.channel))
    return {cash_fee: order.total_fee, cash_fee_type: order.fee_type, rate: '1.0000'}
  const rate = RATE_TO_CNY[order.fee_type] ?? '1.0000'
  const major = order.total_fee / 10 ** (exponentOf(order.fee_type) ?? 2)
  return {cash_fee: Math.round(major * Number(rate) * 100), cash_fee_type: 'CNY', rate}
}

const timeOf = (at: number | null) => (at ? displayTime(new Date(at)) : '')

/** The order query's answer (section 2.4). */
export function orderRecord(order: SandboxOrder): OrderRecord {
  return {
    appid: order.appid,
    attach: order.attach,
    ...cashOf(order),
    channel: order.channel,
    channel_order_no: order.channel_order_no,
    consumer_remark: '',
    device_id: order.device_id,
    fee_type: order.fee_type,
    mch_order_no: order.mch_order_no,
    gw_order_no: order.gw_order_no,
    merchant_remark: '',
    nonce_str: newNonce(),
    openid: order.openid,
    operation: 'ORDER-QUERY',
    operator_id: order.operator_id,
    raw_total_fee: order.total_fee,
    time_end: timeOf(order.paid_at),
    total_fee: order.total_fee,
    result: order.state,
  }
}

/** The refund query's answer (section 2.6): the whole order with every refund of it. */
export function refundRecord(order: SandboxOrder): RefundRecord {
  const cash = cashOf(order)
  return {
    appid: order.appid,
    cash_fee: cash.cash_fee,
    cash_fee_type: cash.cash_fee_type,
    channel_order_no: order.channel_order_no,
    channel_state: 'SUCCESS',
    fee_type: order.fee_type,
    gw_order_no: order.gw_order_no,
    mch_order_no: order.mch_order_no,
    nonce_str: newNonce(),
    refund_count: order.refunds.length,
    refund_fee: order.refunds.filter((r) => r.state === 'SUCCESS').reduce((sum, r) => sum + r.refund_fee, 0),
    refund_orders: order.refunds.map((r) => ({
      channel_refund_no: r.channel_refund_no,
      gw_refund_no: r.gw_refund_no,
      mch_refund_fee: r.refund_fee,
      mch_refund_no: r.mch_refund_no,
      refund_state: r.state,
      refund_time: timeOf(r.created_at),
    })),
    result: 'SUCCESS',
    time_end: timeOf(order.paid_at),
    total_fee: order.total_fee,
  }
}

/** The data object of the payment notification (section 6). */
export function notificationData(order: SandboxOrder): NotificationData {
  const cash = cashOf(order)
  return {
    appid: order.appid,
    nonce_str: newNonce(),
    openid: order.openid,
    channel_order_no: order.channel_order_no,
    operator_id: order.operator_id,
    cash_fee_type: cash.cash_fee_type,
    gw_order_no: order.gw_order_no,
    time_end: displayTime(new Date(order.paid_at ?? Date.now())),
    fee_type: order.fee_type,
    // Required in a notification (section 6), empty when the order had none.
    attach: order.attach ?? '',
    rate: Number(cash.rate),
    result: 'SUCCESS',
    total_fee: order.total_fee,
    operation: 'NATIVE-PAY',
    device_id: order.device_id,
    cash_fee: cash.cash_fee,
    mch_order_no: order.mch_order_no,
    order_no: order.mch_order_no,
    channel: order.channel,
  }
}
