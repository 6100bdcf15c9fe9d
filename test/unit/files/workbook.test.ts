import {describe, expect, it} from 'vitest'

import {formatNumber} from '../../../src/lib/files/number-format.js'
import {cellText} from '../../../src/lib/files/workbook-reader.js'

describe('a workbook number as its format shows it', () => {
  it('General: no float noise, no exponent, whole numbers in full', () => {
    expect(formatNumber(106.5)).toBe('106.5')
    expect(formatNumber(0.1 + 0.2)).toBe('0.3')
    expect(formatNumber(12345678901234)).toBe('12345678901234')
    expect(formatNumber(1e22)).toBe('10000000000000000000000')
    expect(formatNumber(1e-7)).toBe('0.0000001')
    expect(formatNumber(-2.5, 'General')).toBe('-2.5')
  })

  it('decimals rounded as Excel rounds them (1.005 with two decimals is 1.01), none for 0 and #,##0', () => {
    expect(formatNumber(106.5, '#,##0.00')).toBe('106.50')
    expect(formatNumber(1.005, '0.00')).toBe('1.01')
    expect(formatNumber(2.675, '0.00')).toBe('2.68')
    expect(formatNumber(100.5, '0')).toBe('101')
    expect(formatNumber(1234.4, '#,##0')).toBe('1234')
    expect(formatNumber(1e22, '0.00')).toBe('10000000000000000000000.00')
    expect(formatNumber(-0.004, '0.00')).toBe('0.00')
    expect(formatNumber(1.5, '0.0#')).toBe('1.5')
    expect(formatNumber(1.257, '0.0#')).toBe('1.26')
  })

  it('literal text, zero padding, currency symbols, percentages, and a negative section', () => {
    expect(formatNumber(1, '"INV-"0')).toBe('INV-1')
    expect(formatNumber(2, '000000')).toBe('000002')
    expect(formatNumber(42, '\\#0')).toBe('#42')
    expect(formatNumber(1234.5, '[$฿-41E]#,##0.00')).toBe('฿1234.50')
    expect(formatNumber(1234.5, '"฿"#,##0.00;[Red]-"฿"#,##0.00')).toBe('฿1234.50')
    expect(formatNumber(-1234.5, '"฿"#,##0.00;[Red]-"฿"#,##0.00')).toBe('-฿1234.50')
    expect(formatNumber(-7, '0;(0)')).toBe('(7)')
    expect(formatNumber(0.053, '0.0%')).toBe('5.3%')
    expect(formatNumber(12, '0 "pcs"')).toBe('12 pcs')
    expect(formatNumber(3, '@')).toBe('3')
  })
})

describe('a workbook cell as the text a person sees', () => {
  it('dates as ISO dates, with the time when there is one; text kinds as their text', () => {
    expect(cellText(new Date(Date.UTC(2026, 10, 20)))).toBe('2026-11-20')
    expect(cellText(new Date(Date.UTC(2026, 10, 20, 14, 3, 5)))).toBe('2026-11-20 14:03:05')
    expect(cellText(106.5, '#,##0.00')).toBe('106.50')
    expect(cellText({richText: [{text: 'ก'}, {text: 'ข'}]})).toBe('กข')
    expect(cellText({formula: 'B2*2', result: 213})).toBe('213')
    expect(cellText({formula: 'B2/0', result: {error: '#DIV/0!'}} as never)).toBe('#DIV/0!')
    expect(cellText({text: 'link', hyperlink: 'https://x'})).toBe('link')
    expect(cellText({error: '#N/A'} as never)).toBe('#N/A')
    expect(cellText(true)).toBe('TRUE')
    expect(cellText(null)).toBe('')
  })
})
