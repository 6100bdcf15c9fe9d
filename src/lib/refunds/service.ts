/**
 * Refunds: money leaving the merchant, as one use case over two ports (ports.ts): the gateway and
 * this machine's records of it. A refund is planned against what an order query shows (amount,
 * currency, channel, balance) and refused before sending when it cannot be right. When an answer
 * is lost or unsure, the gateway's record of the refund number decides: a refund query where the
 * channel has one; elsewhere the same number sent again, which the gateway takes once (a
 * duplicate-number refusal means it holds the refund, and the order's state corroborates it). A
 * refund is never sent under a new number blindly. What each answer makes of a refund is
 * decisions.ts's; this service asks, sends and records.
 */
import {GwError} from '../errors.js'
import type {GatewayProfile} from '../gateway/client.js'
import {ORDER_NOT_FOUND, type RefundOrder, explainError, hasRefundQuery} from '../gateway/protocol/index.js'
import {LocalStateError} from '../io/database-errors.js'
import type {Recorded} from '../store/durability.js'
import type {RefundEntry, RefundEntryStatus} from '../store/records.js'
import {type OrderReference, newOrderNumber} from '../orders/reference.js'
import type {FoundOrder} from '../orders/finding.js'
import {type RetryPolicy, tries} from '../retry.js'
import {checkRefund} from './balance.js'
import {
  type HeldOrder,
  afterAnswer,
  afterLookup,
  delayedResult,
  heldResult,
  howSettled,
  lookupOf,
  notMadeResult,
  notMadeWhy,
  numberTakenResult,
  refusedResult,
  settledResult,
  unsettledResult,
  unverifiedResult,
} from './decisions.js'
import {isSeenRefunded, numberReused} from './evidence.js'
import {OrderRefunds, refundQuery} from './order-refunds.js'
import type {RefundGateway, RefundParams, RefundRecords} from './ports.js'
import type {Lookup, PlannedRefund, RefundProblem, RefundRequest, RefundResult} from './refund.js'

/** What the history records of a refund: one known from a bulk journal may lack its channel and its order's total. */
type HistoryFacts = Pick<PlannedRefund, 'mch_order_no' | 'gw_order_no' | 'mch_refund_no' | 'refund_fee' | 'fee_type'> &
  Partial<Pick<PlannedRefund, 'channel' | 'total_fee'>>

/**
 * A refund's facts as the history records them. An order total of 0 is one the order query did
 * not give (plannedFrom): not recorded, so the history fills it from the order where it knows it.
 */
function historyFacts(planned: HistoryFacts) {
  const {mch_order_no, gw_order_no, channel, mch_refund_no, refund_fee, fee_type, total_fee} = planned
  return {mch_order_no, gw_order_no, channel, mch_refund_no, refund_fee, fee_type, total_fee: total_fee || undefined}
}

/** Rounds of "send, and when unclear look it up (or send the same number again)" before the outcome is called unknown. */
const SEND_ROUNDS: RetryPolicy = {tries: 3, delayMs: () => 0}

/** Why a refund sent before a stop (Ctrl-C, SIGTERM, a hang-up) is unknown: nothing more was asked. */
const STOPPED = 'gw was stopped before the outcome was settled'

export class RefundService {
  readonly #orderRefunds: OrderRefunds

  /** `gateway` and `records`: the ports the service asks through, and a use case beside it asks too (a bulk run's claims). */
  constructor(
    readonly gateway: RefundGateway,
    readonly records: RefundRecords,
  ) {
    this.#orderRefunds = new OrderRefunds(gateway, records)
  }

  /** The profile refunds are made for: its appid, and its name in the commands gw suggests. */
  get profile(): GatewayProfile {
    return this.gateway.profile
  }

  get appid(): string {
    return this.gateway.profile.appid
  }

  /** The order, by any of its numbers (`asking`: the command that asks again, for the advice). */
  order(ref: OrderReference, channel?: string, asking?: (ref: OrderReference) => (string | number)[]) {
    return this.gateway.order(ref, channel, asking)
  }

  /** Every refund of the order, as the gateway's refund query lists them (order-refunds.ts). */
  refundsOf(found: FoundOrder, candidates: string[] = []): Promise<RefundOrder[] | undefined> {
    return this.#orderRefunds.refundsOf(found, candidates)
  }

  /** The refunds this machine made of an order whose channel has no refund query: its word, not the gateway's. */
  madeHere(found: FoundOrder): RefundEntry[] {
    return this.#orderRefunds.madeHere(found)
  }

