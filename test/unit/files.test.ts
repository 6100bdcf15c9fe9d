import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {AnnotatedWriter, besideInput, spreadsheetSafe} from '../../src/lib/files/annotated-output.js'
import {Tally} from '../../src/lib/files/tally.js'
import {openTable} from '../../src/lib/files/table.js'
import {tempDir, tempFile} from '../helpers/shared.js'

describe('tables', () => {
  it('give each row the line it starts on, across CRLF, CR and quoted new lines', async () => {
    const table = await openTable(tempFile('t.csv', 'a,b\r\n1,"x\r\ny"\r2,z\n\n3,w\n'))
    const rows = []
    for await (const row of table.rows) rows.push([row.line, row.get('a'), row.get('b')])
    expect(table.header).toEqual({names: ['a', 'b'], keys: ['a', 'b']})
    expect(rows).toEqual([
      [2, '1', 'x\ny'],
      [4, '2', 'z'],
      [6, '3', 'w'],
    ])
  })

  it('match headers by name in any case, ignoring surrounding spaces', async () => {
    const table = await openTable(tempFile('t.csv', ' MCH_Order_No ,Other\nA,B\n'))
    for await (const row of table.rows)
      expect([row.get('mch_order_no'), row.has('other'), row.get('missing')]).toEqual(['A', true, ''])
  })
})

describe('annotated output', () => {
  it('is every input column plus ours; one of ours the input has is filled in place', async () => {
    const table = await openTable(tempFile('in.csv', 'order,STATUS,note\nA,old,n1\n'))
    const out = join(tempDir(), 'out.csv')
    const writer = new AnnotatedWriter(out, table.header, ['status', 'detail'] as const)
    for await (const row of table.rows) await writer.write(row.values, {status: 'new', detail: 'why'})
    await writer.close()
    expect(readFileSync(out, 'utf8')).toBe('order,STATUS,note,detail\nA,new,n1,why\n')
  })

  it('is not there until closed, and not at all when aborted', async () => {
    const table = await openTable(tempFile('in.csv', 'a\n1\n'))
    const out = join(tempDir(), 'out.csv')
    const writer = new AnnotatedWriter(out, table.header, ['x'] as const)
    await writer.write(['1'], {x: 2})
    await writer.abort()
    expect(() => readFileSync(out)).toThrow()
  })

  it('goes beside the input by default', () => {
    expect(besideInput('/data/orders-2026.csv', '.reconciled.csv')).toBe('/data/orders-2026.reconciled.csv')
  })
})

describe('tally', () => {
  it('counts rows and sums amounts per group and currency, in the given group order', () => {
    const tally = new Tally<'match' | 'amount_mismatch'>()
    tally.add('amount_mismatch', 'THB', 100)
    tally.add('match', 'THB', 5)
    tally.add('match', 'THB', 7)
    tally.add('match', undefined, undefined)
    expect(tally.lines(['match', 'amount_mismatch'])).toEqual([
      {group: 'match', currency: '?', rows: 1, amount: 0},
      {group: 'match', currency: 'THB', rows: 2, amount: 12},
      {group: 'amount_mismatch', currency: 'THB', rows: 1, amount: 100},
    ])
  })
})

describe('spreadsheet-safe cells', () => {
  it('neutralise text a spreadsheet would read as a formula, and leave numbers and other text alone', () => {
    for (const formula of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
      expect(spreadsheetSafe(formula)).toBe(`'${formula}`)
    for (const text of ['INV-1', 'a=b', '', ' =x']) expect(spreadsheetSafe(text)).toBe(text)
    expect(spreadsheetSafe(-5)).toBe('-5')
    expect(spreadsheetSafe(undefined)).toBe('')
  })
})
