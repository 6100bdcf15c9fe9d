/**
 * Orders as support staff and developers use them: create (with the QR), find by any of
 * the three numbers on whichever channel knows it, close, and wait for payment. Knows
 * nothing of oclif; commands render what it returns.
 */
import {randomBytes} from 'node:crypto'

import type {Answer, GatewayClient, Refusal, Uncertain} from '../gateway/client.js'
import {GwError, usageError} from '../errors.js'
import type {OrderHistory, OrderReference} from './history.js'
import {
  CHANNELS_BY_OPERATION,
  type OrderChannel,
  type OrderCreated,
  type OrderRecord,
  QR_LIFETIME,
  UNSETTLED_ORDER_STATES,
  compactTimestamp,
} from '../gateway/protocol/index.js'

export type {OrderReference}

/** A merchant order number gw makes when none is given: GW + time + 6 random characters. */
export function newOrderNumber(prefix = 'GW'): string {
  return `${prefix}${compactTimestamp()}${randomBytes(4).toString('hex').slice(0, 6).toUpperCase()}`
}

export function describeReference(ref: OrderReference): string {
  if (ref.mch_order_no) return ref.mch_order_no
  if (ref.gw_order_no) return `gw_order_no ${ref.gw_order_no}`
  return `channel_order_no ${ref.channel_order_no}`
}

/** The error a refusal ends in: exit 1, the catalogue's meaning and advice. */
export function refusalError(refusal: Refusal, what: string): GwError {
  return new GwError('refused', `${what}: ${refusal.explanation}`, {
    details: {err_code: refusal.code, err_msg: refusal.message},
  })
}

export function unknownOutcome(uncertain: Uncertain, what: string, advice: string): GwError {
  return new GwError(
    'unknown',
    `${what}: the outcome is not known (${uncertain.code ? `${uncertain.code}: ` : ''}${uncertain.message}).`,
    {advice, details: {reason: uncertain.reason}},
  )
}

export interface CreateOrderInput {
  channel: string
  totalFee: number
  feeType: string
  mchOrderNo?: string
  notifyUrl?: string
  product?: string
  attach?: string
  deviceId?: string
  operatorId?: string
  imgType?: 'png' | 'svg'
  expireSeconds?: number
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

export interface FoundOrder {
  record: OrderRecord
  channel: string
  /** How the channel was known: given, from the local history, or found by trying channels. */
  channel_source: 'given' | 'history' | 'discovered'
}

const NOT_FOUND = 'GW_INVALID_ORDER_NO'

export class OrderService {
  constructor(
    readonly client: GatewayClient,
    readonly history: OrderHistory,
  ) {}

  get appid(): string {
    return this.client.profile.appid
  }

