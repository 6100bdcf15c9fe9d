/**
 * Refunds: money leaving the merchant. A refund is planned against what an order query
 * shows (amount, currency, channel, balance) and refused before sending when it cannot be
 * right. When an answer is lost or unsure, the refund number is looked up by a refund query:
 * found means done (or processing), absent means it may be sent again with the same number,
 * so it is never made twice.
 */
import type {GatewayClient} from '../gateway/client.js'
import {GwError, usageError} from '../errors.js'
import type {OrderHistory} from '../orders/history.js'
import {
  type FoundOrder,
  type OrderReference,
  type OrderService,
  describeReference,
  newOrderNumber,
  refusalError,
} from '../orders/service.js'
import {minorUnitsFrom} from '../cli/amount-input.js'
import {
  DUPLICATE_CODES,
  PAID_ORDER_STATES,
  type RefundOrder,
  type RefundRecord,
  describeOrderState,
  explainError,
  formatAmount,
  lookupError,
  normalizeRefundState,
} from '../gateway/protocol/index.js'

export interface RefundRequest {
  ref: OrderReference
  /** Minor units; or `amount` as a decimal in the order's currency. */
  refundFee?: number
  amount?: string
  mchRefundNo?: string
  channel?: string
  feeType?: string
  totalFee?: number
  /** How the two amount forms are called where they came from (flags or CSV columns). */
  amountNames?: [string, string]
}

export interface PlannedRefund {
  ref: OrderReference
  mch_order_no: string
  channel: string
  total_fee: number
  fee_type: string
  refund_fee: number
  mch_refund_no: string
  /** What is left to refund, when it is known. */
  balance?: number
}

export type RefundStatus = 'refunded' | 'processing' | 'failed' | 'unknown'

export interface RefundResult {
  status: RefundStatus
  planned: PlannedRefund
  gw_refund_no?: string
  refund_time?: string
  err_code?: string
  err_msg?: string
  /** Meaning and advice for people, for failed and unknown refunds. */
  explanation?: string
  /** How the outcome was learned: the refund answer, or a refund query after an unclear answer. */
  resolved_by: 'answer' | 'refund_query'
  /** The refund number was already used before this run, for this same refund. */
  already_existed?: boolean
}

type Lookup =
  | {state: 'SUCCESS' | 'PROCESSING' | 'FAIL'; gw_refund_no?: string; refund_time?: string; refund_fee?: number}
  | {state: 'absent'}
  | {state: 'unknown'; why: string}

/** What a refund query needs to know of the order. */
interface RefundQueryOrder {
  mch_order_no?: string
  gw_order_no?: string
  channel: string
  total_fee?: number
  fee_type?: string
}

const orderFacts = (found: FoundOrder): RefundQueryOrder => ({...found.record, channel: found.channel})

/** Rounds of "send, and when unclear look it up" before the outcome is called unknown. */
const SEND_ROUNDS = 3

export class RefundService {
  constructor(
    readonly client: GatewayClient,
    readonly history: OrderHistory,
    readonly orders: OrderService,
  ) {}

  get appid(): string {
    return this.client.profile.appid
  }

  /**
   * Every refund of the order, by a refund query with any refund number known for it (the
   * gateway answers for the whole order but needs one): this machine's history first, then
   * `candidates`. Undefined when no number is known to the gateway.
   */
  async refundsOf(found: FoundOrder, candidates: string[] = []): Promise<RefundOrder[] | undefined> {
    // A paid order no refund succeeded on; one still processing counts only if a number finds it.
    const none = found.record.result === 'SUCCESS' ? [] : undefined
    const known = this.history.refundsOf(this.appid, found.record.mch_order_no ?? '')
    const numbers = [...new Set([...known.map((r) => r.mch_refund_no).reverse(), ...candidates])].slice(0, 3)
    for (const number of numbers) {
      let answer
      try {
        answer = await this.client.call(
          'refund_query',
          this.#queryParams(orderFacts(found), number, known.find((r) => r.mch_refund_no === number)?.refund_fee),
        )
      } catch (error) {
        // Not known now: the gateway still enforces the balance when the refund is sent.
        if (error instanceof GwError) return undefined
        throw error
      }
      if (answer.status === 'success') return answer.data.refund_orders
      if (answer.status === 'refused' && answer.code === 'GW_INVALID_ORDER_NO') continue
      return undefined
    }
    return none
  }

  /** Refunded so far (SUCCESS and PROCESSING count against the balance), or undefined when unknowable. */
  async refundedSoFar(found: FoundOrder, candidates: string[] = []): Promise<number | undefined> {
    const refunds = await this.refundsOf(found, candidates)
    return refunds && refundedTotal(refunds)
  }

