/**
 * One order's story (`gw order timeline`): everything this machine knows of it, in time order,
 * from the history (made, by which profile and command; its QR code drawn or saved, or why not;
 * queries, those in a row showing one state told once; each notification a listener verified or
 * rejected; each refund with its number, amount, outcome, who made it and the gateway's refund
 * number that proves it; closed), and with `refresh` what the gateway says now (the order's state,
 * when it was paid and by whom, its refunds, those made elsewhere too); then what it adds up to,
 * counting as refunded only what the gateway showed. Every time on one zone's clock. Services
 * only: the view is render/timeline.
 */
import {GwError, type SuggestedFor, gwCommand} from '../errors.js'
import {
  decimalOf,
  hasRefundQuery,
  isoTimeIn,
  localZone,
  normalizeRefundState,
  PAID_ORDER_STATES,
  type RefundOrder,
} from '../gateway/protocol/index.js'
import type {GatewayHistory} from '../store/history.js'
import type {EventEntry, OrderEntry, RefundEntry} from '../store/records.js'
import {type FoundByNumber, type NumberKind, findNamed, knownNumber} from './any-number.js'
import {type OrderReference, describeReference, referenceWords} from './reference.js'
import type {FoundOrder} from './finding.js'
import type {OrderService} from './service.js'
import type {TimelineEntry} from './timeline-entry.js'
import {type Totals, totalsOf} from './timeline-totals.js'

export interface Timeline {
  mch_order_no: string
  gw_order_no?: string
  /** The channel's number of the order (a wallet's receipt shows it), as a query showed it. */
  channel_order_no?: string
  channel?: string
  total_fee?: number
  total_amount?: string
  fee_type?: string
  /** The state last known, and when it was learned (with refresh: the gateway's, now). */
  state?: string
  state_at?: string
  openid?: string
  /** This machine made the order (else it knows it from a query, a notification or a refund). */
  made_here: boolean
  refreshed: boolean
  /** What the number given was of the order, when not its merchant number (its channel's, a refund's...). */
  found_by?: NumberKind
  /** The zone every time is written in (its clock and offset): this machine's, the gateway's or one named. */
  zone: string
  entries: TimelineEntry[]
  /** What the story adds up to, once the order took money (its total known). */
  totals?: Totals
}

/** The facts an event carries, as recorded (the history's JSON). */
const detailOf = (event: EventEntry) => event.detail as Record<string, string | number | boolean | undefined>

function fromEvent(event: EventEntry): TimelineEntry[] {
  const d = detailOf(event)
  const at = event.at
  const text = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : undefined)
  switch (event.kind) {
    case 'made':
      return [{at, kind: 'made', profile: text('profile'), command: text('command'), live: d.live === true}]
    case 'qr': {
      const drawn = text('drawn')
      // An earlier gw recorded a QR not drawn without saying why.
      const not_drawn = drawn ? undefined : (text('not_drawn') ?? 'why was not recorded')
      return [{at, kind: 'qr', drawn, not_drawn, file: text('file'), code_url: text('code_url')}]
    }
    case 'queried': {
      const paid = text('time_end')
      const payment: TimelineEntry[] = paid
        ? [{at: paid, kind: 'paid', openid: text('openid'), shown_by: ['query']}]
        : []
      return [{at, kind: 'queried', state: text('state') ?? ''}, ...payment]
    }
    case 'notified': {
      const paid = d.verdict === 'verified' ? text('time_end') : undefined
      const payment: TimelineEntry[] = paid ? [{at: paid, kind: 'paid', shown_by: ['notification']}] : []
      const retry = typeof d.retry === 'number' ? d.retry : undefined
      return [
        {
          at,
          kind: 'notified',
          verdict: text('verdict') ?? '',
          reason: text('reason'),
          retry,
          listener: text('listener'),
        },
        ...payment,
      ]
    }
    case 'closed':
      return [{at, kind: 'closed', already_closed: d.already_closed === true}]
  }
}

/**
 * The time of an entry, for sorting: to the second, as the gateway writes its times (a payment at
 * 14:00:05 is not before an order made at 14:00:05.300); unreadable, the end.
 */
const timeOf = (entry: TimelineEntry) => {
  const ms = Date.parse(entry.at)
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : Math.floor(ms / 1000)
}

