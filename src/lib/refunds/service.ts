/**
 * Refunds: money leaving the merchant. A refund is planned against what an order query
 * shows (amount, currency, channel, balance) and refused before sending when it cannot be
 * right. When an answer is lost or unsure, the refund number is looked up by a refund query:
 * found means done (or processing), absent means it may be sent again with the same number,
 * so it is never made twice.
 */
import {GwError} from '../errors.js'
import {refusalError} from '../gateway/answers.js'
import type {GatewayClient} from '../gateway/client.js'
import {
  type Amount,
  DUPLICATE_CODES,
  ORDER_NOT_FOUND,
  type RefundRecord,
  explainError,
  lookupError,
} from '../gateway/protocol/index.js'
import type {OrderHistory} from '../orders/history.js'
import {type OrderReference, newOrderNumber} from '../orders/reference.js'
import type {FoundOrder, OrderService} from '../orders/service.js'
import {type RetryPolicy, tries} from '../retry.js'
import {type RefundProblem, checkRefund} from './balance.js'
import {type Lookup, lookupOf, refundedTotal} from './lookup.js'
import {refundQuery, type RefundQueryOrder} from './query.js'

interface RefundRequest {
  ref: OrderReference
  amount: Amount
  mchRefundNo?: string
  channel?: string
  /** The currency and total the caller expects the order to have, when given. */
  feeType?: string
  totalFee?: number
}

export interface PlannedRefund {
  ref: OrderReference
  mch_order_no: string
  channel: string
  total_fee: number
  fee_type: string
  refund_fee: number
  mch_refund_no: string
  /** What was left of the order before this refund, when it is known. */
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

/** Rounds of "send, and when unclear look it up" before the outcome is called unknown. */
const SEND_ROUNDS: RetryPolicy = {tries: 3, delayMs: () => 0}

const orderFacts = (found: FoundOrder): RefundQueryOrder => ({...found.record, channel: found.channel})

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
  async refundsOf(found: FoundOrder, candidates: string[] = []): Promise<RefundRecord['refund_orders'] | undefined> {
    // A paid order no refund succeeded on; one still processing counts only if a number finds it.
    const none = found.record.result === 'SUCCESS' ? [] : undefined
    const known = this.history.refundsOf(this.appid, found.record.mch_order_no ?? '')
    const numbers = [...new Set([...known.map((r) => r.mch_refund_no).reverse(), ...candidates])].slice(0, 3)
    for (const number of numbers) {
      let answer
      try {
        const amount = known.find((r) => r.mch_refund_no === number)?.refund_fee
        answer = await this.client.call('refund_query', refundQuery(orderFacts(found), number, amount))
      } catch (error) {
        // Not known now: the gateway still enforces the balance when the refund is sent.
        if (error instanceof GwError) return undefined
        throw error
      }
      if (answer.status === 'success') return answer.data.refund_orders
      if (answer.status === 'refused' && answer.code === ORDER_NOT_FOUND) continue
      return undefined
    }
    return none
  }

  /** Refunded so far (SUCCESS and PROCESSING count against the balance), or undefined when unknowable. */
  async refundedSoFar(found: FoundOrder, candidates: string[] = []): Promise<number | undefined> {
    const refunds = await this.refundsOf(found, candidates)
    return refunds && refundedTotal(refunds)
  }

  /**
   * Checks a refund against the order before anything is sent: the planned refund, or the
   * problem that stops it. `refunded` is what the order has refunded so far when known.
   */
  plan(request: RefundRequest, order: FoundOrder, refunded: number | undefined): PlannedRefund | RefundProblem {
    const record = order.record
    if (record.total_fee === undefined || !record.fee_type) {
      throw new GwError(
        'transport',
        `Order ${record.mch_order_no ?? ''}: the order query did not give the total and currency.`,
      )
    }
    const facts = {state: record.result, total: record.total_fee, currency: record.fee_type}
    const refundFee = checkRefund(facts, request, refunded)
    if (typeof refundFee !== 'number') return refundFee
    return {
      ref: request.ref,
      mch_order_no: record.mch_order_no ?? request.ref.mch_order_no ?? '',
      channel: order.channel,
      total_fee: record.total_fee,
      fee_type: record.fee_type,
      refund_fee: refundFee,
      mch_refund_no: request.mchRefundNo ?? newOrderNumber('RF'),
      balance: refunded === undefined ? undefined : record.total_fee - refunded,
    }
  }

  /** One refund: the order queried, its balance looked up, the refund checked. Nothing is sent. */
  async prepare(request: RefundRequest): Promise<PlannedRefund | RefundProblem> {
    const order = await this.orders.find(request.ref, request.channel)
    return this.plan(request, order, await this.refundedSoFar(order))
  }

