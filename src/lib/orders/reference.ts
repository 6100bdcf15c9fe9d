/**
 * How an order is named: by any one of the three numbers of the protocol's order number
 * fields (section 2.2). A reference is what a user gave; `orderKey` identifies it inside
 * one run (a file, a history), without being parsed back.
 */
import {randomUUID} from 'node:crypto'

import {ORDER_NUMBER_FIELDS, compactTimestamp} from '../gateway/protocol/index.js'

export type OrderNumberField = (typeof ORDER_NUMBER_FIELDS)[number]
export type OrderReference = Partial<Record<OrderNumberField, string>>

/** The field a reference names its order by (the first filled, in the order mch, gw, channel). */
function referenceField(ref: OrderReference): OrderNumberField | undefined {
  return ORDER_NUMBER_FIELDS.find((field) => ref[field])
}

export function describeReference(ref: OrderReference): string {
  const field = referenceField(ref)
  if (field === 'mch_order_no' || !field) return ref.mch_order_no ?? ''
  return `${field} ${ref[field]}`
}

/** What number of its order a reference gives, in words: "merchant order number", "gateway order number"... */
export const describeField = (ref: OrderReference): string =>
  ({
    mch_order_no: 'merchant order number',
    gw_order_no: 'gateway order number',
    channel_order_no: 'channel order number',
  })[referenceField(ref) ?? 'mch_order_no']

/** The reference as gw's command line names it: `INV-1`, `--gw-order-no 900…` or `--channel-order-no 420…`. */
export function referenceWords(ref: OrderReference): string[] {
  if (ref.mch_order_no) return [ref.mch_order_no]
  if (ref.gw_order_no) return ['--gw-order-no', ref.gw_order_no]
  return ref.channel_order_no ? ['--channel-order-no', ref.channel_order_no] : []
}

/**
 * Whether a number given as the merchant's order number looks like one the gateway made: all
 * digits, 16 or more (the gateway's are 23, `900` and the time; merchants' own numbers are
 * shorter or carry letters). Said as a hint when no channel knows it as the merchant's.
 */
export const looksLikeGatewayNumber = (number: string) => /^\d{16,32}$/.test(number)

/** Where other numbers a row gives contradict the order found by its first: `gw_order_no X is not this order's (it has Y)`. */
export function disagreement(numbers: OrderReference, found: OrderReference): string | undefined {
  const named = referenceField(numbers)
  for (const field of ORDER_NUMBER_FIELDS) {
    const given = numbers[field]
    const actual = found[field]
    if (field === named || !given || !actual || given === actual) continue
    return `${field} ${given} is not the ${field} of the order ${named} ${numbers[named!]} (the gateway has ${actual}): the row names two orders`
  }
  return undefined
}

/** One string per distinct reference; `[field, number]` as JSON, so no number can collide with another field's. */
export function orderKey(ref: OrderReference): string {
  const field = referenceField(ref)
  return JSON.stringify([field, field ? ref[field] : ''])
}

/** A merchant order (or refund) number gw makes when none is given: prefix + time + 6 random characters. */
export function newOrderNumber(prefix = 'GW'): string {
  // A version 4 UUID begins with 8 random hex digits; Node draws them from a cache of entropy (a
  // bulk plan numbers every row), where randomBytes asks the system each time.
  return `${prefix}${compactTimestamp()}${randomUUID().slice(0, 6).toUpperCase()}`
}

/** The code of an order named with a channel the gateway does not know it on, when another does. */
export const WRONG_CHANNEL = 'WRONG_CHANNEL'

/** The code of a number more than one order answered for. */
export const SEVERAL_ORDERS = 'SEVERAL_ORDERS'
