import {describe, expect, it} from 'vitest'

import {formatNumber} from '../../../src/lib/files/number-format.js'
import {
  isDateFormat,
  isPercentFormat,
  numberCell,
  numberStyle,
  serialDate,
} from '../../../src/lib/files/workbook-cells.js'

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

  it('literal text, zero padding, currency symbols, percentages, and a negative keeps its sign whatever its section shows', () => {
    expect(formatNumber(1, '"INV-"0')).toBe('INV-1')
    expect(formatNumber(2, '000000')).toBe('000002')
    expect(formatNumber(42, '\\#0')).toBe('#42')
    expect(formatNumber(1234.5, '[$฿-41E]#,##0.00')).toBe('฿1234.50')
    expect(formatNumber(1234.5, '"฿"#,##0.00;[Red]-"฿"#,##0.00')).toBe('฿1234.50')
    expect(formatNumber(-1234.5, '"฿"#,##0.00;[Red]-"฿"#,##0.00')).toBe('-฿1234.50')
    expect(formatNumber(-7, '0;(0)')).toBe('-7')
    expect(formatNumber(-1281.33, '#,##0.00;[RED]#,##0.00')).toBe('-1281.33')
    expect(formatNumber(0.053, '0.0%')).toBe('5.3%')
    expect(formatNumber(12, '0 "pcs"')).toBe('12 pcs')
    expect(formatNumber(3, '@')).toBe('3')
  })
})

describe('a workbook cell by its value', () => {
  it('a number cell is the double it stores, to the 15 digits a spreadsheet shows, whatever its notation', () => {
    const valueOf = (raw: string) => numberCell(raw, undefined).note
    expect(valueOf('-1281.33')).toEqual({kind: 'number', value: '-1281.33'})
    expect(valueOf('1.5E-2')).toEqual({kind: 'number', value: '0.015'})
    expect(valueOf('20.50')).toEqual({kind: 'number', value: '20.5'})
    expect(valueOf('-0')).toEqual({kind: 'number', value: '0'})
    // Gnumeric writes every number in full: 12.34 is the double nearest 12.34, as spreadsheets show it.
    expect(valueOf('12.3400000000000000001')).toEqual({kind: 'number', value: '12.34'})
    expect(valueOf('286.359999999999999987')).toEqual({kind: 'number', value: '286.36'})
    // A sum's float noise, as Excel stores it, is what every spreadsheet shows; a real third decimal stays.
    expect(valueOf('0.30000000000000004')).toEqual({kind: 'number', value: '0.3'})
    expect(valueOf('12.345')).toEqual({kind: 'number', value: '12.345'})
    expect(valueOf('1.2345678901234568E+22')).toEqual({kind: 'number', value: '12345678901234600000000'})
    expect(numberCell('abc', undefined)).toEqual({text: 'abc'})
    expect(numberCell('1E+400', undefined)).toEqual({text: '1E+400'})
  })

  it('tells dates and percentages by their format, not by colours, currencies or literal text', () => {
    for (const date of ['yyyy-mm-dd', 'd/m/yy h:mm', '[$-41E]d mmmm yyyy', 'h:mm:ss', '[h]:mm'])
      expect(isDateFormat(date)).toBe(true)
    for (const number of ['#,##0.00;[RED]#,##0.00', '[$฿-41E]#,##0.00', '"Days "0', '0.00E+00', '_-* #,##0.00_-'])
      expect(isDateFormat(number)).toBe(false)
    expect(isPercentFormat('0.00%')).toBe(true)
    expect(isPercentFormat('0.00"%"')).toBe(false)
    expect(serialDate(46_346).toISOString()).toBe('2026-11-20T00:00:00.000Z')
    expect(serialDate(46_346.5, false).toISOString()).toBe('2026-11-20T12:00:00.000Z')
  })

  it('a number cell keeps its stored value beside its shown text; a percentage and a date are marked', () => {
    expect(numberCell('-1281.33', numberStyle(164, '#,##0.00;[RED]#,##0.00'))).toMatchObject({
      text: '-1281.33',
      note: {kind: 'number', value: '-1281.33'},
    })
    expect(numberCell('1267.11', numberStyle(165, '[$฿-41E]#,##0.00'))).toMatchObject({
      text: '฿1267.11',
      note: {kind: 'number', value: '1267.11'},
    })
    expect(numberCell('0.25', numberStyle(10, undefined)).note).toEqual({kind: 'percent', value: '0.25'})
    expect(numberCell('46346', numberStyle(14, undefined))).toMatchObject({text: '2026-11-20', note: {kind: 'date'}})
    expect(numberCell('-1281.33', numberStyle(164, '#,##0.00;[RED]#,##0.00')).typed).toEqual({
      typed: -1281.33,
      numFmt: '#,##0.00;[RED]#,##0.00',
    })
    expect(numberCell('90020261121093015000001', undefined).inexact).toBe(true)
  })
})
