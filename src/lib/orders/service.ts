/**
 * Orders as support staff and developers use them: create (with the QR), find by any of
 * the three numbers on whichever channel knows it, close, and wait for payment. Knows
 * nothing of oclif; commands render what it returns.
 */
import {setTimeout as sleep} from 'node:timers/promises'

import {GwError, type Outcome, type SuggestedFor, gwCommand, usageError} from '../errors.js'
import {type Answer, type Refusal, type Success, refusalError, unknownOutcome} from '../gateway/answers.js'
import type {GatewayClient} from '../gateway/client.js'
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
import {type RetryPolicy, linearBackoff, tries} from '../retry.js'
import type {GatewayHistory} from '../store/history.js'
import {
  type OrderReference,
  SEVERAL_ORDERS,
  WRONG_CHANNEL,
  describeField,
  describeReference,
  looksLikeGatewayNumber,
  newOrderNumber,
  referenceWords,
} from './reference.js'

/** The words of a command asking about an order by another of its numbers (a hint's command). */
type AskingAgain = (ref: OrderReference) => (string | number)[]

const orderQueryBy: AskingAgain = (ref) => ['order', 'query', ...referenceWords(ref)]

/** An order query that answers NOTSURE is asked again, a little later each time. */
const NOTSURE_RETRY: RetryPolicy = {tries: 4, delayMs: linearBackoff(300)}

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

export interface FoundOrder {
  record: OrderRecord
  channel: string
  /** How the channel was known: given, from the local history, or found by trying channels. */
  channel_source: 'given' | 'history' | 'discovered'
}

/** An order found by asking every channel (discover), and the number it answered to. */
type Discovered = FoundOrder & {ref: OrderReference}

/** A closed order as the gateway shows it; `already_closed` when it was closed before this close. */
export type ClosedOrder = FoundOrder & {already_closed: boolean}

export class OrderService {
  /** The channels orders of this run were found on by discovering them: asked first (discover). */
  readonly #foundOn = new Set<string>()

  constructor(
    readonly client: GatewayClient,
    readonly history: GatewayHistory,
  ) {}

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
    const found = await this.#query({mch_order_no: mchOrderNo}, channel)
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

