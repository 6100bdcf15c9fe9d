import {describe, expect, it} from 'vitest'

import {balanceProblem, checkRefund} from '../../../src/lib/refunds/balance.js'

const paid = {state: 'SUCCESS', total: 10_000, currency: 'THB'}

describe('the balance rule', () => {
  it('gives the amount in minor units when the refund fits', () => {
    expect(checkRefund(paid, {amount: {decimal: '50.00'}}, 0)).toBe(5000)
    expect(checkRefund(paid, {amount: {minor: 10_000}}, undefined)).toBe(10_000)
    expect(checkRefund({...paid, state: 'REFUND'}, {amount: {minor: 4000}}, 6000)).toBe(4000)
  })

  it('refuses an order that did not take money', () => {
    for (const state of ['NOTPAY', 'USERPAYING', 'CLOSED', 'PAYERROR']) {
      expect(checkRefund({...paid, state}, {amount: {minor: 1}}, 0)).toEqual({kind: 'not_paid', state})
    }
  })

  it('refuses a currency or total other than the order says', () => {
    expect(checkRefund(paid, {amount: {minor: 1}, feeType: 'MYR'}, 0)).toEqual({
      kind: 'currency_mismatch',
      currency: 'THB',
      given: 'MYR',
    })
    expect(checkRefund(paid, {amount: {minor: 1}, totalFee: 9999}, 0)).toEqual({
      kind: 'total_mismatch',
      total: 10_000,
      given: 9999,
      currency: 'THB',
    })
  })

  it('refuses amounts that do not convert exactly, and zero', () => {
    expect(checkRefund(paid, {amount: {decimal: '1.005'}}, 0)).toMatchObject({
      kind: 'bad_amount',
      form: 'decimal',
      reason: expect.stringContaining('THB has 2 decimal places'),
    })
    expect(checkRefund({...paid, currency: 'JPY'}, {amount: {decimal: '1.5'}}, 0)).toMatchObject({
      kind: 'bad_amount',
      reason: expect.stringContaining('JPY has no minor unit'),
    })
    expect(checkRefund(paid, {amount: {minor: 0}}, 0)).toMatchObject({
      kind: 'bad_amount',
      form: 'minor',
      reason: 'the amount must be above zero',
    })
  })

  it('refuses more than the total, and more than the balance when what was refunded is known', () => {
    expect(checkRefund(paid, {amount: {minor: 10_001}}, undefined)).toEqual({
      kind: 'above_total',
      refundFee: 10_001,
      total: 10_000,
      currency: 'THB',
    })
    expect(checkRefund(paid, {amount: {minor: 5000}}, 6000)).toEqual({
      kind: 'above_balance',
      refundFee: 5000,
      balance: 4000,
      total: 10_000,
      currency: 'THB',
    })
    expect(balanceProblem(paid, 5000, undefined)).toBeUndefined()
    expect(balanceProblem(paid, 4000, 6000)).toBeUndefined()
  })
})
