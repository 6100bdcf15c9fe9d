/**
 * Refunds: money leaving the merchant. A refund is planned against what an order query
 * shows (amount, currency, channel, balance) and refused before sending when it cannot be
 * right. When an answer is lost or unsure, the gateway's record of the refund number
 * decides: a refund query where the channel has one; elsewhere the same number sent again,
 * which the gateway takes once (a duplicate-number refusal means it holds the refund, and
 * the order's state corroborates it). A refund is never sent under a new number blindly.
 */
import {GwError} from '../errors.js'
import type {GatewayClient} from '../gateway/client.js'
import {DUPLICATE_CODES, ORDER_NOT_FOUND, explainError, lookupError} from '../gateway/protocol/index.js'
import type {OrderHistory, RefundEntryStatus} from '../orders/history.js'
import {type OrderReference, newOrderNumber} from '../orders/reference.js'
import type {FoundOrder, OrderService} from '../orders/service.js'
import {type RetryPolicy, tries} from '../retry.js'
import {type RefundAsk, type RefundProblem, checkRefund} from './balance.js'
import {type Lookup, hasRefundQuery, lookupOf} from './lookup.js'
import {RefundQueries, refundQuery} from './query.js'

export interface RefundRequest extends RefundAsk {
  ref: OrderReference
  mchRefundNo?: string
  channel?: string
}

export interface PlannedRefund {
  ref: OrderReference
  mch_order_no: string
  gw_order_no?: string
  channel: string
  total_fee: number
  fee_type: string
  refund_fee: number
  mch_refund_no: string
  /** What was left of the order before this refund, when it is known. */
  balance?: number
  /**
   * The refund number was given (a flag, a file's column) and this machine never sent it for
   * this order: the gateway refusing it as a duplicate may mean another order's refund.
   */
  number_given?: boolean
}

export type RefundStatus = 'refunded' | 'processing' | 'failed' | 'unknown'

export interface RefundResult {
  status: RefundStatus
  planned: PlannedRefund
  gw_refund_no?: string
  refund_time?: string
  err_code?: string
  err_msg?: string
  /** Meaning and advice for people, for failed, processing and unknown refunds. */
  explanation?: string
  /** How the outcome was learned: the refund's answer, a refund query, or the same number sent again. */
  resolved_by: 'answer' | 'refund_query' | 'resend'
  /** The refund number was already taken before this send, for this same refund. */
  already_existed?: boolean
}

/** Rounds of "send, and when unclear look it up (or send the same number again)" before the outcome is called unknown. */
const SEND_ROUNDS: RetryPolicy = {tries: 3, delayMs: () => 0}

const STATUS_OF_LOOKUP = {SUCCESS: 'refunded', PROCESSING: 'processing', FAIL: 'failed'} as const

export class RefundService {
  readonly queries: RefundQueries

  constructor(
    readonly client: GatewayClient,
    readonly history: OrderHistory,
    readonly orders: OrderService,
  ) {
    this.queries = new RefundQueries(client, history, orders)
  }

  get appid(): string {
    return this.client.profile.appid
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
    const facts = {state: record.result, total: record.total_fee, currency: record.fee_type, channel: order.channel}
    const refundFee = checkRefund(facts, request, refunded)
    if (typeof refundFee !== 'number') return refundFee
    return {
      ref: request.ref,
      mch_order_no: record.mch_order_no ?? request.ref.mch_order_no ?? '',
      gw_order_no: record.gw_order_no,
      channel: order.channel,
      total_fee: record.total_fee,
      fee_type: record.fee_type,
      refund_fee: refundFee,
      mch_refund_no: request.mchRefundNo ?? newOrderNumber('RF'),
      balance: refunded === undefined ? undefined : record.total_fee - refunded,
      number_given: request.mchRefundNo !== undefined && !this.sentHere(record.mch_order_no ?? '', request.mchRefundNo),
    }
  }

  /** This machine's history holds a refund of this number for this order (sent by gw, whatever became of it). */
  sentHere(mchOrderNo: string, mchRefundNo: string): boolean {
    return this.history.refundsOf(this.appid, mchOrderNo).some((r) => r.mch_refund_no === mchRefundNo)
  }

