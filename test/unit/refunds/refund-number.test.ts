import {describe, expect, it} from 'vitest'

import {amountKey, deriveRefundNumber} from '../../../src/lib/refunds/bulk/refund-number.js'

describe('derived refund numbers', () => {
  it('are RF and 30 hex digits, the same for the same inputs', () => {
    const number = deriveRefundNumber('mch1', 'mch_order_no:A', 'fee:100', 1)
    expect(number).toMatch(/^RF[0-9A-F]{30}$/)
    expect(deriveRefundNumber('mch1', 'mch_order_no:A', 'fee:100', 1)).toBe(number)
  })

  it('differ by appid, order, amount and occurrence', () => {
    const base = deriveRefundNumber('mch1', 'mch_order_no:A', 'fee:100', 1)
    for (const other of [
      deriveRefundNumber('mch2', 'mch_order_no:A', 'fee:100', 1),
      deriveRefundNumber('mch1', 'mch_order_no:B', 'fee:100', 1),
      deriveRefundNumber('mch1', 'mch_order_no:A', 'fee:101', 1),
      deriveRefundNumber('mch1', 'mch_order_no:A', 'fee:100', 2),
    ]) {
      expect(other).not.toBe(base)
    }
  })

  it('see 50, 50.0, 50.00 and 050 as the same amount, minor units as another form', () => {
    const keys = ['50', '50.0', '50.00', '050'].map((decimal) => amountKey({decimal}))
    expect(new Set(keys)).toEqual(new Set(['amount:50']))
    expect(amountKey({decimal: '50.50'})).toBe('amount:50.5')
    expect(amountKey({minor: 5000})).toBe('fee:5000')
  })
})
