/**
 * Refunds for people: a refund's outcome, an order's refunds, and the words for a refund
 * that is refused before sending (single or bulk; the caller adds "Nothing was sent").
 */
import type {AmountNames} from '../cli/amount-input.js'
import {ExitCode, GwError} from '../errors.js'
import {describeOrderState, describeRefundState, formatAmount, type RefundRecord} from '../gateway/protocol/index.js'
import type {RefundProblem} from '../refunds/balance.js'
import type {RefundResult} from '../refunds/service.js'
import {fields} from './fields.js'
import {bold} from './style.js'
import {table} from './table.js'

/** `order` names the order as the user did; `names` the two amount forms as the user wrote them. */
export function describeRefundProblem(problem: RefundProblem, order: string, names: AmountNames): string {
  switch (problem.kind) {
    case 'currency_mismatch':
      return `Order ${order} is in ${problem.currency}, not ${problem.given}.`
    case 'total_mismatch':
      return `Order ${order} totals ${formatAmount(problem.total, problem.currency)}, not ${formatAmount(problem.given, problem.currency)}.`
    case 'not_paid':
      return `Order ${order} is ${problem.state} (${describeOrderState(problem.state)}); only paid orders can be refunded.`
    case 'bad_amount':
      return `${problem.form === 'decimal' ? names.decimal : names.minor}: ${problem.reason}.`
    case 'above_total':
      return `${formatAmount(problem.refundFee, problem.currency)} is more than the order total ${formatAmount(problem.total, problem.currency)}.`
    case 'above_balance': {
      const amount = (minor: number) => formatAmount(minor, problem.currency)
      return `${amount(problem.refundFee)} is more than the balance of order ${order}: ${amount(problem.balance)} (total ${amount(problem.total)}, refunded ${amount(problem.total - problem.balance)}).`
    }
  }
}

function refundResultView(result: RefundResult): string {
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

/** A sent refund for people: its view, a note, and the exit code; a failed refund is an error (exit 1). */
export function refundOutcome(
  result: RefundResult,
): {error: GwError} | {text: string; note?: string; exitCode: ExitCode} {
  const p = result.planned
  if (result.status === 'failed') {
    const details = {err_code: result.err_code, err_msg: result.err_msg, mch_refund_no: p.mch_refund_no}
    const what = `Refund ${p.mch_refund_no} of ${formatAmount(p.refund_fee, p.fee_type)} failed`
    return {error: new GwError('refused', `${what}: ${result.explanation}`, {details})}
  }
  const note =
    result.status === 'processing'
      ? `Check it later: gw refund query ${p.mch_order_no} --mch-refund-no ${p.mch_refund_no}`
      : undefined
  return {
    text: refundResultView(result),
    note,
    exitCode: result.status === 'refunded' ? ExitCode.Done : ExitCode.Unknown,
  }
}
