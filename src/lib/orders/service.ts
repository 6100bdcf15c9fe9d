/**
 * Orders as support staff and developers use them: create (with the QR), find by any of
 * the three numbers on whichever channel knows it (finding.ts), close, and wait for payment.
 * Knows nothing of oclif; commands render what it returns.
 */
import {setTimeout as sleep} from 'node:timers/promises'

import {GwError, type Outcome, gwCommand, usageError} from '../errors.js'
import {refusalError, unknownOutcome} from '../gateway/answers.js'
import {
  CHANNELS_BY_OPERATION,
  ORDER_NOT_FOUND,
  ALREADY_CLOSED,
  type OrderChannel,
  type OrderCreated,
  type OrderRecord,
  QR_LIFETIME,
  UNSETTLED_ORDER_STATES,
  isoTime,
} from '../gateway/protocol/index.js'
import {type FoundOrder, OrderFinder} from './finding.js'
import {type OrderReference, describeReference, newOrderNumber, referenceWords} from './reference.js'

/** An order to create: fields of the document's native_pay (section 4.1), and the QR lifetime in seconds. */
interface CreateOrderInput {
  channel: string
  total_fee: number
  fee_type: string
  mch_order_no?: string
  notify_url?: string
  product?: string
  attach?: string
  device_id?: string
  operator_id?: string
  img_type?: string
  expireSeconds?: number
  /** The command making it, for the order's story (`gw order create`, `gw sandbox seed`). */
  madeBy?: string
}

export interface CreatedOrder {
  order: OrderCreated
  channel: string
  total_fee: number
  fee_type: string
  /** When the QR code stops working; null when it never does. */
  expires_at: string | null
  /** The order was created but its answer was lost: no QR to show. */
  qr_lost: boolean
}

/** A closed order as the gateway shows it; `already_closed` when it was closed before this close. */
export type ClosedOrder = FoundOrder & {already_closed: boolean}

/** Orders on one gateway: found (finding.ts), created, closed, waited for. */
export class OrderService extends OrderFinder {
  get appid(): string {
    return this.client.profile.appid
  }

  async create({expireSeconds, madeBy = 'gw order create', ...fields}: CreateOrderInput): Promise<CreatedOrder> {
    const {channel, total_fee, fee_type} = fields
    if (!CHANNELS_BY_OPERATION.native_pay.includes(channel))
      throw usageError(
        `Channel "${channel}" cannot take orders.`,
        `Use one of: ${CHANNELS_BY_OPERATION.native_pay.join(', ')}.`,
      )
    const lifetime = QR_LIFETIME[channel as OrderChannel]
    if (expireSeconds !== undefined && !lifetime.parameter) {
      throw usageError(`The QR lifetime of ${channel} cannot be set.`, 'Only truemoney and scb_qrcard take --expire.')
    }
    const mchOrderNo = fields.mch_order_no ?? newOrderNumber()
    const lifetimeParam = lifetime.parameter && expireSeconds !== undefined ? {[lifetime.parameter]: expireSeconds} : {}
    const params = {...fields, mch_order_no: mchOrderNo, ...lifetimeParam}
    const seconds = expireSeconds ?? lifetime.defaultSeconds
    const expiresAt = seconds === undefined ? null : isoTime(new Date(Date.now() + seconds * 1000))
    const answer = await this.client.call('native_pay', params)
    const result = (order: OrderCreated, qrLost: boolean): CreatedOrder => {
      const {gw_order_no} = order
      const made = {appid: this.appid, mch_order_no: mchOrderNo, gw_order_no, channel, total_fee, fee_type}
      this.history.recordOrder({...made, state: 'NOTPAY'})
      const {name: profile, live} = this.client.profile
      const notify_url = fields.notify_url
      this.history.noteEvent(mchOrderNo, 'made', {
        profile,
        live,
        command: madeBy,
        notify_url,
        qr_lost: qrLost,
      })
      return {order, channel, total_fee, fee_type, expires_at: expiresAt, qr_lost: qrLost}
    }
    if (answer.status === 'success') return result(answer.data, false)
    if (answer.status === 'refused') throw refusalError(answer, `Order ${mchOrderNo} was not created`)
    // The answer was lost or unsure: the order is what a query says it is.
    const found = await this.query({mch_order_no: mchOrderNo}, channel)
    if (found.status === 'refused' && found.code === ORDER_NOT_FOUND) {
      throw new GwError('transport', `Order ${mchOrderNo} was not created (${answer.message}).`, {
        advice: 'It is safe to run the same command again.',
      })
    }
    if (found.status !== 'success')
      throw unknownOutcome(
        answer,
        `Order ${mchOrderNo}`,
        `Check it later: ${gwCommand(this.client.profile, 'order', 'query', mchOrderNo, '--channel', channel)}`,
      )
    const record = found.data
    if (record.total_fee !== total_fee || record.fee_type !== fee_type) {
      throw new GwError(
        'refused',
        `Order number ${mchOrderNo} is already used by another order (${record.total_fee} ${record.fee_type}).`,
        {advice: 'Use a new merchant order number.', details: {err_code: 'GW_DUPLICATED_ORDERNO'}},
      )
    }
    return result(
      {result: 'SUCCESS', mch_order_no: mchOrderNo, gw_order_no: record.gw_order_no ?? '', appid: record.appid},
      true,
    )
  }

