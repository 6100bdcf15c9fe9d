/**
 * A PromptPay (EMVCo merchant-presented) bill-payment payload, laid out as the gateway's
 * published sample: tag 30 with the PromptPay AID, biller id, reference 1 (the gateway
 * order number without its 900 prefix) and reference 2 (the stall), currency 764, the
 * amount, country TH, and a CRC-16/CCITT-FALSE over the whole payload.
 */

import {toDecimal} from '../lib/gateway/protocol/index.js'

const tlv = (tag: string, value: string) => `${tag}${String(value.length).padStart(2, '0')}${value}`

export function crc16ccittFalse(text: string): string {
  let crc = 0xffff
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, '0')
}

interface PromptPayBill {
  billerId: string
  reference1: string
  reference2: string
  /** Amount in satang. */
  amount: number
}

export function promptPayPayload(bill: PromptPayBill): string {
  const account =
    tlv('00', 'A000000677010112') + tlv('01', bill.billerId) + tlv('02', bill.reference1) + tlv('03', bill.reference2)
  const amount = toDecimal(bill.amount, 'THB')
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('30', account) +
    tlv('53', '764') +
    tlv('54', amount) +
    tlv('58', 'TH') +
    '6304'
  return body + crc16ccittFalse(body)
}