/**
 * Where an order's story comes from: this machine's history of the gateway, and with refresh the
 * gateway (the order by any of its numbers, and the refunds a refund query lists of it: the
 * refund query is refunds/'s, given here as `refundsOf`). `profile`: named in the advice.
 */
interface StorySources {
  history: GatewayHistory
  profile: SuggestedFor
  orders: OrderService
  refundsOf(found: FoundOrder): Promise<RefundOrder[] | undefined>
}

/**
 * The story of the order `ref` names (by any of its numbers; the argument by any number support
 * has, a refund's too: orders/any-number). `refresh`: the gateway is asked first (the
 * order, and its refunds by the numbers this machine knows), and what it says is part of the story:
 * when it was paid and by whom, on a desk that did not make the order too. Throws a usage error
 * when neither this machine nor (with refresh) the gateway knows it.
 */
export async function orderTimeline(
  {history, profile, orders, refundsOf}: StorySources,
  ref: OrderReference,
  options: {refresh: boolean; channel?: string; zone?: string},
): Promise<Timeline> {
  // The argument is any number support has: the order's merchant, gateway or channel number, or a refund's.
  const known = ref.mch_order_no ? knownNumber(history, ref.mch_order_no, profile) : undefined
  const named = known ? {mch_order_no: known.mch_order_no} : ref
  let found: FoundByNumber | undefined
  let gatewayRefunds
  if (options.refresh) {
    found = await findNamed(orders, ref, options.channel)
    gatewayRefunds = await refundsOf(found)
  }
  const foundBy = found?.number_is ?? known?.is
  // Asked after the refresh: the query's own line is in the story.
  const asked = found?.record.mch_order_no ? {mch_order_no: found.record.mch_order_no} : named
  const story = history.story(asked)
  if (!found && !story.order && !story.events.length && !story.refunds.length)
    throw new GwError('usage', `This machine knows nothing of order ${describeReference(ref)}.`, {
      advice: askTheGateway(profile, ref),
    })
  const order: Partial<OrderEntry> = story.order ?? {}
  const record = found?.record
  const fee_type = record?.fee_type ?? order.fee_type
  const total_fee = record?.total_fee ?? order.total_fee
  const entries: TimelineEntry[] = story.events.flatMap(fromEvent)
  if (story.order && !story.events.some((event) => event.kind === 'made'))
    entries.push({at: story.order.at, kind: 'made'})
  // What the gateway's answer holds, whoever made the order: when it was paid, and by whom.
  if (record?.time_end && PAID_ORDER_STATES.includes(record.result))
    entries.push({at: record.time_end, kind: 'paid', openid: record.openid, shown_by: ['query']})
  entries.push(
    ...refundEntries(story.refunds, gatewayRefunds, {fee_type, asked: Boolean(found && hasRefundQuery(found.channel))}),
  )
  // The same time: in the order things happen (made before its QR, a payment before its notification).
  const order_of_kinds = ['made', 'qr', 'paid', 'notified', 'queried', 'refund', 'closed']
  entries.sort((a, b) => timeOf(a) - timeOf(b) || order_of_kinds.indexOf(a.kind) - order_of_kinds.indexOf(b.kind))
  const zone = options.zone ?? localZone()
  const inZone = (at: string) => inOneForm(at, zone)
  const state = record?.result ?? order.state
  const told = foldQueries(onePayment(entries))
  return {
    mch_order_no: record?.mch_order_no ?? order.mch_order_no ?? ref.mch_order_no ?? '',
    gw_order_no: record?.gw_order_no ?? order.gw_order_no ?? ref.gw_order_no,
    channel_order_no: record?.channel_order_no ?? order.channel_order_no ?? ref.channel_order_no,
    channel: found?.channel ?? order.channel,
    total_fee,
    total_amount: decimalOf(total_fee, fee_type),
    fee_type,
    state,
    state_at: found ? isoTimeIn(new Date(), zone) : order.state_at && inZone(order.state_at),
    openid: record?.openid ?? order.openid,
    made_here: Boolean(story.order),
    refreshed: Boolean(found),
    ...(foundBy && foundBy !== 'mch_order_no' ? {found_by: foundBy} : {}),
    zone,
    entries: told.map((entry) =>
      entry.kind === 'queried' && entry.last_at
        ? {...entry, at: inZone(entry.at), last_at: inZone(entry.last_at)}
        : {...entry, at: inZone(entry.at)},
    ),
    totals: totalsOf(told, {state, total_fee, fee_type}),
  }
}