  /** The refund query of `gw refund query` (order-refunds.ts). */
  query(found: FoundOrder, mchRefundNo?: string) {
    return this.#orderRefunds.query(found, mchRefundNo)
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
    const reused = request.mchRefundNo && this.numberReused(record.mch_order_no ?? '', request.mchRefundNo, refundFee)
    if (reused) return reused
    return {
      ref: request.ref,
      mch_order_no: record.mch_order_no ?? request.ref.mch_order_no ?? '',
      gw_order_no: record.gw_order_no,
      channel: order.channel,
      total_fee: record.total_fee,
      fee_type: record.fee_type,
      refund_fee: refundFee,
      mch_refund_no: request.mchRefundNo ?? newOrderNumber('RF'),
      balance_fee: refunded === undefined ? undefined : record.total_fee - refunded,
      number_given: request.mchRefundNo !== undefined && !this.sentHere(record.mch_order_no ?? '', request.mchRefundNo),
    }
  }

  /**
   * A refund number this machine sent for another order or another amount is never sent again:
   * the gateway would refuse it as a duplicate, and a channel without a refund query could not
   * tell the two refunds apart.
   */
  numberReused(mchOrderNo: string, mchRefundNo: string, refundFee: number): RefundProblem | undefined {
    return numberReused(this.records.byNumber(mchRefundNo), mchOrderNo, refundFee)
  }

  /** This machine's history holds a refund of this number for this order (sent by gw, whatever became of it). */
  sentHere(mchOrderNo: string, mchRefundNo: string): boolean {
    return this.records.ofOrder(mchOrderNo).some((r) => r.mch_refund_no === mchRefundNo)
  }

  /** What the gateway's refund query says of this refund number. Never throws: what cannot be learned is `unknown`. */
  async lookup(planned: PlannedRefund, signal?: AbortSignal): Promise<Lookup> {
    if (!hasRefundQuery(planned.channel))
      return {state: 'unknown', why: `the gateway has no refund query for ${planned.channel}`}
    if (signal?.aborted) return {state: 'unknown', why: 'gw was stopped before it asked'}
    let answer
    try {
      const query = refundQuery(planned, planned.mch_refund_no, planned.refund_fee)
      answer = await this.gateway.lookup(query, {gw_order_no: planned.gw_order_no}, signal)
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
    const entry = answer.data.refund_orders.find((r) => r.mch_refund_no === planned.mch_refund_no)
    return lookupOf(entry, planned.refund_fee)
  }

  /**
   * Sends a planned refund and settles its outcome: the one door every refund goes through once
   * its request may leave. gw's own check of the parameters comes first (nothing leaves when it
   * fails). From then on no failure of this machine (the history held or full, an exception)
   * becomes "failed" or "nothing was sent": the outcome is what the gateway showed, or unknown
   * (exit 5, the next run settles it); a client's transport error still means no request
   * arrived. The outcome is recorded where it can be (see `recordOutcome`), and the result says
   * when that was not the history. `source` names the run in the history (a bulk file);
   * `signal` stops it starting new requests (a retry, a lookup): only those already sent are awaited.
   */
  async send(planned: PlannedRefund, source = 'refund create', signal?: AbortSignal): Promise<RefundResult> {
    const params = refundParams(planned)
    this.gateway.check(params)
    let result: RefundResult
    try {
      result = await this.#send(planned, params, signal)
    } catch (error) {
      if (error instanceof GwError && error.kind === 'transport') throw error
      const explanation = `Refund ${planned.mch_refund_no} was sent, then this machine failed before its outcome was known (${(error as Error).message}): it may have been made. Run the same command again: ${howSettled(planned)}, never under a new number.`
      result = {
        status: 'unknown',
        planned,
        explanation,
        resolved_by: hasRefundQuery(planned.channel) ? 'refund_query' : 'resend',
      }
    }
    // Credited to this run only when its own request made the refund (not found made already).
    const credit = !result.already_existed && result.resolved_by !== 'history'
    const recorded = this.recordOutcome(planned, result.status, {source, gw_refund_no: result.gw_refund_no}, credit)
    return recorded.where === 'history' ? result : {...result, not_recorded: recorded}
  }

  /**
   * A refund about to be sent: its intent synced to the history before this returns. Throws
   * (LocalStateError) when the history cannot take it: then the refund is not sent.
   */
  recordIntent(planned: PlannedRefund, source: string): void {
    this.records.intent({...historyFacts(planned), source})
  }

  /**
   * Records what became of a refund in the local history. Never throws (see GatewayHistory's
   * recordOutcome): says where the record went. A single refund's is synced before this
   * returns; a bulk run's waits to be committed with others. A refund known from a bulk journal
   * may lack its channel, and carries when it was sent.
   */
  recordOutcome(
    planned: HistoryFacts,
    status: RefundEntryStatus,
    extra: {source: string; gw_refund_no?: string; at?: string},
    credit = true,
  ): Recorded {
    const entry = {...historyFacts(planned), status, ...extra}
    return this.records.outcome(entry, {sync: extra.source === 'refund create', credit})
  }

  async #send(planned: PlannedRefund, params: RefundParams, signal?: AbortSignal): Promise<RefundResult> {
    const canQuery = hasRefundQuery(planned.channel)
    let lastWhy = ''
    for await (const round of tries(SEND_ROUNDS)) {
      // Stopped (Ctrl-C, SIGTERM, a hang-up): no new request; what was sent is settled by the next run.
      if (signal?.aborted) {
        lastWhy = STOPPED
        break
      }
      let answer
      try {
        answer = await this.gateway.refund(params, {gw_order_no: planned.gw_order_no}, signal)
      } catch (error) {
        // No connection now, after an earlier round that may have arrived: not "nothing was sent".
        if (round > 1 && error instanceof GwError && error.kind === 'transport') {
          lastWhy = error.message
          break
        }
        throw error
      }
      if (answer.status === 'success') {
        // The client has checked that the answer is about this refund: its number and amount.
        const {gw_refund_no, refund_time} = answer.data
        return {status: 'refunded', planned, gw_refund_no, refund_time, resolved_by: 'answer'}
      }
      const decided = afterAnswer(answer, {canQuery, round, numberGiven: Boolean(planned.number_given)})
      switch (decided.next) {
        case 'refused': {
          const refusal = answer as Extract<typeof answer, {status: 'refused'}>
          return refusedResult(planned, refusal, canQuery ? await this.lookup(planned, signal) : undefined)
        }
        case 'unverified':
          return unverifiedResult(planned, answer.message)
        case 'processing':
          return delayedResult(planned)
        case 'number_taken':
          return numberTakenResult(planned, answer.code!)
        case 'held': {
          const order = await this.#orderHolding(planned, signal)
          const seen = 'state' in order && order.state === 'REFUND' ? this.seenRefunded(planned) : undefined
          return heldResult(planned, decided.existed, order, seen)
        }
        case 'send_again':
          lastWhy = answer.message
          continue
      }
      // Stopped: no lookup leaves; the next run settles it.
      if (signal?.aborted) {
        lastWhy = STOPPED
        break
      }
      // Unclear, or the number is taken: the gateway's record of this refund number decides.
      const found = await this.lookup(planned, signal)
      const looked = afterLookup(found, decided)
      if (looked.next === 'other_amount' || looked.next === 'other_order')
        return notMadeResult(planned, answer.code, notMadeWhy(planned, looked, found))
      if (looked.next === 'unverified') return unverifiedResult(planned, answer.message)
      if (looked.next === 'unknown') {
        lastWhy = (found as Extract<Lookup, {state: 'unknown'}>).why
        break
      }
      if (looked.next === 'send_again') {
        // The refund did not land; the same refund number may be sent again.
        lastWhy = answer.message
        continue
      }
      return settledResult(planned, found as Extract<Lookup, {state: typeof looked.state}>, decided.existed)
    }
    return unsettledResult(planned, lastWhy)
  }

