/**
 * `gw order list`: the orders made on this machine for the profile's appid (the gateway has no
 * list API), newest first, filtered by time, channel and the state gw last learned; with
 * `refresh`, each listed order is queried first (its new state kept in the history).
 */
import {setImmediate} from 'node:timers/promises'

import type {BatchOptions} from '../batch.js'
import {GwError, type Outcome} from '../errors.js'
import {mapInOrder} from '../batch.js'
import {GatewayUnreachable} from '../gateway/client.js'
import {CHANNELS_BY_OPERATION, decimalOf, isoTime} from '../gateway/protocol/index.js'
import type {GatewayHistory} from '../store/history.js'
import type {Selection} from '../store/queries/lists.js'
import type {OrderService} from './service.js'

/**
 * How a listed item's refresh failure would end the list (signature when its answer failed
 * verification, transport when the gateway could not be reached...): kept beside the item, never
 * written (a symbol is in neither --json nor a file).
 */
export const REFRESH_OUTCOME: unique symbol = Symbol('outcome of a refresh failure')

/** What a failed refresh leaves on an item: why, and the outcome it stands for. */
export interface RefreshFailure {
  failed: string
  outcome: Outcome
}

/**
 * An order as listed (--json, --out): `made_at` as a refund's, each `_fee` beside its `_amount`
 * (the same as a decimal in the currency).
 */
export interface ListedOrder {
  made_at: string
  mch_order_no: string
  gw_order_no?: string
  channel: string
  total_fee: number
  total_amount?: string
  fee_type: string
  /** The state last known (after --refresh: the gateway's now); undefined for orders of earlier versions never queried since. */
  state?: string
  state_at?: string
  /** The payer, as a query or notification showed it (what --payer selects by). */
  openid?: string
  /** Why the refresh of this order failed (its state is the one known before). */
  refresh_failed?: string
  [REFRESH_OUTCOME]?: Outcome
  /** Recorded by an earlier gw, which did not record the gateway: shown, never used for a refund (gw history). */
  unattributed?: true
  /** Why --refresh did not ask the gateway (its channel has no order query): the state is the one gw knew. */
  refresh_skipped?: string
}

/** The columns of an order list written to a file, and a row of it. */
export const ORDER_LIST_COLUMNS = [
  'made_at',
  'mch_order_no',
  'gw_order_no',
  'channel',
  'total_fee',
  'total_amount',
  'fee_type',
  'state',
  'state_at',
  'openid',
] as const

export const orderListRow = (o: ListedOrder) => ({...o, total_amount: {minor: o.total_fee, currency: o.fee_type}})

/** A list's flags: what it selects (--since, --until, --channel, --state, --amount, --payer), and how it is read. */
export interface ListFilter extends Selection {
  refresh: boolean
  pace: BatchOptions
  /** Only the first so many are read (those after are counted, not read); all of them with refresh. */
  first?: number
}

/** What the history selects for a list: with refresh, the state is the gateway's, filtered after asking. */
export const selectionOf = (filter: ListFilter): Selection => ({
  since: filter.since,
  until: filter.until,
  channel: filter.channel,
  state: filter.refresh ? undefined : filter.state,
  amounts: filter.amounts,
  payer: filter.payer,
})

const local = (at: string | undefined) => (at ? isoTime(new Date(at)) : undefined)

/** The orders of the list as the history knows them, newest first, read from the query as they are used. */
function* listedOrders(history: GatewayHistory, appid: string, filter: ListFilter): Generator<ListedOrder> {
  for (const o of history.orders(selectionOf(filter))) {
    yield {
      made_at: local(o.at)!,
      mch_order_no: o.mch_order_no,
      gw_order_no: o.gw_order_no,
      channel: o.channel,
      total_fee: o.total_fee,
      total_amount: decimalOf(o.total_fee, o.fee_type),
      fee_type: o.fee_type,
      state: o.state,
      state_at: local(o.state_at),
      openid: o.openid,
      ...(o.unattributed ? {unattributed: true as const} : {}),
    }
  }
}