  async create(input: CreateOrderInput): Promise<CreatedOrder> {
    const channel = input.channel
    if (!CHANNELS_BY_OPERATION.native_pay.includes(channel))
      throw usageError(
        `Channel "${channel}" cannot take orders.`,
        `Use one of: ${CHANNELS_BY_OPERATION.native_pay.join(', ')}.`,
      )
    const lifetime = QR_LIFETIME[channel as OrderChannel]
    if (input.expireSeconds !== undefined && !lifetime.parameter) {
      throw usageError(`The QR lifetime of ${channel} cannot be set.`, 'Only truemoney and scb_qrcard take --expire.')
    }
    const mchOrderNo = input.mchOrderNo ?? newOrderNumber()
    const params = {
      channel,
      mch_order_no: mchOrderNo,
      total_fee: input.totalFee,
      fee_type: input.feeType,
      notify_url: input.notifyUrl,
      product: input.product,
      attach: input.attach,
      device_id: input.deviceId,
      operator_id: input.operatorId,
      img_type: input.imgType,
      ...(lifetime.parameter && input.expireSeconds !== undefined ? {[lifetime.parameter]: input.expireSeconds} : {}),
    }
    const seconds = input.expireSeconds ?? lifetime.defaultSeconds
    const expiresAt = seconds === undefined ? null : new Date(Date.now() + seconds * 1000).toISOString()
    const answer = await this.client.call('native_pay', params)
    const result = (order: OrderCreated, qrLost: boolean): CreatedOrder => {
      this.history.recordOrder({
        appid: this.appid,
        mch_order_no: mchOrderNo,
        gw_order_no: order.gw_order_no,
        channel,
        total_fee: input.totalFee,
        fee_type: input.feeType,
      })
      return {
        order,
        channel,
        total_fee: input.totalFee,
        fee_type: input.feeType,
        expires_at: expiresAt,
        qr_lost: qrLost,
      }
    }
    if (answer.status === 'success') return result(answer.data, false)
    if (answer.status === 'refused') throw refusalError(answer, `Order ${mchOrderNo} was not created`)
    // The answer was lost or unsure: the order is what a query says it is.
    const found = await this.#query({mch_order_no: mchOrderNo}, channel)
    if (found.status === 'refused' && found.code === NOT_FOUND) {
      throw new GwError('transport', `Order ${mchOrderNo} was not created (${answer.message}).`, {
        advice: 'It is safe to run the same command again.',
      })
    }
    if (found.status !== 'success')
      throw unknownOutcome(
        answer,
        `Order ${mchOrderNo}`,
        `Check it later: gw order query ${mchOrderNo} --channel ${channel}`,
      )
    const record = found.data
    if (record.total_fee !== input.totalFee || record.fee_type !== input.feeType) {
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

  /** One order query, with NOTSURE-style answers asked again a few times. */
  async #query(ref: OrderReference, channel: string): Promise<Answer<'order_query'>> {
    let answer = await this.client.call('order_query', {...ref, channel})
    for (let retry = 1; answer.status === 'uncertain' && retry <= 3; retry++) {
      await new Promise((resolve) => setTimeout(resolve, 300 * retry))
      answer = await this.client.call('order_query', {...ref, channel})
    }
    return answer
  }

  /** The channel to ask: the given one, else the history's, else undefined (try them all). */
  #knownChannel(
    ref: OrderReference,
    channel: string | undefined,
  ): {channel?: string; source: FoundOrder['channel_source']} {
    if (channel) return {channel, source: 'given'}
    const known = this.history.findOrder(this.appid, ref)
    return known ? {channel: known.channel, source: 'history'} : {source: 'discovered'}
  }

  async find(ref: OrderReference, channel?: string): Promise<FoundOrder> {
    const known = this.#knownChannel(ref, channel)
    const candidates = known.channel ? [known.channel] : CHANNELS_BY_OPERATION.order_query
    if (known.channel && !CHANNELS_BY_OPERATION.order_query.includes(known.channel)) {
      throw usageError(
        `Orders on ${known.channel} cannot be queried: the gateway's order query takes ${CHANNELS_BY_OPERATION.order_query.join(', ')}.`,
      )
    }
    for (const candidate of candidates) {
      const answer = await this.#query(ref, candidate)
      if (answer.status === 'success') return {record: answer.data, channel: candidate, channel_source: known.source}
      if (answer.status === 'refused' && answer.code === NOT_FOUND && known.source === 'discovered') continue
      if (answer.status === 'refused')
        throw refusalError(answer, `Order ${describeReference(ref)}${known.channel ? ` on ${known.channel}` : ''}`)
      throw unknownOutcome(answer, `Order ${describeReference(ref)}`, 'Query it again in a minute.')
    }
    throw new GwError('refused', `No channel knows order ${describeReference(ref)} (tried ${candidates.join(', ')}).`, {
      advice: 'Check the order number and the profile (appid); give --channel if you know it.',
      details: {err_code: NOT_FOUND},
    })
  }

  async close(ref: OrderReference, channel?: string): Promise<FoundOrder> {
    const known = this.#knownChannel(ref, channel)
    const closeChannel = known.channel ?? (await this.find(ref)).channel
    const answer = await this.client.call('order_close', {...ref, channel: closeChannel})
    if (answer.status === 'refused') throw refusalError(answer, `Order ${describeReference(ref)} was not closed`)
    const found = await this.find(ref, closeChannel)
    if (answer.status === 'uncertain' && found.record.result !== 'CLOSED') {
      throw unknownOutcome(
        answer,
        `Closing order ${describeReference(ref)}`,
        `The order is ${found.record.result}; check again: gw order query ${describeReference(ref)}`,
      )
    }
    return {...found, channel_source: known.source}
  }

  /** Polls until the order is paid, failed or closed, or the deadline passes. */
  async waitForPayment(
    ref: OrderReference,
    channel: string,
    deadline: number,
    onPoll: (state: string) => void,
    intervalMs = 1000,
  ): Promise<FoundOrder | undefined> {
    for (;;) {
      const found = await this.find(ref, channel)
      onPoll(found.record.result)
      if (!UNSETTLED_ORDER_STATES.includes(found.record.result)) return found
      if (Date.now() + intervalMs > deadline) return undefined
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
    }
  }
}
