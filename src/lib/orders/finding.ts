/**
 * Finding an order: by any of its three numbers, on the channel given, the one the history
 * knows, or every channel at once; an answer counts only signed and about what was asked, and
 * two orders answering one number is said, never chosen between. Every other question about an
 * order (service.ts: close, wait for payment, refunds, reconcile, lists) starts here.
 */
import {GwError, type SuggestedFor, gwCommand, usageError} from '../errors.js'
import {type Answer, type Refusal, type Success, refusalError, unknownOutcome} from '../gateway/answers.js'
import type {GatewayClient} from '../gateway/client.js'
import {CHANNELS_BY_OPERATION, ORDER_NOT_FOUND, type OrderRecord} from '../gateway/protocol/index.js'
import {type RetryPolicy, linearBackoff, tries} from '../retry.js'
import type {GatewayHistory} from '../store/history.js'
import {
  type OrderReference,
  SEVERAL_ORDERS,
  WRONG_CHANNEL,
  describeField,
  describeReference,
  looksLikeGatewayNumber,
  referenceWords,
} from './reference.js'

/** The words of a command asking about an order by another of its numbers (a hint's command). */
type AskingAgain = (ref: OrderReference) => (string | number)[]

const orderQueryBy: AskingAgain = (ref) => ['order', 'query', ...referenceWords(ref)]

/** An order query that answers NOTSURE is asked again, a little later each time. */
const NOTSURE_RETRY: RetryPolicy = {tries: 4, delayMs: linearBackoff(300)}

export interface FoundOrder {
  record: OrderRecord
  channel: string
  /** How the channel was known: given, from the local history, or found by trying channels. */
  channel_source: 'given' | 'history' | 'discovered'
}

/** An order found by asking every channel (discover), and the number it answered to. */
type Discovered = FoundOrder & {ref: OrderReference}

/** Finds orders on one gateway: the client that asks it, the history that knows some of their channels. */
export class OrderFinder {
  /** The channels orders of this run were found on by discovering them: asked first (discover). */
  readonly #foundOn = new Set<string>()

  constructor(
    readonly client: GatewayClient,
    readonly history: GatewayHistory,
  ) {}

  /** One order query, with NOTSURE-style answers asked again a few times. */
  protected async query(ref: OrderReference, channel: string): Promise<Answer<'order_query'>> {
    let answer: Answer<'order_query'> | undefined
    for await (const _ of tries(NOTSURE_RETRY)) {
      answer = await this.client.call('order_query', {...ref, channel})
      if (answer.status !== 'uncertain') break
    }
    return answer!
  }

  /** The channel to ask: the given one, else the history's, else undefined (try them all). */
  protected knownChannel(
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
    const known = this.knownChannel(ref, channel)
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
    const answer = await this.query(ref, known.channel)
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
        this.query(ref, channel).then(
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
}

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
