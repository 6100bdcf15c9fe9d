import {describe, expect, it} from 'vitest'

import {numberFormat, showNumber} from '../../../src/lib/files/shown-number.js'
import {numberCell, serialDate} from '../../../src/lib/files/workbook-cells.js'

describe('a workbook number as its spreadsheet shows it (numfmt)', () => {
  it('General: whole numbers in full, others as Excel shows them in a cell of 11 characters', () => {
    expect(showNumber(106.5)).toBe('106.5')
    expect(showNumber(0.1 + 0.2)).toBe('0.3')
    expect(showNumber(12.3400000000001)).toBe('12.34')
    expect(showNumber(12345678901234)).toBe('12345678901234')
    expect(showNumber(-2.5, 'General')).toBe('-2.5')
    expect(showNumber(7, '@')).toBe('7')
  })

  it('decimals rounded as Excel rounds them (1.005 with two decimals is 1.01), thousands grouped', () => {
    expect(showNumber(106.5, '#,##0.00')).toBe('106.50')
    expect(showNumber(1.005, '0.00')).toBe('1.01')
    expect(showNumber(2.675, '0.00')).toBe('2.68')
    expect(showNumber(100.5, '0')).toBe('101')
    expect(showNumber(1234.4, '#,##0')).toBe('1,234')
    expect(showNumber(1.5, '0.0#')).toBe('1.5')
    expect(showNumber(1.257, '0.0#')).toBe('1.26')
  })

  it('what a format hides or scales is what the cell shows: trailing commas, ;;;, words, literals, negative sections', () => {
    expect(showNumber(1_500_000, '#,##0,')).toBe('1,500')
    expect(showNumber(25_000, '#,##0.00,')).toBe('25.00')
    expect(showNumber(1500, ';;;')).toBe('')
    expect(showNumber(5000, '"see note"')).toBe('see note')
    expect(showNumber(5000, '"50.00"')).toBe('50.00')
    expect(showNumber(-1281.33, '#,##0.00;[RED]#,##0.00')).toBe('1,281.33')
    expect(showNumber(-7, '0;(0)')).toBe('(7)')
    expect(showNumber(0, '#,##0.00;(#,##0.00);"-"')).toBe('-')
    expect(showNumber(1500, '[>=1000]#,##0,"K";0')).toBe('2K')
  })

  it('literal text, padding, currencies as the code writes them (the locale of [$€-407] does not regroup)', () => {
    expect(showNumber(1, '"INV-"0')).toBe('INV-1')
    expect(showNumber(2, '000000')).toBe('000002')
    expect(showNumber(1234.5, '[$฿-41E]#,##0.00')).toBe('฿1,234.50')
    expect(showNumber(1500, '[$€-407]#,##0.00')).toBe('€1,500.00')
    expect(showNumber(12.5, '[$US$-409]#,##0.00')).toBe('US$12.50')
    expect(showNumber(1500, '[$USD] #,##0.00')).toBe('USD 1,500.00')
    expect(showNumber(0.053, '0.0%')).toBe('5.3%')
    expect(showNumber(12, '0 "pcs"')).toBe('12 pcs')
  })

  it("Excel's built-in formats by id; the currency ones the standard leaves to the machine are marked", () => {
    expect(numberFormat(4, undefined)).toEqual({code: '#,##0.00'})
    expect(numberFormat(10, undefined)).toEqual({code: '0.00%', kind: 'percent'})
    expect(numberFormat(14, undefined).kind).toBe('date')
    expect(numberFormat(7, undefined).localeCurrency).toBe(7)
    expect(numberFormat(44, undefined).localeCurrency).toBe(44)
    expect(numberFormat(164, '#,##0.00')).toEqual({code: '#,##0.00'})
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
      expect(numberFormat(164, date).kind).toBe('date')
    for (const number of ['#,##0.00;[RED]#,##0.00', '[$฿-41E]#,##0.00', '"Days "0', '0.00E+00', '_-* #,##0.00_-'])
      expect(numberFormat(164, number).kind).toBeUndefined()
    expect(numberFormat(164, '0.00%').kind).toBe('percent')
    expect(numberFormat(164, '0.00"%"').kind).toBeUndefined()
    expect(serialDate(46_346).toISOString()).toBe('2026-11-20T00:00:00.000Z')
    expect(serialDate(46_346.5, false).toISOString()).toBe('2026-11-20T12:00:00.000Z')
  })

  it('a number cell keeps its stored value beside its shown text; a percentage and a date are marked', () => {
    // A red negative shown without its minus: the text is what the sheet shows; the value what it holds.
    expect(numberCell('-1281.33', numberFormat(164, '#,##0.00;[RED]#,##0.00'))).toMatchObject({
      text: '1,281.33',
      note: {kind: 'number', value: '-1281.33', format: '#,##0.00;[RED]#,##0.00'},
    })
    expect(numberCell('1267.11', numberFormat(165, '[$฿-41E]#,##0.00'))).toMatchObject({
      text: '฿1,267.11',
      note: {kind: 'number', value: '1267.11'},
    })
    expect(numberCell('0.25', numberFormat(10, undefined)).note).toEqual({kind: 'percent', value: '0.25'})
    expect(numberCell('46346', numberFormat(14, undefined))).toMatchObject({text: '2026-11-20', note: {kind: 'date'}})
    expect(numberCell('5', numberFormat(7, undefined)).note).toMatchObject({
      kind: 'number',
      unrenderable: expect.stringMatching(/built-in currency format 7, whose symbol and shape depend on the computer/),
    })
    expect(numberCell('-1281.33', numberFormat(164, '#,##0.00;[RED]#,##0.00')).typed).toEqual({
      typed: -1281.33,
      numFmt: '#,##0.00;[RED]#,##0.00',
    })
    expect(numberCell('90020261121093015000001', undefined).inexact).toBe(true)
  })
})
