/**
 * Order and refund states (section 3, and docs/design.md), each explained in words for people.
 * Unknown values (REFUNDSUCCESS appears in published samples) are shown as they are.
 */

export const ORDER_STATES = {
  NOTPAY: 'created, not paid yet',
  USERPAYING: 'scanned, waiting for the payer to confirm',
  SUCCESS: 'paid',
  PAYERROR: 'payment failed',
  CLOSED: 'closed by the merchant, or the QR code expired',
  REFUND: 'paid, and at least one refund succeeded',
  PENDING: 'the channel has not answered yet; query again',
  NOTSURE: 'the outcome is not known yet; query again',
  FAIL: 'failed',
} as const

/** A word each, to fit a table's cell; what processing means is PROCESSING_WAIT, said once. */
const REFUND_STATES = {
  SUCCESS: 'refunded',
  FAIL: 'refund failed',
  PROCESSING: 'processing',
} as const

/** How long a processing refund takes (section 3: TRADE_STATE_ERROR). */
export const PROCESSING_WAIT =
  'the channel answers later: about 20 minutes for a balance payment, 3 working days for a card'

/** States in which an order can still change by itself: query again later. */
export const UNSETTLED_ORDER_STATES: readonly string[] = ['NOTPAY', 'USERPAYING', 'PENDING', 'NOTSURE']

/** Orders that took money: they can be refunded. */
export const PAID_ORDER_STATES: readonly string[] = ['SUCCESS', 'REFUND']

export function describeOrderState(state: string): string {
  return (
    (ORDER_STATES as Record<string, string>)[state] ?? `reported as ${state} (a state this version of gw does not know)`
  )
}

/** Published samples say REFUNDSUCCESS; treat it as SUCCESS without hiding the raw value. */
export function normalizeRefundState(state: string): string {
  return state === 'REFUNDSUCCESS' ? 'SUCCESS' : state
}

export function describeRefundState(state: string): string {
  return (
    (REFUND_STATES as Record<string, string>)[normalizeRefundState(state)] ??
    `reported as ${state} (a state this version of gw does not know)`
  )
}