/**
 * The gateway's answers for a refresh, each by `ask`: a GwError is the item's failure. Once the
 * gateway could not be reached at all (no connection made, after the client's own tries), the
 * items after are not asked: each fails at once, saying so, instead of waiting through the same
 * tries. A failure about one item (no answer in time, an HTTP 5xx, a code the gateway answered, a
 * bad signature) is that item's own: the next may be answered, so it is asked.
 */
export function refreshAsker(): <T>(ask: () => Promise<T>) => Promise<T | RefreshFailure> {
  let unreachable: RefreshFailure | undefined
  return async (ask) => {
    if (unreachable) return unreachable
    try {
      return await ask()
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      if (error instanceof GatewayUnreachable)
        unreachable ??= {
          failed: `not asked: the gateway could not be reached for an earlier one (${error.message.replace(/\.$/, '')})`,
          outcome: error.kind,
        }
      return {failed: error.message, outcome: error.kind}
    }
  }
}

/** Marks an item whose refresh failed: why (shown), and the outcome it stands for (kept aside). */
export function markFailed(
  item: {refresh_failed?: string; [REFRESH_OUTCOME]?: Outcome},
  failure: RefreshFailure,
): void {
  item.refresh_failed = failure.failed
  item[REFRESH_OUTCOME] = failure.outcome
}

/** The first `count` items of a list. */
function* firstOf<T>(items: Iterable<T>, count: number): Generator<T> {
  if (count <= 0) return
  let taken = 0
  for (const item of items) {
    yield item
    if (++taken === count) return
  }
}

/** Lets the process hear a signal (Ctrl-C) every so many items of a list read without waiting on anything. */
const YIELD_EVERY = 1000

/**
 * The items of a list handed to `emit` in list order, as they come, never held whole: as read,
 * or (with refresh) each through `refresh` first, within the pace, in a bounded window, then
 * filtered by `--state` (the state after the refresh). `emit` is awaited: a slow output slows
 * the reading. Stops taking new items when the pace's signal aborts. `total`: how many the list
 * has (past `first`, counted by `count`).
 */
export async function emitList<T>(
  listed: Iterable<T>,
  filter: ListFilter,
  each: {refresh: (item: T) => Promise<void>; state: (item: T) => string | undefined; count: () => number},
  emit: (item: T) => Promise<void>,
): Promise<{stopped: boolean; total: number}> {
  const {signal} = filter.pace
  let total = 0
  if (!filter.refresh) {
    for (const item of listed) {
      if (total === filter.first) return {stopped: false, total: each.count()}
      if (++total % YIELD_EVERY === 0) await setImmediate()
      if (signal?.aborted) break
      await emit(item)
    }
    return {stopped: Boolean(signal?.aborted), total}
  }
  // --limit with --refresh: the newest so many are asked (all of them when --state filters after).
  const asking = filter.first !== undefined && !filter.state ? firstOf(listed, filter.first) : listed
  const outcome = await mapInOrder(
    asking,
    async (item) => {
      await each.refresh(item)
      return item
    },
    async (item) => {
      if (filter.state && each.state(item) !== filter.state) return
      if (total === filter.first) return
      total += 1
      await emit(item)
    },
    {...filter.pace, window: Math.max(256, filter.pace.concurrency * 32)},
  )
  return {...outcome, total}
}

/** `gw order list`: each order to `emit` as it comes (with refresh: its state asked first and kept in the history). */
export function listOrders(
  history: GatewayHistory,
  orders: OrderService,
  filter: ListFilter,
  emit: (order: ListedOrder) => Promise<void>,
): Promise<{stopped: boolean; total: number}> {
  const asked = refreshAsker()
  const refresh = async (order: ListedOrder) => {
    if (!CHANNELS_BY_OPERATION.order_query.includes(order.channel)) {
      order.refresh_skipped = `${order.channel} has no order query`
      return
    }
    const found = await asked(() => orders.find({mch_order_no: order.mch_order_no}, order.channel))
    if ('failed' in found) markFailed(order, found)
    else {
      order.state = found.record.result
      order.state_at = isoTime()
      order.openid = found.record.openid ?? order.openid
    }
  }
  const count = () => history.count('orders', selectionOf(filter))
  return emitList(listedOrders(history, orders.appid, filter), filter, {refresh, state: (o) => o.state, count}, emit)
}
