import {describe, expect, it} from 'vitest'

import {columnHints, resolveColumns} from '../../../src/lib/files/columns.js'

const FIELDS = ['mch_order_no', 'gw_order_no', 'amount', 'fee_type', 'status']

describe('columns', () => {
  it('are found by their field name in any case and spacing (line breaks and invisible characters too); the others are ignored', () => {
    const columns = resolveColumns([' MCH_Order_No ', 'Customer', 'Amount\u200b', ''], FIELDS)
    expect([...columns.index]).toEqual([
      ['mch_order_no', 0],
      ['amount', 2],
    ])
    expect(columns.ignored).toEqual(['Customer'])
    const wrapped = resolveColumns(['mch_order_no', 'Refund\nAmount  (THB)'], FIELDS, ['amount=refund amount (THB)'])
    expect(wrapped.index.get('amount')).toBe(1)
  })

  it('are mapped with FIELD=HEADER; a field mapped elsewhere leaves its own column ignored', () => {
    const columns = resolveColumns(['Invoice No', 'amount', 'Amount (THB)'], FIELDS, [
      'mch_order_no=invoice no',
      'AMOUNT = Amount (THB)',
    ])
    expect([...columns.index]).toEqual([
      ['mch_order_no', 0],
      ['amount', 2],
    ])
    expect(columns.ignored).toEqual(['amount'])
  })

  it('refuse a mapping that is malformed, names no field read here, or no column of the file', () => {
    const names = ['Invoice No', 'Total']
    expect(() => resolveColumns(names, FIELDS, ['Invoice No'])).toThrow(/write it as FIELD=HEADER/)
    expect(() => resolveColumns(names, FIELDS, ['refund_fee=Total'])).toThrow(/"refund_fee" is not a field read here/)
    expect(() => resolveColumns(names, FIELDS, ['amount=Totl'])).toThrow(/the file has no column "Totl"/)
    expect(() => resolveColumns(names, FIELDS, ['amount=Total', 'amount=Total'])).toThrow(/given twice/)
    expect(() => resolveColumns(names, FIELDS, ['mch_order_no=Total', 'amount=Total'])).toThrow(
      /given for both mch_order_no and amount/,
    )
  })

  it('refuse a field whose column appears twice', () => {
    expect(() => resolveColumns(['mch_order_no', 'Amount', 'amount '], FIELDS)).toThrow(/Columns named twice: amount/)
    expect(() => resolveColumns(['Total', 'total'], FIELDS, ['amount=Total'])).toThrow(/2 columns named "Total"/)
  })

  it('hint at the --column for an ignored column that looks like a field the file lacks, Thai names too', () => {
    const columns = resolveColumns(['เลขที่ใบสั่ง', 'Total', 'Currency', 'สถานะ', 'Customer'], FIELDS)
    expect(columnHints(columns, FIELDS, [['mch_order_no', 'gw_order_no']])).toEqual([
      `"เลขที่ใบสั่ง" looks like order numbers: --column mch_order_no='เลขที่ใบสั่ง'`,
      '"Total" looks like amounts: --column amount=Total',
      '"Currency" looks like currencies: --column fee_type=Currency',
      `"สถานะ" looks like states: --column status='สถานะ'`,
    ])
    const withAmount = resolveColumns(['mch_order_no', 'amount', 'Total'], FIELDS)
    expect(columnHints(withAmount, FIELDS)).toEqual([])
  })
})

describe('a header of many columns', () => {
  it('25,000 ignored columns, many sharing a name, are read in linear time (no quadratic pass)', () => {
    const names = ['mch_order_no', 'amount', ...Array.from({length: 25_000}, (_, i) => `Total ${i % 2 ? i : 0}`)]
    const columns = resolveColumns(names, ['mch_order_no', 'amount', 'refund_amount'])
    expect(columns.ignored).toHaveLength(25_000)
    // Every other column is named "Total 0": no hint for a name shared; one for each of the others.
    expect(columnHints(columns, ['mch_order_no', 'amount', 'refund_amount'])).toHaveLength(12_500)
  })
})
