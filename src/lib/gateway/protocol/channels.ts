/**
 * Channels and currencies of the API document (sections 1 and 4). Each operation takes
 * its own list of channels; a channel an operation does not take is refused before sending.
 */

export const OPERATIONS = ['native_pay', 'order_query', 'order_refund', 'refund_query', 'order_close'] as const
export type Operation = (typeof OPERATIONS)[number]

/** Section 1: the channels an order can be created for. */
export const ORDER_CHANNELS = [
  'wechat',
  'alipay',
  'alipayplus',
  'promptpay',
  'truemoney',
  'airpay',
  'scb_qrcard',
] as const
export type OrderChannel = (typeof ORDER_CHANNELS)[number]

/** Every channel value the document names for some operation. */
export const ALL_CHANNELS = [
  ...ORDER_CHANNELS,
  'linepay',
  'atome',
  'card',
  'ktc_instal',
  'kbank_instal',
  'kcc_instal',
  'kfc_instal',
] as const

/**
 * Section 4, per operation. Close lists no channels ("not shown"): it takes those an order can
 * be created for. Refund query lists promptpay and alipay but also says it does not support them.
 */
export const CHANNELS_BY_OPERATION: Record<Operation, readonly string[]> = {
  native_pay: ORDER_CHANNELS,
  order_query: ['wechat', 'alipay', 'alipayplus', 'linepay', 'airpay', 'promptpay', 'truemoney'],
  order_refund: [
    'alipay',
    'alipayplus',
    'wechat',
    'linepay',
    'airpay',
    'truemoney',
    'atome',
    'card',
    'ktc_instal',
    'kbank_instal',
    'kcc_instal',
    'kfc_instal',
  ],
  refund_query: ['wechat', 'linepay', 'airpay', 'truemoney'],
  order_close: ORDER_CHANNELS,
}

/** Whether the operation needs the channel parameter (section 4). */
export const CHANNEL_REQUIRED: Record<Operation, boolean> = {
  native_pay: true,
  order_query: true,
  order_refund: false,
  refund_query: false,
  order_close: true,
}

/** Whether the gateway answers refund queries for orders of this channel (section 4.4: not promptpay, not alipay). */
export const hasRefundQuery = (channel: string) => CHANNELS_BY_OPERATION.refund_query.includes(channel)

export function channelsFor(operation: Operation): readonly string[] {
  return CHANNELS_BY_OPERATION[operation]
}

/** QR lifetimes of section 3, in seconds; `undefined` never expires. */
export const QR_LIFETIME: Record<
  OrderChannel,
  {defaultSeconds: number | undefined; parameter?: 'tmn_expire_time' | 'expire_time'; maxSeconds?: number}
> = {
  promptpay: {defaultSeconds: undefined},
  truemoney: {defaultSeconds: 86_400, parameter: 'tmn_expire_time'},
  alipay: {defaultSeconds: 3 * 3600},
  alipayplus: {defaultSeconds: 600},
  wechat: {defaultSeconds: 2 * 3600},
  airpay: {defaultSeconds: 30 * 86_400},
  scb_qrcard: {defaultSeconds: 15 * 60, parameter: 'expire_time', maxSeconds: 30 * 86_400},
}

/** Channels the document marks "Thailand only": their orders are in THB (PromptPay encodes currency 764). */
export const THB_ONLY_CHANNELS: readonly string[] = ['promptpay', 'truemoney', 'airpay', 'scb_qrcard']
