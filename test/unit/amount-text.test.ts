import {describe, expect, it} from 'vitest'

import {readAmountText} from '../../src/lib/gateway/protocol/index.js'

const read = (text: string, currency?: string) => readAmountText(text, currency)

describe('the amount rule: amounts as people type them and spreadsheets export them', () => {
  it.each([
    ['150.50', undefined, '150.50', false, undefined],
    ['1267.11', 'THB', '1267.11', false, undefined],
    ['1,267.11', 'THB', '1267.11', false, undefined],
    ['฿1,281.33', 'THB', '1281.33', false, 'THB'],
    ['฿1,281.33', undefined, '1281.33', false, 'THB'],
    ['1,281.33 ฿', 'THB', '1281.33', false, 'THB'],
    ['THB 100', undefined, '100', false, 'THB'],
    ['100.00 thb', undefined, '100.00', false, 'THB'],
    ['AED 1,295.55', 'AED', '1295.55', false, 'AED'],
    ['1,295.55 د.إ', 'AED', '1295.55', false, 'AED'],
    ['د.إ 12.00', undefined, '12.00', false, 'AED'],
    ['4,570', 'JPY', '4570', false, undefined],
    ['¥4,570', 'JPY', '4570', false, 'JPY'],
    ['4570 JPY', undefined, '4570', false, 'JPY'],
    ['RM 10.50', 'MYR', '10.50', false, 'MYR'],
    ['10.50 MYR', undefined, '10.50', false, 'MYR'],
    [' 1,295.55 ', undefined, '1295.55', false, undefined],
    ['\u00a01,295.55\u00a0', undefined, '1295.55', false, undefined],
    ['1,234,567.89', undefined, '1234567.89', false, undefined],
    ['-2.50', undefined, '2.50', true, undefined],
    ['\u22122.50', undefined, '2.50', true, undefined],
    ['2.50-', undefined, '2.50', true, undefined],
    ['(7.25)', undefined, '7.25', true, undefined],
    ['(฿7.25)', 'THB', '7.25', true, 'THB'],
    ['-฿1,281.33', 'THB', '1281.33', true, 'THB'],
    ['฿-1,281.33', 'THB', '1281.33', true, 'THB'],
    ['-20.50 ', undefined, '20.50', true, undefined],
    ['0.00', undefined, '0.00', false, undefined],
  ])('%j (row currency %s) reads as %s, negative %s, naming %s', (text, currency, decimal, negative, named) => {
    expect(read(text, currency)).toEqual({decimal, negative, ...(named ? {currency: named} : {})})
  })

  it.each([
    ['1.234,50', undefined, /ambiguous: a comma as the decimal mark/],
    ['1,23', undefined, /ambiguous/],
    ['12,5', undefined, /ambiguous/],
    ['1,2345', undefined, /not an amount/],
    ['12,34,567', undefined, /not an amount/],
    ['1 234.50', undefined, /not an amount/],
    ['฿100', 'MYR', /written in THB but the row is MYR/],
    ['RM 100', 'THB', /written in MYR but the row is THB/],
    ['¥100', 'AED', /written in JPY but the row is AED/],
    ['฿100 THB', undefined, /names its currency twice/],
    ['$100', undefined, /not an amount/],
    ['€100', undefined, /not an amount/],
    ['--5', undefined, /more than one minus sign/],
    ['(-5)', undefined, /more than one minus sign/],
    ['5%', undefined, /not an amount/],
    ['', undefined, /not an amount/],
    ['abc', undefined, /not an amount/],
    ['1e5', undefined, /not an amount/],
    ['.5', undefined, /not an amount/],
    ['=1+1', undefined, /not an amount/],
  ])('%j (row currency %s) is refused, saying what is allowed', (text, currency, why) => {
    expect(() => read(text, currency)).toThrow(why)
    expect(() => read(text, currency)).toThrow(/write digits with a point for decimals/)
  })

  it.each<[string, string | undefined, RegExp]>([
    ['1.234.567', undefined, /has dots between thousands \(1234567\)/],
    // A dot before exactly three digits: a German thousand, or a decimal point; never guessed.
    [
      '1.500',
      undefined,
      /"1.500" is ambiguous: 1500 with a dot between thousands .*, or 1.5 with a decimal point; gw does not guess: write 1500, or 1.50$/,
    ],
    [
      '2.000',
      'JPY',
      /"2.000" is ambiguous: 2000 with a dot between thousands .*, or 2 with a decimal point; gw does not guess: write 2000, or 2$/,
    ],
    ['฿1.500', 'THB', /"฿1.500" is ambiguous: 1500/],
    ['10.505', 'THB', /ambiguous: 10505 .* or 10.505 with a decimal point/],
  ])('%j (row currency %s) is refused with both readings and how to write each', (text, currency, why) => {
    expect(() => read(text, currency)).toThrow(why)
  })
})
