/**
 * What a command that talks to the gateway needs, built once per command and only by the
 * commands that use it: the signed client, the local history, the order and refund services.
 */
import {type ClientOptions, GatewayClient, closeConnections} from '../gateway/client.js'
import {OrderHistory} from '../orders/history.js'
import {OrderService} from '../orders/service.js'
import type {Profile} from '../profiles/store.js'
import {RefundService} from '../refunds/service.js'

export interface GatewayServices {
  client: GatewayClient
  history: OrderHistory
  orders: OrderService
  refunds: RefundService
  /** Closes the keep-alive connections so the process can end. */
  close(): Promise<void>
}

/** A big earlier history's import is said as it goes, every few seconds. */
const IMPORT_SAID_FROM_BYTES = 16 << 20
const IMPORT_SAID_EVERY_MS = 2000

/** The local history; `warn` is told of what it could not read, `note` of an import's progress. */
export function openHistory(warn: (message: string) => void, note: (message: string) => void): OrderHistory {
  let saidAt = Date.now()
  const importing = (read: number, size: number) => {
    if (size < IMPORT_SAID_FROM_BYTES || (Date.now() - saidAt < IMPORT_SAID_EVERY_MS && read < size)) return
    saidAt = Date.now()
    note(`importing the earlier history (${history.jsonl}) into ${history.file}: ${Math.floor((read / size) * 100)}%`)
  }
  const history = new OrderHistory(undefined, {warn, importing})
  return history
}

export function connect(
  profile: Profile,
  options: ClientOptions,
  warn: (message: string) => void,
  note: (message: string) => void,
): GatewayServices {
  const client = new GatewayClient(profile, options)
  const history = openHistory(warn, note)
  const orders = new OrderService(client, history)
  return {client, history, orders, refunds: new RefundService(client, history, orders), close: closeConnections}
}