  /** What the order of a refund whose number the gateway holds shows (no refund query: its state is the gateway's word). */
  async #orderHolding(planned: PlannedRefund, signal?: AbortSignal): Promise<HeldOrder> {
    if (signal?.aborted) return {stopped: true}
    try {
      return {state: (await this.gateway.order(planned.ref, planned.channel)).record.result}
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      return {error: error.message}
    }
  }

  /**
   * The history's record of this refund (number, order, amount) as refunded: the gateway showed it
   * to a run of this machine. Evidence only: the caller holds it against the order's state.
   */
  seenRefunded(planned: Pick<PlannedRefund, 'mch_refund_no' | 'mch_order_no' | 'refund_fee'>): RefundEntry | undefined {
    try {
      const entry = this.records.byNumber(planned.mch_refund_no)
      return isSeenRefunded(entry, planned) ? entry : undefined
    } catch (error) {
      // The history held by another program: nothing learned from it.
      if (error instanceof LocalStateError) return undefined
      throw error
    }
  }
}

/** The parameters of a refund request, as sent (every attempt and resend the same). */
function refundParams(planned: PlannedRefund): RefundParams {
  return {
    mch_order_no: planned.ref.mch_order_no ?? planned.mch_order_no,
    gw_order_no: planned.ref.gw_order_no,
    channel_order_no: planned.ref.channel_order_no,
    channel: planned.channel,
    total_fee: planned.total_fee,
    fee_type: planned.fee_type,
    mch_refund_no: planned.mch_refund_no,
    refund_fee: planned.refund_fee,
  }
}