  /**
   * How a created order's QR code reached the payer's side, for the order's story: drawn (on the
   * terminal, stdout or stderr) or why not, saved to a file, and the code_url it encodes.
   */
  noteQr(
    created: CreatedOrder,
    qr: {drawn?: 'terminal' | 'stdout' | 'stderr'; not_drawn?: string; file?: string},
  ): void {
    this.history.noteEvent(created.order.mch_order_no, 'qr', {...qr, code_url: created.order.code_url})
  }

  /** Closes an unpaid order; the gateway's "already closed" is the same end, said as such. */
  async close(ref: OrderReference, channel?: string): Promise<ClosedOrder> {
    const known = this.knownChannel(ref, channel)
    const closeChannel = known.channel ?? (await this.find(ref)).channel
    // A close answer names only mch_order_no: bound to the one the history knows when asked by another number.
    const expected = {mch_order_no: this.history.findOrder(ref)?.mch_order_no}
    const answer = await this.client.call('order_close', {...ref, channel: closeChannel}, expected)
    const already_closed = answer.status === 'refused' && answer.code === ALREADY_CLOSED
    if (answer.status === 'refused' && !already_closed)
      throw refusalError(answer, `Order ${describeReference(ref)} was not closed`)
    if (!CHANNELS_BY_OPERATION.order_query.includes(closeChannel)) {
      // No order query on this channel: the close's own answer is all the gateway will say.
      if (answer.status === 'uncertain')
        throw unknownOutcome(
          answer,
          `Closing order ${describeReference(ref)}`,
          `${closeChannel} has no order query: run the same close again (a closed order answers ${ALREADY_CLOSED}).`,
        )
      this.#noteState(ref, 'CLOSED', already_closed)
      const made = this.history.findOrder(ref)
      const said = answer.status === 'success' ? answer.data : undefined
      const record: OrderRecord = {
        result: 'CLOSED',
        appid: said?.appid ?? this.appid,
        mch_order_no: said?.mch_order_no ?? made?.mch_order_no ?? ref.mch_order_no,
        gw_order_no: made?.gw_order_no ?? ref.gw_order_no,
        channel_order_no: ref.channel_order_no,
        total_fee: made?.total_fee,
        fee_type: made?.fee_type,
      }
      return {record, channel: closeChannel, channel_source: known.source, already_closed}
    }
    // The order's own state decides: a close answer carries too little to prove it is this order's.
    const found = await this.find(ref, closeChannel)
    if (found.record.result !== 'CLOSED') {
      const advice = `The order is ${found.record.result}; check again: ${gwCommand(this.client.profile, 'order', 'query', ...referenceWords(ref))}`
      if (answer.status === 'uncertain') throw unknownOutcome(answer, `Closing order ${describeReference(ref)}`, advice)
      throw new GwError(
        'unknown',
        `Order ${describeReference(ref)}: the close was answered ${already_closed ? ALREADY_CLOSED : 'SUCCESS'}, but an order query shows it ${found.record.result}, not CLOSED (the answer may be another order's).`,
        {advice},
      )
    }
    const mchOrderNo = found.record.mch_order_no
    if (mchOrderNo) this.history.noteEvent(mchOrderNo, 'closed', {already_closed, profile: this.client.profile.name})
    return {...found, channel_source: known.source, already_closed}
  }

  /** An order closed without a query to show it (its channel has none): its state and the close, in the history. */
  #noteState(ref: OrderReference, state: 'CLOSED', alreadyClosed: boolean): void {
    const mchOrderNo = ref.mch_order_no ?? this.history.findOrder(ref)?.mch_order_no
    if (!mchOrderNo) return
    this.history.noteOrderState(mchOrderNo, state, {by: 'close'})
    const detail = {already_closed: alreadyClosed, profile: this.client.profile.name, without_query: true}
    this.history.noteEvent(mchOrderNo, 'closed', detail)
  }

  /**
   * Polls a created order until it is paid, failed or closed, or the wait ends: when its QR
   * code expires, or after `timeoutSeconds` (15 minutes when not given), whichever is first.
   */
  async waitForPayment(
    created: CreatedOrder,
    timeoutSeconds: number | undefined,
    onPoll: (state: string, deadline: number) => void,
    intervalMs = 1000,
  ): Promise<FoundOrder | undefined> {
    const expires = created.expires_at ? Date.parse(created.expires_at) : Number.POSITIVE_INFINITY
    const deadline = Math.min(expires, Date.now() + (timeoutSeconds ?? 15 * 60) * 1000)
    for (;;) {
      const found = await this.find({mch_order_no: created.order.mch_order_no}, created.channel)
      onPoll(found.record.result, deadline)
      if (!UNSETTLED_ORDER_STATES.includes(found.record.result)) return found
      if (Date.now() + intervalMs > deadline) return undefined
      await sleep(intervalMs)
    }
  }
}

/** How a wait for payment ends: paid (done), not paid in time (unknown: it may still be), or another end (refused). */
export const waitEnded = (found: FoundOrder | undefined): Outcome =>
  !found ? 'unknown' : found.record.result === 'SUCCESS' ? 'done' : 'refused'
