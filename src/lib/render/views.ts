/**
 * Text views of orders and refunds for people: states in words, amounts with their
 * currency, times as the gateway gave them. --json output does not go through here.
 */
import type {CreatedOrder, FoundOrder} from '../orders/service.js'
import {describeOrderState, describeRefundState, formatAmount, type RefundRecord} from '../gateway/protocol/index.js'
import type {RefundResult} from '../refunds/service.js'
import {bold} from './style.js'
import {fields} from './fields.js'
import {table} from './table.js'

export function createdView(created: CreatedOrder): string {
  const {order} = created
  return fields([
    ['order', bold(order.mch_order_no)],
    ['gateway order', order.gw_order_no],
    ['amount', formatAmount(created.total_fee, created.fee_type)],
    ['channel', created.channel],
    ['QR expires', created.expires_at ? new Date(created.expires_at).toLocaleString() : 'never'],
    ['code_url', created.channel === 'airpay' ? `${order.code_url} (an image to show, not QR text)` : order.code_url],
  ])
}

export function orderView(found: FoundOrder): string {
  const r = found.record
  const channelNote =
    found.channel_source === 'discovered'
      ? ' (found by trying channels)'
      : found.channel_source === 'history'
        ? ' (from local history)'
        : ''
  return fields([
    ['order', bold(r.mch_order_no ?? '-')],
    ['gateway order', r.gw_order_no],
    ['channel order', r.channel_order_no],
    ['state', `${r.result}: ${describeOrderState(r.result)}`],
    ['amount', formatAmount(r.total_fee, r.fee_type)],
    [
      'paid by payer',
      r.cash_fee !== undefined && r.cash_fee_type && r.cash_fee_type !== r.fee_type
        ? formatAmount(r.cash_fee, r.cash_fee_type)
        : undefined,
    ],
    ['channel', `${found.channel}${channelNote}`],
    ['paid at', r.time_end],
    ['payer', r.openid],
    ['device', r.device_id],
    ['operator', r.operator_id],
    ['attach', r.attach],
  ])
}

export function refundResultView(result: RefundResult): string {
  const p = result.planned
  const headline = {
    refunded: result.already_existed ? 'already refunded earlier under this refund number' : 'refunded',
    processing: 'processing: the channel answers later',
    failed: 'failed',
    unknown: 'outcome unknown',
  }[result.status]
  return fields([
    ['refund', bold(p.mch_refund_no)],
    ['status', headline],
    ['order', p.mch_order_no],
    ['amount', formatAmount(p.refund_fee, p.fee_type)],
    ['order total', formatAmount(p.total_fee, p.fee_type)],
    [
      'balance left',
      p.balance !== undefined && result.status === 'refunded' && !result.already_existed
        ? formatAmount(p.balance - p.refund_fee, p.fee_type)
        : undefined,
    ],
    ['gateway refund', result.gw_refund_no],
    ['refund time', result.refund_time],
    ['detail', result.explanation],
  ])
}

export function refundRecordView(mchOrderNo: string, refund: RefundRecord): string {
  const summary = fields([
    ['order', bold(mchOrderNo)],
    ['order total', formatAmount(refund.total_fee, refund.fee_type)],
    ['refunded', formatAmount(refund.refund_fee, refund.fee_type)],
    ['refunds', refund.refund_count ?? refund.refund_orders.length],
  ])
  if (refund.refund_orders.length === 0) return summary
  const rows = refund.refund_orders.map((r) => [
    r.mch_refund_no,
    formatAmount(r.mch_refund_fee, refund.fee_type),
    `${r.refund_state}: ${describeRefundState(r.refund_state)}`,
    r.refund_time ?? '',
    r.gw_refund_no ?? '',
  ])
  return `${summary}\n${table(['refund', 'amount', 'state', 'time', 'gateway refund'], rows)}`
}
