/**
 * Ordinary files read as the person meant, odd ones named for what they are (issue 44, item 5):
 * every case a file of its own, read by the refund file's reader before anything could be sent.
 */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {readRefundFile} from '../../../src/lib/refunds/bulk/refund-file.js'
import {REPO_ROOT, tempFile} from '../../helpers/shared.js'

const csv = (content: string, options: Parameters<typeof readRefundFile>[1] = {}) =>
  readRefundFile(tempFile('refunds.csv', content), options)
const problemsOf = (file: Awaited<ReturnType<typeof readRefundFile>>) => file.problems.map((p) => [p.line, p.message])
const fixture = (name: string) => join(REPO_ROOT, 'test/fixtures/shown', name)

describe('ordinary files, read', () => {
  it('="000141" (an id a spreadsheet keeps its zeros of) is 000141; any other stray quote is not CSV', async () => {
    const file = await csv('mch_order_no,refund_amount\n="000141",1.00\n')
    expect(file.rows.map((r) => r.order)).toEqual(['000141'])
    await expect(csv('mch_order_no,refund_amount\nAB"C,1.00\n')).rejects.toThrow(
      /line 2: not valid CSV \(a quote inside a field that does not start with one\)/,
    )
  })

  it('invisible characters around an order number are dropped; one inside it is named', async () => {
    const file = await csv('mch_order_no,refund_amount\n\u200bINV-1\ufeff,1.00\nINV\u200b-2,1.00\n')
    expect(file.rows[0]!.order).toBe('INV-1')
    expect(problemsOf(file)).toEqual([
      [3, expect.stringMatching(/^mch_order_no "INV\\u200B-2" holds an invisible character \(U\+200B\) inside it/)],
    ])
  })

  it('a French header is the header, not its first row: its columns are named with the --column that reads them', async () => {
    const file = await csv('N° de commande,Montant remboursé,Motif\nINV-1001,"50,00",client\n')
    expect(file.header.line).toBe(1)
    expect(file.hints).toEqual([
      `"N° de commande" looks like order numbers: --column mch_order_no='N° de commande'`,
      `"Montant remboursé" looks like amounts: --column refund_amount='Montant remboursé'`,
    ])
  })

  it('notes under the rows after a blank line are notes, not rows or problems', async () => {
    const file = await csv('mch_order_no,refund_amount\nINV-1,1.00\nINV-2,2.00\n\nPrepared by Somchai\nChecked 30/11\n')
    expect(file.problems).toEqual([])
    expect(file.rows.map((r) => r.order)).toEqual(['INV-1', 'INV-2'])
    expect(file.notes).toEqual([
      {line: 5, text: 'Prepared by Somchai'},
      {line: 6, text: 'Checked 30/11'},
    ])
  })

  it('refund_fee cells of 50.00 and 50 are the same 50 minor units', async () => {
    const file = await csv('mch_order_no,refund_fee\nINV-1,50.00\nINV-2,50\nINV-3,50.50\n')
    expect(file.rows.slice(0, 2).map((r) => r.request?.amount)).toEqual([{minor: 50}, {minor: 50}])
    expect(problemsOf(file)).toEqual([[4, expect.stringMatching(/is not a whole number of minor units/)]])
  })

  it("pandas' 370.34999999999997 is refused with the rounding to make", async () => {
    const file = await csv('mch_order_no,refund_amount,fee_type\nINV-1,370.34999999999997,THB\n')
    expect(problemsOf(file)).toEqual([
      [
        2,
        'refund_amount: THB has 2 decimal places; "370.34999999999997" has more: it looks like a number a program wrote in full (pandas, Python: 370.35); round it when exporting (df.round(2), or to_csv(float_format=\'%.2f\'))',
      ],
    ])
  })
})

describe('odd files, named for what they are, with the way out', () => {
  it('a file separated by bars: named, and read with --delimiter', async () => {
    await expect(csv('mch_order_no|refund_amount\nINV-1|1.00\n')).rejects.toThrow(
      /the file looks separated by \| \(bars\)/,
    )
    const file = await csv('mch_order_no|refund_amount\nINV-1|1.00\n', {delimiter: '|'})
    expect(file.rows.map((r) => r.order)).toEqual(['INV-1'])
  })

  it.each([
    ['refunds.libreoffice.fods', /it is a flat OpenDocument spreadsheet \(\.fods\)/],
    ['refunds.excel2003.handmade.xls', /it is Excel 2003's XML Spreadsheet/],
    ['refunds.html.libreoffice.xls', /it is an HTML page \(a table saved with a spreadsheet name/],
  ])('%s: %s', async (name, said) => {
    await expect(readRefundFile(fixture(name), {})).rejects.toThrow(said)
  })

  it('two columns under one header are named', async () => {
    await expect(csv('mch_order_no,refund_amount,refund_amount\nINV-1,1.00,2.00\n')).rejects.toThrow(
      /Columns named twice: refund_amount/,
    )
  })
})