  /** One order query, with NOTSURE-style answers asked again a few times. */
  async #query(ref: OrderReference, channel: string): Promise<Answer<'order_query'>> {
    let answer: Answer<'order_query'> | undefined
    for await (const _ of tries(NOTSURE_RETRY)) {
      answer = await this.client.call('order_query', {...ref, channel})
      if (answer.status !== 'uncertain') break
    }
    return answer!
  }

  /** The channel to ask: the given one, else the history's, else undefined (try them all). */
  #knownChannel(
    ref: OrderReference,
    channel: string | undefined,
  ): {channel?: string; source: FoundOrder['channel_source']} {
    if (channel) return {channel, source: 'given'}
    const known = this.history.findOrder(ref)
    return known ? {channel: known.channel, source: 'history'} : {source: 'discovered'}
  }

  /**
   * The order `ref` names, as the gateway shows it now, on `channel` or the one the history knows,
   * else on every channel at once (discover). `asking` gives the words of the command that would
   * ask by another number (the hint for a gateway's or a channel's number given as the merchant's).
   */
  async find(ref: OrderReference, channel?: string, asking: AskingAgain = orderQueryBy): Promise<FoundOrder> {
    const known = this.#knownChannel(ref, channel)
    if (!known.channel) {
      const candidates = CHANNELS_BY_OPERATION.order_query
      const found = await this.discover([ref], candidates)
      if (found) return found
      throw await this.#nowhere(ref, candidates, asking)
    }
    if (!CHANNELS_BY_OPERATION.order_query.includes(known.channel)) {
      throw usageError(
        `Orders on ${known.channel} cannot be queried: the gateway's order query takes ${CHANNELS_BY_OPERATION.order_query.join(', ')}.`,
      )
    }
    const answer = await this.#query(ref, known.channel)
    if (answer.status === 'success') return this.#found(answer.data, known.channel, known.source)
    if (answer.status === 'refused' && answer.code === ORDER_NOT_FOUND && known.source === 'given')
      await this.#onAnotherChannel(ref, known.channel)
    if (answer.status === 'refused') throw refusalError(answer, `Order ${describeReference(ref)} on ${known.channel}`)
    throw unknownOutcome(answer, `Order ${describeReference(ref)}`, 'Query it again in a minute.')
  }

  /** An order a query showed: its state (and what else the answer holds) in the history. */
  #found(record: OrderRecord, channel: string, source: FoundOrder['channel_source']): FoundOrder {
    const {mch_order_no: number, result, openid, time_end, channel_order_no} = record
    if (number) this.history.noteOrderState(number, result, {by: 'query', openid, time_end, channel_order_no})
    return {record, channel, channel_source: source}
  }

  /**
   * The order one of `refs` names on one of `channels`, every pair asked at once (not one after
   * another: seven channels at 300 ms of latency took 2.2 s), and the one that answers taken. The
   * channels orders were found on earlier in this run are asked first, the others only if none of
   * them knows it: a batch (a file of orders on one channel, in a run that already asks many
   * orders at once) then asks one channel an order, not seven. See #discoverOn for what an answer
   * must be.
   */
  async discover(refs: readonly OrderReference[], channels: readonly string[]): Promise<Discovered | undefined> {
    const likely = channels.filter((channel) => this.#foundOn.has(channel))
    const others = channels.filter((channel) => !this.#foundOn.has(channel))
    const first = likely.length ? await this.#discoverOn(refs, likely) : undefined
    return first ?? (others.length ? this.#discoverOn(refs, others) : undefined)
  }

  /**
   * The order one of `refs` names on one of `channels`, every pair asked at once: an answer counts
   * only signed and about what was asked (the client's checks: its order numbers, appid and
   * channel); one that failed verification, to any pair, fails the lookup (exit 4): answers are
   * being mixed up. Undefined when every pair says "no such order". Two orders (or one on two
   * channels) answering is a problem said (exit 2), never a guess; with none, the gravest failure
   * met is the lookup's (an answer not sure, a refusal other than "no such order", no connection).
   */
  async #discoverOn(refs: readonly OrderReference[], channels: readonly string[]): Promise<Discovered | undefined> {
    const pairs = refs.flatMap((ref) => channels.map((channel) => ({ref, channel})))
    const asked = await Promise.all(
      pairs.map(({ref, channel}) =>
        this.#query(ref, channel).then(
          (answer) => ({ref, channel, answer}),
          (error: unknown) => {
            if (!(error instanceof GwError)) throw error
            return {ref, channel, error}
          },
        ),
      ),
    )
    const answered = asked.filter(
      (a): a is typeof a & {answer: Success<'order_query'>} => 'answer' in a && a.answer.status === 'success',
    )
    const orders = new Map<string, (typeof answered)[number]>()
    for (const one of answered) {
      const {gw_order_no, mch_order_no} = one.answer.data
      // One order answering to several of its numbers on its channel is one answer (the first number's).
      const key = JSON.stringify([gw_order_no ?? mch_order_no, one.channel])
      if (!orders.has(key)) orders.set(key, one)
    }
    // An answer that failed verification means answers are being mixed up: none is taken, not even one that verified.
    const failed = asked.find((a) => 'error' in a && a.error.kind === 'signature')
    if (failed && 'error' in failed) throw failed.error
    if (orders.size > 1) throw severalOrders([...orders.values()], this.client.profile)
    const [first] = orders.values()
    if (first) {
      this.#foundOn.add(first.channel)
      return {...this.#found(first.answer.data, first.channel, 'discovered'), ref: first.ref}
    }
    for (const status of ['uncertain', 'refused'] as const)
      for (const a of asked)
        if ('answer' in a && a.answer.status === status && !(status === 'refused' && a.answer.code === ORDER_NOT_FOUND))
          throw a.answer.status === 'uncertain'
            ? unknownOutcome(a.answer, `Order ${describeReference(a.ref)}`, 'Query it again in a minute.')
            : refusalError(a.answer as Refusal, `Order ${describeReference(a.ref)} on ${a.channel}`)
    const unreached = asked.find((a) => 'error' in a)
    if (unreached && 'error' in unreached) throw unreached.error
    return undefined
  }

  /**
   * No channel knows `ref`: for a merchant's number that looks like the gateway's or a channel's
   * (all digits, 16 or more), those are asked too, and what it is said with the command that names
   * it so (`asking`); else the order is said unknown.
   */
  async #nowhere(ref: OrderReference, candidates: readonly string[], asking: AskingAgain): Promise<GwError> {
    const number = ref.mch_order_no
    const unknown = new GwError(
      'refused',
      `No channel knows order ${describeReference(ref)} (tried ${candidates.join(', ')}).`,
      {
        advice: 'Check the order number and the profile (appid); give --channel if you know it.',
        details: {err_code: ORDER_NOT_FOUND},
      },
    )
    if (number === undefined || !looksLikeGatewayNumber(number)) return unknown
    const found = await this.discover([{gw_order_no: number}, {channel_order_no: number}], candidates)
    if (!found) return unknown
    const field = found.ref.gw_order_no ? 'gateway' : 'channel'
    const command = gwCommand(this.client.profile, ...asking(found.ref))
    return new GwError(
      'usage',
      `${number} is the ${field}'s order number of order ${found.record.mch_order_no ?? ''} (${found.channel}), not a merchant order number.`,
      {
        advice: `Give it with --${field === 'gateway' ? 'gw' : 'channel'}-order-no in place of the order, as in ${command}`,
      },
    )
  }

  /**
   * An order not found on the channel given: when the history or another channel knows it, the
   * channel is wrong (exit 2, naming the right one), not the order missing.
   */
  async #onAnotherChannel(ref: OrderReference, given: string): Promise<void> {
    const known = this.history.findOrder(ref)?.channel
    const others = known ? [known] : CHANNELS_BY_OPERATION.order_query.filter((c) => c !== given)
    if (others.includes(given)) return
    const found = await this.discover([ref], others).catch(() => undefined)
    if (!found) return
    const other = found.channel
    throw usageError(
      `Order ${describeReference(ref)} is not on channel ${given}: the gateway knows it on ${other}.`,
      `Give its channel as ${other} (--channel ${other}, or the row's channel column).`,
      {err_code: WRONG_CHANNEL, channel: other},
    )
  }

  /** Closes an unpaid order; the gateway's "already closed" is the same end, said as such. */
  async close(ref: OrderReference, channel?: string): Promise<ClosedOrder> {
    const known = this.#knownChannel(ref, channel)
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

/**
 * Two orders (or one order on two channels) answered for one number: the gateway knows an order by
 * a number on one channel, so this is said, with each, never chosen between.
 */
function severalOrders(
  answered: {ref: OrderReference; channel: string; answer: Success<'order_query'>}[],
  profile: SuggestedFor,
): GwError {
  const each = answered.map(({ref, channel, answer}) => {
    const {mch_order_no, gw_order_no} = answer.data
    return `order ${mch_order_no ?? ''} (gateway order ${gw_order_no ?? 'not given'}) on ${channel}, as its ${describeField(ref)}`
  })
  const [first] = answered
  const command = gwCommand(
    profile,
    'order',
    'query',
    first!.answer.data.mch_order_no ?? '',
    '--channel',
    first!.channel,
  )
  return new GwError(
    'usage',
    `The gateway answered for more than one order: ${each.join('; ')}. gw does not choose between them.`,
    {
      advice: `Name the order by its merchant number and channel, as in ${command}`,
      details: {err_code: SEVERAL_ORDERS},
    },
  )
}
