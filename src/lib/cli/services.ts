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

/** `warn` is told of what the local history could not read. */
export function connect(profile: Profile, options: ClientOptions, warn: (message: string) => void): GatewayServices {
  const client = new GatewayClient(profile, options)
  const history = new OrderHistory(undefined, warn)
  const orders = new OrderService(client, history)
  return {client, history, orders, refunds: new RefundService(client, history, orders), close: closeConnections}
}
