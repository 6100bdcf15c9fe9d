/**
 * The one rule a refund is checked by before it is sent, single or bulk: the order took
 * money, its currency and total are what the caller says, the amount converts exactly to
 * minor units and is above zero, and it fits in what is left of the order. A problem is a
 * typed fact, with its words here (a single refund's view and a bulk plan's problem list both
 * say it); "Nothing was sent" belongs to the views.
 */
import {
  type Amount,
  AmountError,
  type AmountNames,
  CHANNELS_BY_OPERATION,
  PAID_ORDER_STATES,
  describeOrderState,
  formatAmount,
  isoTime,
  minorUnitsOf,
} from '../gateway/protocol/index.js'
import {shown} from '../untrusted.js'
import type {RefundAsk, RefundProblem} from './refund.js'

/** What the check needs of the order (from an order query). */
interface OrderFacts {
  state: string
  total: number
  currency: string
  /** The order's channel, when known: some channels cannot be refunded through the API at all. */
  channel?: string
}

/** The amount in minor units of the order's currency, or why it cannot be one. */
function amountInMinorUnits(amount: Amount, currency: string): number | RefundProblem {
  try {
    return minorUnitsOf(amount, currency)
  } catch (error) {
    if (error instanceof AmountError)
      return {kind: 'bad_amount', form: 'decimal' in amount ? 'decimal' : 'minor', reason: error.message}
    throw error
  }
}

/** `refunded` is what the order has refunded so far when known; undefined leaves the balance to the gateway. */
export function balanceProblem(
  order: OrderFacts,
  refundFee: number,
  refunded: number | undefined,
): RefundProblem | undefined {
  const {total, currency} = order
  if (refundFee > total) return {kind: 'above_total', refundFee, total, currency}
  if (refunded !== undefined && refundFee > total - refunded) {
    return {kind: 'above_balance', refundFee, balance: total - refunded, total, currency}
  }
  return undefined
}

/** The refund's amount in minor units when it can be sent, else the first problem. */
export function checkRefund(order: OrderFacts, ask: RefundAsk, refunded: number | undefined): number | RefundProblem {
  const channels = CHANNELS_BY_OPERATION.order_refund
  if (order.channel && !channels.includes(order.channel)) {
    return {kind: 'channel_not_refundable', channel: order.channel, channels}
  }
  if (ask.feeType && ask.feeType !== order.currency) {
    return {kind: 'currency_mismatch', currency: order.currency, given: ask.feeType}
  }
  if (ask.totalFee !== undefined && ask.totalFee !== order.total) {
    return {kind: 'total_mismatch', total: order.total, given: ask.totalFee, currency: order.currency}
  }
  if (!PAID_ORDER_STATES.includes(order.state)) return {kind: 'not_paid', state: order.state}
  const refundFee = amountInMinorUnits(ask.amount, order.currency)
  if (typeof refundFee !== 'number') return refundFee
  return balanceProblem(order, refundFee, refunded) ?? refundFee
}

/** `order` names the order as the user did; `names` the two amount forms as the user wrote them. */
export function describeRefundProblem(problem: RefundProblem, order: string, names: AmountNames): string {
  switch (problem.kind) {
    case 'channel_not_refundable':
      return `Order ${order} is on channel ${problem.channel}; ${problem.channel} orders cannot be refunded through the API (refunds take ${problem.channels.join(', ')}). Refund it on the merchant platform.`
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
    case 'number_reused':
      return `Refund number ${shown(problem.mchRefundNo, 40)} was sent from this machine at ${isoTime(new Date(problem.at))} for ${formatAmount(problem.refundFee, problem.currency)} of order ${shown(problem.order, 40)}; a refund number is never sent again for another order or amount. Give another refund number, or none (gw makes one).`
  }
}
