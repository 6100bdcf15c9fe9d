/** The three ways to name an order, shared by every command that looks one up. */
import {Args, Flags} from '@oclif/core'

import {usageError} from '../errors.js'
import type {OrderReference} from '../orders/history.js'
import {ALL_CHANNELS} from '../gateway/protocol/index.js'

export const orderArgs = {
  mch_order_no: Args.string({description: 'merchant order number'}),
}

export const orderFlags = {
  'gw-order-no': Flags.string({description: "the gateway's order number instead of the merchant's"}),
  'channel-order-no': Flags.string({description: "the channel's order number instead of the merchant's"}),
  channel: Flags.string({
    description: 'channel of the order (default: the local history, else each channel in turn)',
    options: [...ALL_CHANNELS],
  }),
}

export function orderReference(
  mchOrderNo: string | undefined,
  flags: {'gw-order-no'?: string; 'channel-order-no'?: string},
): OrderReference {
  const ref: OrderReference = {
    mch_order_no: mchOrderNo,
    gw_order_no: flags['gw-order-no'],
    channel_order_no: flags['channel-order-no'],
  }
  const given = Object.values(ref).filter(Boolean).length
  if (given === 0) throw usageError('Name the order: MCH_ORDER_NO, --gw-order-no or --channel-order-no.')
  if (given > 1) throw usageError('Name the order one way only: MCH_ORDER_NO, --gw-order-no or --channel-order-no.')
  return ref
}
