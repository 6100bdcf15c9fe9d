/**
 * `gw order list`: the orders made on this machine for the profile's appid (the gateway has no
 * list API), newest first, filtered by time, channel and the state gw last learned; with
 * `refresh`, each listed order is queried first (its new state kept in the history).
 */
import {runBatch} from '../batch.js'
import type {BatchOptions} from '../batch.js'
import {GwError} from '../errors.js'
import {CHANNELS_BY_OPERATION, isoTime} from '../gateway/protocol/index.js'
import type {OrderHistory} from './history.js'
import type {OrderService} from './service.js'

export interface ListedOrder {
  made_at: string
  mch_order_no: string
  gw_order_no?: string
  channel: string
  total_fee: number
  fee_type: string
  /** The state last known (after --refresh: the gateway's now); undefined for orders of earlier versions never queried since. */
  state?: string
  state_at?: string
  /** Why the refresh of this order failed (its state is the one known before). */
  refresh_failed?: string
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
  'amount',
  'fee_type',
  'state',
  'state_at',
] as const

export const orderListRow = (o: ListedOrder) => ({...o, amount: {minor: o.total_fee, currency: o.fee_type}})

export interface ListFilter {
  since?: Date
  until?: Date
  channel?: string
  state?: string
  refresh: boolean
  pace: BatchOptions
}

const local = (at: string | undefined) => (at ? isoTime(new Date(at)) : undefined)

/** The orders of the list as the history knows them, newest first, read from the query as they are used. */
export function* listedOrders(history: OrderHistory, appid: string, filter: ListFilter): Generator<ListedOrder> {
  for (const o of history.orders(appid, filter)) {
    if (filter.state && !filter.refresh && o.state !== filter.state) continue
    yield {
      made_at: local(o.at)!,
      mch_order_no: o.mch_order_no,
      gw_order_no: o.gw_order_no,
      channel: o.channel,
      total_fee: o.total_fee,
      fee_type: o.fee_type,
      state: o.state,
      state_at: local(o.state_at),
    }
  }
}

export async function listOrders(
  history: OrderHistory,
  orders: OrderService,
  filter: ListFilter,
): Promise<ListedOrder[]> {
  const listed = [...listedOrders(history, orders.appid, filter)]
  if (filter.refresh) {
    await runBatch(
      listed,
      async (order) => {
        if (!CHANNELS_BY_OPERATION.order_query.includes(order.channel)) {
          order.refresh_skipped = `${order.channel} has no order query`
          return
        }
        try {
          const found = await orders.find({mch_order_no: order.mch_order_no}, order.channel)
          order.state = found.record.result
          order.state_at = isoTime()
        } catch (error) {
          if (!(error instanceof GwError)) throw error
          order.refresh_failed = error.message
        }
      },
      filter.pace,
    )
  }
  return filter.state ? listed.filter((o) => o.state === filter.state) : listed
}