  /** What the gateway knows of this refund number. Never throws: what cannot be learned is `unknown`. */
  async lookup(planned: PlannedRefund): Promise<Lookup> {
    let answer
    try {
      answer = await this.client.call('refund_query', refundQuery(planned, planned.mch_refund_no, planned.refund_fee))
    } catch (error) {
      if (error instanceof GwError) return {state: 'unknown', why: error.message}
      throw error
    }
    if (answer.status === 'refused') {
      return answer.code === ORDER_NOT_FOUND
        ? {state: 'absent'}
        : {state: 'unknown', why: explainError(answer.code, answer.message)}
    }
    if (answer.status === 'uncertain') return {state: 'unknown', why: answer.message}
    return lookupOf(answer.data.refund_orders.find((r) => r.mch_refund_no === planned.mch_refund_no))
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
    for await (const round of tries(SEND_ROUNDS)) {
      const answer = await this.client.call('order_refund', params)
      if (answer.status === 'success') {
        const {gw_refund_no, refund_time} = answer.data
        return this.#done({status: 'refunded', planned, gw_refund_no, refund_time, resolved_by: 'answer'})
      }
      const duplicate = answer.status === 'refused' && DUPLICATE_CODES.includes(answer.code)
      if (answer.status === 'refused' && !duplicate) {
        const {code: err_code, message: err_msg, explanation} = answer
        return {status: 'failed', planned, err_code, err_msg, explanation, resolved_by: 'answer'}
      }
      // Unclear, or the number is taken: the gateway's record of this refund number decides.
      const found = await this.lookup(planned)
      const existed = duplicate && round === 1
      const failed = (err_code: string | undefined, why: string): RefundResult => ({
        status: 'failed',
        planned,
        err_code,
        explanation: explainError(err_code, why),
        resolved_by: 'refund_query',
      })
      if (found.state === 'unknown') {
        lastWhy = found.why
        break
      }
      if (found.state === 'absent') {
        if (duplicate) return failed(answer.code, `refund number ${planned.mch_refund_no} belongs to another order`)
        // The refund did not land; the same refund number may be sent again.
        lastWhy = answer.message
        continue
      }
      if (existed && found.refund_fee !== planned.refund_fee) {
        return failed(answer.code, `refund ${planned.mch_refund_no} exists with another amount (${found.refund_fee})`)
      }
      const settled = {planned, gw_refund_no: found.gw_refund_no, resolved_by: 'refund_query' as const}
      if (found.state === 'SUCCESS') {
        return this.#done({...settled, status: 'refunded', refund_time: found.refund_time, already_existed: existed})
      }
      if (found.state === 'PROCESSING') {
        const explanation = lookupError('TRADE_STATE_ERROR')!.action
        return this.#done({
          ...settled,
          status: 'processing',
          err_code: 'TRADE_STATE_ERROR',
          explanation,
          already_existed: existed,
        })
      }
      return {
        ...settled,
        status: 'failed',
        err_code: 'REFUND_FAILED',
        explanation: 'The channel reports the refund as failed.',
      }
    }
    return {
      status: 'unknown',
      planned,
      explanation: `The outcome could not be settled (${lastWhy}). Check it with: gw refund query ${planned.mch_order_no} --mch-refund-no ${planned.mch_refund_no}`,
      resolved_by: 'refund_query',
    }
  }

  #done(result: RefundResult): RefundResult {
    const {planned} = result
    this.history.recordRefund({
      appid: this.appid,
      mch_order_no: planned.mch_order_no,
      mch_refund_no: planned.mch_refund_no,
      refund_fee: planned.refund_fee,
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
      throw new GwError(
        'usage',
        `The gateway's refund query needs a refund number, and gw has made no refund of ${mchOrderNo} on this machine.`,
        {
          advice: `Give one: gw refund query ${mchOrderNo} --mch-refund-no R. The gateway then lists every refund of the order.`,
        },
      )
    }
    const amount = known.find((r) => r.mch_refund_no === number)?.refund_fee
    const answer = await this.client.call('refund_query', refundQuery(orderFacts(found), number, amount))
    if (answer.status === 'refused') throw refusalError(answer, `Refunds of ${mchOrderNo}`)
    if (answer.status === 'uncertain') {
      throw new GwError('unknown', `Refunds of ${mchOrderNo}: the gateway is not sure (${answer.message}).`, {
        advice: 'Query again in a minute.',
      })
    }
    return {found, refund: answer.data, mch_refund_no: number}
  }
}
