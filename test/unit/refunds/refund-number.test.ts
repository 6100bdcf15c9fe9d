import {describe, expect, it} from 'vitest'

import {deriveRefundNumber} from '../../../src/lib/refunds/bulk/refund-number.js'

const base = {appid: 'mch1', gwOrderNo: '90020261121000000000001', refundFee: 100, occurrence: 1}

describe('derived refund numbers', () => {
  it('are RF and 30 hex digits, the same for the same refund', () => {
    const number = deriveRefundNumber(base)
    expect(number).toMatch(/^RF[0-9A-F]{30}$/)
    expect(deriveRefundNumber({...base})).toBe(number)
  })

  it('differ by appid, order, amount, occurrence and batch', () => {
    const number = deriveRefundNumber(base)
    for (const other of [
      {...base, appid: 'mch2'},
      {...base, gwOrderNo: '90020261121000000000002'},
      {...base, refundFee: 101},
      {...base, occurrence: 2},
      {...base, batch: 'second-round'},
    ]) {
      expect(deriveRefundNumber(other)).not.toBe(number)
    }
  })
})