/**
 * The refunds of the story: each this machine made (`made`), with what the gateway shows of it now
 * (`asked`: the gateway was asked, and its refund query lists every refund of the order: one not
 * there is absent), then those the gateway shows that this machine did not make (the merchant
 * platform, another machine).
 */
function refundEntries(
  made: readonly (RefundEntry & {unattributed?: true})[],
  gatewayRefunds: readonly RefundOrder[] | undefined,
  order: {fee_type?: string; asked: boolean},
): TimelineEntry[] {
  const entries: TimelineEntry[] = []
  const gatewayOf = new Map((gatewayRefunds ?? []).map((refund) => [refund.mch_refund_no, refund]))
  for (const refund of made) {
    const shown = gatewayOf.get(refund.mch_refund_no)
    gatewayOf.delete(refund.mch_refund_no)
    entries.push({
      at: refund.at,
      kind: 'refund',
      mch_refund_no: refund.mch_refund_no,
      refund_fee: refund.refund_fee,
      refund_amount: decimalOf(refund.refund_fee, refund.fee_type ?? order.fee_type),
      fee_type: refund.fee_type ?? order.fee_type,
      status: refund.status ?? 'refunded',
      gw_refund_no: refund.gw_refund_no ?? shown?.gw_refund_no,
      made_by: refund.source ?? 'gw',
      // Asked (the channel has a refund query, which lists every refund of the order): not there is absent.
      gateway_state: shown
        ? normalizeRefundState(shown.refund_state)
        : gatewayRefunds && order.asked
          ? 'absent'
          : undefined,
      ...(refund.unattributed ? {unattributed: true as const} : {}),
    })
  }
  // Refunds the gateway shows that this machine did not make (the merchant platform, another machine).
  for (const refund of gatewayOf.values()) {
    const state = normalizeRefundState(refund.refund_state)
    entries.push({
      at: refund.refund_time ?? new Date().toISOString(),
      kind: 'refund',
      mch_refund_no: refund.mch_refund_no,
      refund_fee: refund.mch_refund_fee,
      refund_amount: decimalOf(refund.mch_refund_fee, order.fee_type),
      fee_type: order.fee_type,
      status: state,
      gw_refund_no: refund.gw_refund_no,
      made_by: 'elsewhere',
      gateway_state: state,
    })
  }
  return entries
}

/** The advice for an order this machine knows nothing of: the same timeline, asking the gateway (by any number). */
function askTheGateway(profile: SuggestedFor, ref: OrderReference): string {
  return `Ask the gateway too: ${gwCommand(profile, 'order', 'timeline', ...referenceWords(ref), '--refresh')}`
}

/** A time in the one form gw writes (ISO 8601 to the second, with the offset of `zone`); text that is not a time, as it is. */
function inOneForm(at: string, zone: string): string {
  const ms = Date.parse(at)
  return Number.isNaN(ms) ? at : isoTimeIn(new Date(ms), zone)
}

/**
 * Support's own lookups, told once: queries in a row (nothing else between them) that showed the
 * same state are one line, with how many and when the last was. --json tells the story the same
 * way; no query is lost from it (`count`).
 */
function foldQueries(entries: TimelineEntry[]): TimelineEntry[] {
  const told: TimelineEntry[] = []
  for (const entry of entries) {
    const last = told.at(-1)
    if (entry.kind === 'queried' && last?.kind === 'queried' && last.state === entry.state) {
      told[told.length - 1] = {...last, count: (last.count ?? 1) + 1, last_at: entry.at}
    } else told.push(entry)
  }
  return told
}

/** The payment once per time_end, with every kind of answer that showed it (the payer from any of them). */
function onePayment(entries: TimelineEntry[]): TimelineEntry[] {
  const paid = new Map<number, TimelineEntry & {kind: 'paid'}>()
  return entries
    .filter((entry) => {
      if (entry.kind !== 'paid') return true
      const first = paid.get(timeOf(entry))
      if (!first) {
        paid.set(timeOf(entry), {...entry, shown_by: [...entry.shown_by]})
        return true
      }
      for (const by of entry.shown_by) if (!first.shown_by.includes(by)) first.shown_by.push(by)
      first.openid ??= entry.openid
      return false
    })
    .map((entry) => (entry.kind === 'paid' ? paid.get(timeOf(entry))! : entry))
}
