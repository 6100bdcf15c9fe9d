/**
 * Refund numbers for rows that bring none: derived, so that the same file always gives the
 * same numbers and the gateway, which takes each number once, refuses a second refund.
 */
import {createHash} from 'node:crypto'

import type {Amount} from '../../gateway/protocol/index.js'
import {parseDecimal} from '../../gateway/protocol/index.js'

/** `RF` + 30 hex digits of SHA-256 over appid, order, amount and the occurrence of that pair. */
export function deriveRefundNumber(appid: string, orderKey: string, amountKey: string, occurrence: number): string {
  const digest = createHash('sha256').update(`${appid}\n${orderKey}\n${amountKey}\n${occurrence}`).digest('hex')
  return `RF${digest.slice(0, 30).toUpperCase()}`
}

/** The amount as written, canonical: 50, 50.0 and 50.00 are the same amount. */
export function amountKey(amount: Amount): string {
  if ('minor' in amount) return `fee:${amount.minor}`
  const {whole, fraction} = parseDecimal(amount.decimal)
  return `amount:${BigInt(whole)}${fraction ? `.${fraction}` : ''}`
}