  /** A refund query for the order these facts name (an order query's, or a planned refund's). */
  #queryParams(order: RefundQueryOrder, mchRefundNo: string, refundFee: number | undefined) {
    return {
      mch_order_no: order.mch_order_no,
      gw_order_no: order.mch_order_no ? undefined : order.gw_order_no,
      channel: order.channel,
      total_fee: order.total_fee,
      fee_type: order.fee_type,
      mch_refund_no: mchRefundNo,
      // The document requires refund_fee here too; when the refund's amount is not known, the order total stands in.
      refund_fee: refundFee ?? order.total_fee,
    }
  }

  /**
   * Checks a refund against the order before anything is sent. `balance` is what is left of
   * the order when the caller knows it, null to leave the balance to the gateway, undefined
   * to look it up.
   */
  async plan(request: RefundRequest, found?: FoundOrder, balance?: number | null): Promise<PlannedRefund> {
    const order = found ?? (await this.orders.find(request.ref, request.channel))
    const record = order.record
    const where = `Order ${describeReference(request.ref)}`
    if (record.total_fee === undefined || !record.fee_type)
      throw new GwError('transport', `${where}: the order query did not give the total and currency.`)
    if (request.feeType && request.feeType !== record.fee_type)
      throw usageError(`${where} is in ${record.fee_type}, not ${request.feeType}. Nothing was sent.`)
    if (request.totalFee !== undefined && request.totalFee !== record.total_fee)
      throw usageError(
        `${where} totals ${formatAmount(record.total_fee, record.fee_type)}, not ${formatAmount(request.totalFee, record.fee_type)}. Nothing was sent.`,
      )
    if (!PAID_ORDER_STATES.includes(record.result)) {
      throw usageError(
        `${where} is ${record.result} (${describeOrderState(record.result)}); only paid orders can be refunded. Nothing was sent.`,
      )
    }
    const refundFee = minorUnitsFrom(
      {amount: request.amount, minor: request.refundFee, names: request.amountNames ?? ['--amount', '--refund-fee']},
      record.fee_type,
    )
    if (refundFee > record.total_fee)
      throw usageError(
        `${formatAmount(refundFee, record.fee_type)} is more than the order total ${formatAmount(record.total_fee, record.fee_type)}. Nothing was sent.`,
      )
    if (balance === undefined) {
      const refunded = await this.refundedSoFar(order)
      balance = refunded === undefined ? undefined : record.total_fee - refunded
    }
    if (balance !== undefined && balance !== null && refundFee > balance) {
      throw usageError(
        `${formatAmount(refundFee, record.fee_type)} is more than the balance of order ${describeReference(request.ref)}: ${formatAmount(balance, record.fee_type)} (total ${formatAmount(record.total_fee, record.fee_type)}, refunded ${formatAmount(record.total_fee - balance, record.fee_type)}). Nothing was sent.`,
      )
    }
    return {
      ref: request.ref,
      mch_order_no: record.mch_order_no ?? request.ref.mch_order_no ?? '',
      channel: order.channel,
      total_fee: record.total_fee,
      fee_type: record.fee_type,
      refund_fee: refundFee,
      mch_refund_no: request.mchRefundNo ?? newOrderNumber('RF'),
      balance: balance ?? undefined,
    }
  }

  /** What the gateway knows of this refund number. Never throws: what cannot be learned is `unknown`. */
  async lookup(planned: PlannedRefund): Promise<Lookup> {
    let answer
    try {
      answer = await this.client.call(
        'refund_query',
        this.#queryParams(planned, planned.mch_refund_no, planned.refund_fee),
      )
    } catch (error) {
      if (error instanceof GwError) return {state: 'unknown', why: error.message}
      throw error
    }
    if (answer.status === 'refused') {
      return answer.code === 'GW_INVALID_ORDER_NO'
        ? {state: 'absent'}
        : {state: 'unknown', why: explainError(answer.code, answer.message)}
    }
    if (answer.status === 'uncertain') return {state: 'unknown', why: answer.message}
    const mine = answer.data.refund_orders.find((r) => r.mch_refund_no === planned.mch_refund_no)
    if (!mine) return {state: 'absent'}
    const state = normalizeRefundState(mine.refund_state)
    if (state === 'SUCCESS' || state === 'PROCESSING' || state === 'FAIL')
      return {state, gw_refund_no: mine.gw_refund_no, refund_time: mine.refund_time, refund_fee: mine.mch_refund_fee}
    return {state: 'unknown', why: `the refund is in state ${mine.refund_state}`}
  }

  /** Sends a planned refund and settles its outcome; never sends one refund number twice blindly. */
  async send(planned: PlannedRefund): Promise<RefundResult> {
    const params = {
      mch_order_no: planned.ref.mch_order_no ?? planned.mch_order_no,
      gw_order_no: planned.ref.gw_order_no,
      channel_order_no: planned.ref.channel_order_no,
      channel: planned.channel,
      total_fee: planned.total_fee,
      fee_type: planned.fee_type,
      mch_refund_no: planned.mch_refund_no,
      refund_fee: planned.refund_fee,
    }
    let lastWhy = ''
    for (let round = 1; round <= SEND_ROUNDS; round++) {
      const answer = await this.client.call('order_refund', params)
      if (answer.status === 'success')
        return this.#done({
          status: 'refunded',
          planned,
          gw_refund_no: answer.data.gw_refund_no,
          refund_time: answer.data.refund_time,
          resolved_by: 'answer',
        })
      const duplicate = answer.status === 'refused' && DUPLICATE_CODES.includes(answer.code)
      if (answer.status === 'refused' && !duplicate) {
        return {
          status: 'failed',
          planned,
          err_code: answer.code,
          err_msg: answer.message,
          explanation: answer.explanation,
          resolved_by: 'answer',
        }
      }
      // Unclear, or the number is taken: the gateway's record of this refund number decides.
      const found = await this.lookup(planned)
      const existed = duplicate && round === 1
      if (existed && found.state !== 'absent' && found.state !== 'unknown' && found.refund_fee !== planned.refund_fee) {
        return {
          status: 'failed',
          planned,
          err_code: answer.code,
          explanation: explainError(
            answer.code,
            `refund ${planned.mch_refund_no} exists with another amount (${found.refund_fee})`,
          ),
          resolved_by: 'refund_query',
        }
      }
      if (found.state === 'SUCCESS')
        return this.#done({
          status: 'refunded',
          planned,
          gw_refund_no: found.gw_refund_no,
          refund_time: found.refund_time,
          resolved_by: 'refund_query',
          already_existed: existed,
        })
      if (found.state === 'PROCESSING')
        return this.#done({
          status: 'processing',
          planned,
          gw_refund_no: found.gw_refund_no,
          err_code: 'TRADE_STATE_ERROR',
          explanation: lookupError('TRADE_STATE_ERROR')!.action,
          resolved_by: 'refund_query',
          already_existed: existed,
        })
      if (found.state === 'FAIL')
        return {
          status: 'failed',
          planned,
          gw_refund_no: found.gw_refund_no,
          err_code: 'REFUND_FAILED',
          explanation: 'The channel reports the refund as failed.',
          resolved_by: 'refund_query',
        }
      if (found.state === 'unknown') {
        lastWhy = found.why
        break
      }
      if (duplicate) {
        return {
          status: 'failed',
          planned,
          err_code: answer.code,
          explanation: explainError(answer.code, `refund number ${planned.mch_refund_no} belongs to another order`),
          resolved_by: 'refund_query',
        }
      }
      lastWhy = answer.message
      // Absent: the refund did not land; the same refund number may be sent again.
    }
    return {
      status: 'unknown',
      planned,
      explanation: `The outcome could not be settled (${lastWhy}). Check it with: gw refund query ${planned.mch_order_no} --mch-refund-no ${planned.mch_refund_no}`,
      resolved_by: 'refund_query',
    }
  }

  #done(result: RefundResult): RefundResult {
    this.history.recordRefund({
      appid: this.appid,
      mch_order_no: result.planned.mch_order_no,
      mch_refund_no: result.planned.mch_refund_no,
      refund_fee: result.planned.refund_fee,
    })
    return result
  }

  async query(
    ref: OrderReference,
    mchRefundNo?: string,
    channel?: string,
  ): Promise<{found: FoundOrder; refund: RefundRecord; mch_refund_no: string}> {
    const found = await this.orders.find(ref, channel)
    const mchOrderNo = found.record.mch_order_no ?? ref.mch_order_no ?? ''
    const known = this.history.refundsOf(this.appid, mchOrderNo)
    const number = mchRefundNo ?? known.at(-1)?.mch_refund_no
    if (!number) {
      throw usageError(
        `The gateway's refund query needs a refund number, and gw has made no refund of ${mchOrderNo} on this machine.`,
        `Give one: gw refund query ${mchOrderNo} --mch-refund-no R. The gateway then lists every refund of the order.`,
      )
    }
    const amount = known.find((r) => r.mch_refund_no === number)?.refund_fee
    const answer = await this.client.call('refund_query', this.#queryParams(orderFacts(found), number, amount))
    if (answer.status === 'refused') throw refusalError(answer, `Refunds of ${mchOrderNo}`)
    if (answer.status === 'uncertain')
      throw new GwError('unknown', `Refunds of ${mchOrderNo}: the gateway is not sure (${answer.message}).`, {
        advice: 'Query again in a minute.',
      })
    return {found, refund: answer.data, mch_refund_no: number}
  }
}

/** Refunds that count against an order's balance: SUCCESS and PROCESSING. */
export function refundedTotal(refunds: RefundOrder[]): number {
  return refunds
    .filter((r) => ['SUCCESS', 'PROCESSING'].includes(normalizeRefundState(r.refund_state)))
    .reduce((sum, r) => sum + (r.mch_refund_fee ?? 0), 0)
}
