import {describe, expect, it} from 'vitest'

import {
  type AmountContext,
  CurrencyMismatch,
  currencyOfHeader,
  readAmountText,
} from '../../src/lib/gateway/protocol/index.js'

const read = (text: string, currency?: string, context?: AmountContext) => readAmountText(text, currency, context)
/** The reading as [decimal, negative, currency named, mark shown]. */
const reading = (text: string, currency?: string, context?: AmountContext) => {
  const r = read(text, currency, context)
  return [r.decimal, r.negative, r.currency, r.mark]
}

describe('the amount rule: amounts as people type them and spreadsheets export them', () => {
  it.each([
    ['150.50', undefined, '150.50', false, undefined, 'point'],
    ['1267.11', 'THB', '1267.11', false, undefined, 'point'],
    ['1,267.11', 'THB', '1267.11', false, undefined, 'point'],
    ['฿1,281.33', 'THB', '1281.33', false, 'THB', 'point'],
    ['1,281.33 ฿', undefined, '1281.33', false, 'THB', 'point'],
    ['THB 100', undefined, '100', false, 'THB', undefined],
    ['100.00 thb', undefined, '100.00', false, 'THB', 'point'],
    ['AED 1,295.55', 'AED', '1295.55', false, 'AED', 'point'],
    ['1,295.55 د.إ', 'AED', '1295.55', false, 'AED', 'point'],
    ['RM 10.50', 'MYR', '10.50', false, 'MYR', 'point'],
    ['\u00a01,295.55\u00a0', undefined, '1295.55', false, undefined, 'point'],
    ['1,234,567.89', undefined, '1234567.89', false, undefined, 'point'],
    ['1,234,567', undefined, '1234567', false, undefined, 'point'],
    ['-2.50', undefined, '2.50', true, undefined, 'point'],
    ['\u22122.50', undefined, '2.50', true, undefined, 'point'],
    ['2.50-', undefined, '2.50', true, undefined, 'point'],
    ['(฿7.25)', 'THB', '7.25', true, 'THB', 'point'],
    ['฿-1,281.33', 'THB', '1281.33', true, 'THB', 'point'],
    ['0.00', undefined, '0.00', false, undefined, 'point'],
    ['4570', 'JPY', '4570', false, undefined, undefined],
  ])(
    '%j (row currency %s) reads as %s, negative %s, naming %s, showing a decimal %s',
    (text, currency, ...expected) => {
      expect(reading(text, currency)).toEqual(expected)
    },
  )

  it.each([
    // A decimal comma, where the text cannot be read otherwise (a thousands group has three digits).
    ['12,34', '12.34', 'comma'],
    ['1,5', '1.5', 'comma'],
    ['1.234,50', '1234.50', 'comma'],
    ['1 500,00', '1500.00', 'comma'],
    ['1\u00a0500,00', '1500.00', 'comma'],
    ['1\u202f500,00', '1500.00', 'comma'],
    ['1.234.567', '1234567', 'comma'],
    ['1,2345', '1.2345', 'comma'],
    ['1.500,00 €'.replace(' €', ''), '1500.00', 'comma'],
    // Groupings people type, validated: Swiss, Indian lakh, spaces.
    ["1'500.00", '1500.00', 'point'],
    ['1’500.00', '1500.00', 'point'],
    ['1,50,000.00', '150000.00', 'point'],
    ['12,34,567', '1234567', 'point'],
    ['1 500.00', '1500.00', 'point'],
    ['1 500', '1500', undefined],
    ["1'500", '1500', 'point'],
    // A leading point, a leading plus, currency words, full-width digits and signs (NFKC).
    ['.30', '0.30', 'point'],
    ['+1,500.00', '1500.00', 'point'],
    ['1,500.00 บาท', '1500.00', 'point'],
    ['￥１，５００．００', '1500.00', 'point'],
  ])('%j reads as %s, showing a decimal %s', (text, decimal, mark) => {
    const r = read(text)
    expect([r.decimal, r.mark]).toEqual([decimal, mark])
    expect(r.negative).toBe(false)
  })

  it('reads the currency its word or full-width sign names', () => {
    expect(read('1,500.00 บาท').currency).toBe('THB')
    expect(read('１，５００円', undefined, {mark: 'point'})).toMatchObject({decimal: '1500', currency: 'JPY'})
    expect(read('￥1,500.00').currency).toBe('JPY')
  })

  it('reads a backslash before an amount as the yen sign only in Shift_JIS text', () => {
    expect(read('\\1,500', undefined, {yen: true, mark: 'point'})).toMatchObject({decimal: '1500', currency: 'JPY'})
    expect(() => read('\\1,500')).toThrow(/is not an amount/)
  })

  it.each([
    ['1,500', '1500', '1.500'],
    ['1.500', '1.500', '1500'],
    ['82,305', '82305', '82.305'],
    ['2.000', '2.000', '2000'],
  ])('%j reads two ways: alone it is refused with both readings; its column settles it', (text, asPoint, asComma) => {
    expect(() => read(text)).toThrow(
      `"${text}" reads two ways: ${asPoint} with a decimal point, or ${asComma} with a decimal comma, and no amount of its column shows which mark it uses: give --decimal-mark point or --decimal-mark comma`,
    )
    expect(read(text, undefined, {mark: 'point'}).decimal).toBe(asPoint)
    expect(read(text, undefined, {mark: 'comma'}).decimal).toBe(asComma)
  })

  it('refuses a text whose only reading is with the other mark than its column', () => {
    expect(() => read('12,34', undefined, {mark: 'point', by: 'line 3 shows it: "1,234.50"'})).toThrow(
      `"12,34" is written with a decimal comma, but its column's decimal mark is a point (line 3 shows it: "1,234.50"): check which is meant`,
    )
  })

  it.each([
    ['1,5000.00', /the grouping 1,5000, which is neither thousands \(groups of three digits\) nor Indian lakh/],
    [
      '15,00,00.00',
      /the grouping 15,00,00, which is neither thousands .* nor Indian lakh \(1,50,000: a group of three, then twos\)/,
    ],
    ['1 50.00', /the grouping 1 50, which is neither thousands \(groups of three digits\)/],
    ["1'500,00", /has an apostrophe between digits, which does not group them with a decimal comma/],
    ['1,234.567,8', /has more than one/],
    ['1.234,567.8', /has more than one/],
    ['฿100 THB', /names its currency twice/],
    ['--5', /has more than one sign or parentheses/],
    ['+-5', /has more than one sign or parentheses/],
    ['(-5)', /has more than one sign or parentheses/],
    ['5%', /is not an amount/],
    ['', /is not an amount/],
    ['1e5', /is not an amount/],
    ['=1+1', /is not an amount/],
    ['1500.', /ends in its decimal mark/],
    // A footnote mark after an amount is no digit of it (NFKC would read 150¹ as 1501).
    ['150¹', /has "¹", a superscript, circled or fraction number, which is no digit of an amount/],
    ['15²', /has "²"/],
    ['150⁰⁰', /has "⁰"/],
    ['㊿', /has "㊿"/],
    ['1½', /has "½"/],
  ])('%j is refused, naming what is wrong and what is allowed', (text, why, currency?: string) => {
    expect(() => read(text, currency)).toThrow(why)
    expect(() => read(text, currency)).toThrow(/write digits with a decimal point or comma/)
  })

  it.each([
    ['฿100', 'MYR', /"฿100" is written in THB but the row is MYR/],
    [
      '$100',
      undefined,
      /"\$100" is written in a dollar \(\$\), which the gateway does not take \(THB, MYR, JPY, AED\)/,
    ],
    ['US$12.50', 'THB', /is written in USD, which the gateway does not take .*; the row is THB/],
    ['€5.00', undefined, /is written in EUR/],
    ['12.50 GBP', undefined, /is written in GBP/],
    ['CN¥100', 'JPY', /is written in CNY/],
    ['¥1,000', 'THB', /is written in JPY but the row is THB/],
  ])('%j (row %s) is written in another currency: refused naming both', (text, currency, why) => {
    expect(() => read(text, currency)).toThrow(CurrencyMismatch)
    expect(() => read(text, currency)).toThrow(why)
  })

  it.each([
    // A currency without minor units has no decimal mark: its grouping reads one way only.
    ['1,500', 'JPY', '1500', undefined],
    ['１，５００', 'JPY', '1500', undefined],
    ['￥２，０００', undefined, '2000', 'JPY'],
    ['1.500', 'JPY', '1500', undefined],
    // Thai, Arabic-Indic digits and the Arabic marks; currency words in English.
    ['๑,๕๐๐.๐๐', 'THB', '1500.00', undefined],
    ['٥٠٫٢٥', 'AED', '50.25', undefined],
    ['50 baht', undefined, '50', 'THB'],
    ['50 บาท', undefined, '50', 'THB'],
    ['RM50', undefined, '50', 'MYR'],
  ])('%j (row %s) reads as %s, naming %s', (text, currency, decimal, named) => {
    const r = read(text, currency)
    expect([r.decimal, r.currency]).toEqual([decimal, named])
  })

  it('a code inside a word is not a currency: FORM is no RM', () => {
    expect(() => read('FORM 5')).toThrow(/is not an amount/)
  })
})

describe('the currency a header names', () => {
  it.each([
    ['Refund (JPY)', 'JPY'],
    ['Amount THB', 'THB'],
    ['ยอดคืน (บาท)', 'THB'],
    ['金額(円)', 'JPY'],
    ['Refund in US$', 'USD'],
    ['Refund (฿)', 'THB'],
    ['Amount (RM)', 'MYR'],
    ['refund_amount', undefined],
    ['Refund (THB or MYR)', undefined],
    ['Form amount', undefined],
  ])('%j names %s', (header, currency) => {
    expect(currencyOfHeader(header)?.currency).toBe(currency)
  })
})
