/** The finance fixtures as each producer wrote them (test/fixtures/finance/README.md), read cell by cell by value. */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {readWorkbook} from '../../../src/lib/files/workbook-reader.js'
import type {WorkbookRecord} from '../../../src/lib/files/workbook-rows.js'
import {REPO_ROOT} from '../../helpers/shared.js'

const fixture = (name: string) => join(REPO_ROOT, 'test/fixtures/finance', name)
const WORKBOOKS = ['finance.openpyxl.xlsx', 'finance.libreoffice.xlsx', 'finance.ods']

async function read(name: string, sheet?: string) {
  const book = await readWorkbook(fixture(name), sheet)
  const rows: WorkbookRecord[] = []
  for await (const row of book.records) rows.push(row)
  return {...book, rows}
}

describe.each(WORKBOOKS)('%s', (name) => {
  it('the first visible sheet is the default (the hidden "Old", stored first, never is); its rows by value', async () => {
    const book = await read(name)
    expect(book.sheet).toBe('Sheet')
    expect(book.sheets).toEqual(['Sheet', 'Refunds', 'Negatives', 'Formulas', 'Percent'])
    expect(book.rows.map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(book.rows[0]!.record[0]).toBe('Sales November 2026')
    expect(book.rows[1]!.record).toEqual(['Invoice No', 'Customer', 'Amount', 'Status'])
    expect(book.rows[2]!.record.slice(0, 2)).toEqual(['FIN-1', 'สมชาย ใจดี'])
    expect(book.rows.slice(2).map((r) => r.notes?.[2])).toMatchObject(
      ['1267.11', '1281.33', '1295.55', '20.5', '3864.49'].map((value) => ({kind: 'number', value})),
    )
    expect(book.rows[6]!.record[0]).toBe('รวม (Total)')
  })

  it('--sheet names any sheet, in any case; negatives stay negative whatever their format', async () => {
    expect((await read(name, 'sheet')).sheet).toBe('Sheet')
    const negatives = await read(name, 'Negatives')
    expect(negatives.rows.slice(2).map((r) => r.notes?.[1])).toMatchObject(
      ['-1281.33', '-2.5', '-20.5', '-7.25', '0'].map((value) => ({kind: 'number', value})),
    )
    // What each negative shows is its format's: a minus, parentheses, or a red number without either.
    expect(negatives.rows.slice(2, 6).every((r) => Number((r.notes?.[1] as {value: string}).value) < 0)).toBe(true)
    const percent = await read(name, 'Percent')
    expect(percent.rows[1]!.notes?.[1]).toEqual({kind: 'percent', value: '0.25'})
    await expect(read(name, 'Nope')).rejects.toThrow(/has no sheet named "Nope"; its sheets are: "Sheet", "Refunds"/)
  })
})

it('formulas xlsxwriter stored with a placeholder 0 in a workbook to be calculated when opened are marked with their addresses, never read as 0', async () => {
  const {rows} = await read('formulas.xlsxwriter.xlsx')
  expect(rows[1]!.notes?.[1]).toEqual({kind: 'number', value: '10.5'})
  expect(rows[2]!.record).toEqual(['', '', ''])
  expect([0, 1, 2].map((at) => rows[2]!.notes?.[at])).toEqual(
    ['A3', 'B3', 'C3'].map((address) => ({kind: 'formula', address})),
  )
  expect(rows[3]!.notes?.[1]).toEqual({kind: 'formula', address: 'B4'})
})

it('a formula openpyxl stored without its result is marked with its address; LibreOffice stored the result', async () => {
  expect((await read('finance.openpyxl.xlsx', 'Formulas')).rows[1]!.notes?.[1]).toEqual({
    kind: 'formula',
    address: 'B2',
  })
  expect((await read('finance.libreoffice.xlsx', 'Formulas')).rows[1]!.notes?.[1]).toEqual({
    kind: 'number',
    value: '10',
  })
})

describe("November's refunds as Gnumeric and LibreOffice saved them (november.py)", () => {
  it.each(['november.gnumeric.xlsx', 'november.gnumeric.ods', 'november.libreoffice.xlsx'])(
    '%s: each amount is the number shown, its computed total too (Gnumeric stores 12.34 as 12.3400000000000000001)',
    async (name) => {
      const book = await read(name)
      expect(book.rows.slice(2).map((r) => r.notes?.[1])).toMatchObject(
        ['1267.11', '12.34', '1281.33', '286.36', '2847.14'].map((value) => ({kind: 'number', value})),
      )
      expect((await read(name, 'Decimals')).rows[1]!.notes?.[1]).toMatchObject({kind: 'number', value: '12.345'})
    },
  )
})
