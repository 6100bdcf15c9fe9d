import {describe, expect, it} from 'vitest'

import {cellText} from '../../../src/lib/files/workbook-records.js'

describe('a workbook cell as the text a person sees', () => {
  it('numbers: no float noise, no exponent, whole numbers in full, the decimals their format shows', () => {
    expect(cellText(106.5)).toBe('106.5')
    expect(cellText(0.1 + 0.2)).toBe('0.3')
    expect(cellText(12345678901234)).toBe('12345678901234')
    expect(cellText(1e22)).toBe('10000000000000000000000')
    expect(cellText(1e-7)).toBe('0.0000001')
    expect(cellText(106.5, '#,##0.00')).toBe('106.50')
    expect(cellText(1234.5, '"฿"#,##0.00;[Red]-"฿"#,##0.00')).toBe('1234.50')
    expect(cellText(7, '0')).toBe('7')
  })

  it('dates as ISO dates, with the time when there is one; text kinds as their text', () => {
    expect(cellText(new Date(Date.UTC(2026, 10, 20)))).toBe('2026-11-20')
    expect(cellText(new Date(Date.UTC(2026, 10, 20, 14, 3, 5)))).toBe('2026-11-20 14:03:05')
    expect(cellText({richText: [{text: 'ก'}, {text: 'ข'}]})).toBe('กข')
    expect(cellText({formula: 'B2*2', result: 213})).toBe('213')
    expect(cellText({text: 'link', hyperlink: 'https://x'})).toBe('link')
    expect(cellText({error: '#N/A'} as never)).toBe('#N/A')
    expect(cellText(true)).toBe('TRUE')
    expect(cellText(null)).toBe('')
  })
})
