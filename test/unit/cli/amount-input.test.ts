/** Amounts on the command line read by the one reader of amounts (readAmountText), as in files. */
import {describe, expect, it} from 'vitest'

import {amountOf} from '../../../src/lib/cli/amount-input.js'
import {GwError} from '../../../src/lib/errors.js'
import {minorUnitsOf} from '../../../src/lib/gateway/protocol/index.js'

const names = {decimal: '--amount', minor: '--refund-fee'}
const amount = (text: string, currency?: string) => amountOf(text, undefined, names, currency)
const refused = (text: string, currency?: string) => {
  try {
    amount(text, currency)
  } catch (error) {
    expect(error).toBeInstanceOf(GwError)
    expect((error as GwError).kind).toBe('usage')
    return (error as GwError).message
  }
  throw new Error(`${text} was taken`)
}

describe('an amount flag', () => {
  it('takes a symbol, a code or a word for its currency, and Thai digits, as a file does', () => {
    expect(amount('150.50')).toEqual({decimal: '150.50'})
    expect(amount('฿5.00')).toEqual({decimal: '5.00', currency: 'THB'})
    expect(amount('50 baht')).toEqual({decimal: '50', currency: 'THB'})
    expect(amount('50 บาท')).toEqual({decimal: '50', currency: 'THB'})
    expect(amount('๕๐.๒๕')).toEqual({decimal: '50.25'})
    expect(amount('1,500.00', 'THB')).toEqual({decimal: '1500.00'})
    expect(amount('RM 12.30', 'MYR')).toEqual({decimal: '12.30', currency: 'MYR'})
  })

  it('refuses what is no amount, naming the flag; a negative one; a currency other than --fee-type', () => {
    expect(refused('five')).toMatch(/^--amount: "five" .*Nothing was sent\.$/)
    expect(refused('-5.00')).toBe('--amount "-5.00" is negative. Nothing was sent.')
    expect(refused('฿5.00', 'MYR')).toBe('--amount "฿5.00" is in THB, but --fee-type says MYR. Nothing was sent.')
    expect(refused('฿5.555')).toMatch(/5\.555/)
  })

  it('is an amount of its own currency only', () => {
    expect(minorUnitsOf(amount('฿5.00'), 'THB')).toBe(500)
    expect(() => minorUnitsOf(amount('฿5.00'), 'MYR')).toThrow('the amount is in THB, the order in MYR')
  })
})
