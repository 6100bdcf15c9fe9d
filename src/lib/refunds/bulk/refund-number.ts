/**
 * Refund numbers for rows that bring none: derived from what the gateway knows of the
 * refund, so that the same refund gets the same number however the file writes it
 * (mch_order_no or gw_order_no, refund_fee 100 or refund_amount 1.00), and the gateway,
 * which takes each number once, refuses a second one. `batch` enters the derivation for an
 * intentional second round of identical refunds.
 */
import {createHash} from 'node:crypto'

interface DerivedRefund {
  appid: string
  /** The order as the gateway identifies it. */
  gwOrderNo: string
  /** The amount in minor units. */
  refundFee: number
  /** 1 for the first row of this order and amount in the file, 2 for a repeat (--allow-repeats). */
  occurrence: number
  batch?: string
}

/** What a derived number looks like: gw's own form, whatever the batch. */
export const DERIVED_FORM = /^RF[0-9A-F]{30}$/

/** `RF` + 30 hex digits of SHA-256 over appid, gateway order number, amount, occurrence (and batch). */
export function deriveRefundNumber(refund: DerivedRefund): string {
  const parts = [refund.appid, refund.gwOrderNo, String(refund.refundFee), String(refund.occurrence)]
  if (refund.batch) parts.push(refund.batch)
  // Upper-cased whole: one flat string, not "RF" joined to the digits (a million rows hold a million of them).
  return `rf${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 30)}`.toUpperCase()
}
