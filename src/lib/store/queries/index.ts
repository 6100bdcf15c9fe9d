/** Every question of the store, one class of prepared statements per entity, prepared once when it opens. */
import type {LocalDatabase} from '../../io/database.js'
import {ClaimQueries} from './claims.js'
import {EventQueries} from './events.js'
import {GatewayQueries} from './gateways.js'
import {OrderQueries} from './orders.js'
import {RefundQueries} from './refunds.js'

export interface Queries {
  orders: OrderQueries
  refunds: RefundQueries
  events: EventQueries
  claims: ClaimQueries
  gateways: GatewayQueries
}

export const prepareQueries = (db: LocalDatabase): Queries => ({
  orders: new OrderQueries(db),
  refunds: new RefundQueries(db),
  events: new EventQueries(db),
  claims: new ClaimQueries(db),
  gateways: new GatewayQueries(db),
})