  /** What the gateway's refund query says of this refund number. Never throws: what cannot be learned is `unknown`. */
  async lookup(planned: PlannedRefund): Promise<Lookup> {
    if (!hasRefundQuery(planned.channel))
      return {state: 'unknown', why: `the gateway has no refund query for ${planned.channel}`}
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

  /** Sends a planned refund and settles its outcome; `source` names the run in the history (a bulk file). */
  async send(planned: PlannedRefund, source = 'refund create'): Promise<RefundResult> {
    const result = await this.#send(planned)
    this.record(planned, result.status, {source, gw_refund_no: result.gw_refund_no})
    return result
  }

  /** Records a refund in the local history; an intent is written whole and synced before it returns. */
  record(planned: PlannedRefund, status: RefundEntryStatus, extra: {source: string; gw_refund_no?: string}): void {
    const {mch_order_no, gw_order_no, channel, mch_refund_no, refund_fee, fee_type} = planned
    const entry = {
      appid: this.appid,
      mch_order_no,
      gw_order_no,
      channel,
      mch_refund_no,
      refund_fee,
      fee_type,
      status,
      ...extra,
    }
    this.history.recordRefund(entry, {sync: status === 'intent' || extra.source === 'refund create'})
  }

  async #send(planned: PlannedRefund): Promise<RefundResult> {
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
    const canQuery = hasRefundQuery(planned.channel)
    let lastWhy = ''
    for await (const round of tries(SEND_ROUNDS)) {
      const answer = await this.client.call('order_refund', params)
      if (answer.status === 'success') {
        const {gw_refund_no, refund_time} = answer.data
        return {
          status: 'refunded',
          planned,
          gw_refund_no,
          refund_time,
          resolved_by: 'answer',
        }
      }
      const duplicate = answer.status === 'refused' && DUPLICATE_CODES.includes(answer.code)
      if (answer.status === 'refused' && !duplicate) {
        const {code: err_code, message: err_msg, explanation} = answer
        return {status: 'failed', planned, err_code, err_msg, explanation, resolved_by: 'answer'}
      }
      const existed = duplicate && round === 1
      if (!canQuery && existed && planned.number_given) {
        // Nothing tells whose refund the number is: the order's state would be another refund's word.
        const explanation =
          `Refund number ${planned.mch_refund_no} is already used at the gateway, by this order or another, and ` +
          `the gateway has no refund query for ${planned.channel} to tell which; gw never sent it for order ` +
          `${planned.mch_order_no}. Nothing was refunded by this run. Give another refund number, or none (gw makes one).`
        return {status: 'failed', planned, err_code: answer.code, explanation, resolved_by: 'answer'}
      }
      if (!canQuery) {
        // No refund query: the same number sent again settles it, and a duplicate means the gateway holds it.
        if (duplicate || (answer.status === 'uncertain' && answer.reason === 'duplicate_on_retry'))
          return this.#held(planned, existed)
        lastWhy = answer.message
        continue
      }
      // Unclear, or the number is taken: the gateway's record of this refund number decides.
      const found = await this.lookup(planned)
      const failed = (err_code: string | undefined, why: string): RefundResult => {
        return {
          status: 'failed',
          planned,
          err_code,
          explanation: explainError(err_code, why),
          resolved_by: 'refund_query',
        }
      }
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
      const status = STATUS_OF_LOOKUP[found.state]
      const {gw_refund_no, refund_time} = found
      const settled = {
        planned,
        status,
        gw_refund_no,
        refund_time,
        resolved_by: 'refund_query' as const,
        already_existed: existed,
      }
      if (status === 'refunded') return settled
      if (status === 'processing')
        return {...settled, err_code: 'TRADE_STATE_ERROR', explanation: lookupError('TRADE_STATE_ERROR')!.action}
      return {...settled, err_code: 'REFUND_FAILED', explanation: 'The channel reports the refund as failed.'}
    }
    const again = canQuery
      ? `gw looks refund ${planned.mch_refund_no} up before anything else`
      : `gw sends refund number ${planned.mch_refund_no} again, which the gateway takes once`
    const explanation = `The outcome could not be settled (${lastWhy}). Run the same command again later: ${again}.`
    return {status: 'unknown', planned, explanation, resolved_by: canQuery ? 'refund_query' : 'resend'}
  }

  /**
   * The gateway holds this refund number (it refused it as a duplicate) and has no refund
   * query for the channel: the order's state corroborates it. REFUND: a refund of the order
   * succeeded; otherwise the refund is held but shows no success yet.
   */
  async #held(planned: PlannedRefund, existed: boolean): Promise<RefundResult> {
    const held = {planned, resolved_by: 'resend' as const, already_existed: existed}
    let state: string
    try {
      state = (await this.orders.find(planned.ref, planned.channel)).record.result
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      const explanation = `The gateway holds refund number ${planned.mch_refund_no}, but the order could not be queried (${error.message}). Run the same command again later.`
      return {...held, status: 'unknown', explanation}
    }
    if (state === 'REFUND') return {...held, status: 'refunded'}
    const explanation = `The gateway holds refund number ${planned.mch_refund_no}, but the order is ${state}: no refund of it has succeeded yet. It is processing, or the number belongs to another refund; run the same command again later, or check the merchant platform.`
    return {...held, status: 'processing', explanation}
  }
}
