/**
 * Issue 37's files, made by the producers themselves (test/fixtures/sheets, its README says how):
 * what gw reads of each, and what it stops on, before anything could be sent.
 */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {type RefundFile, readRefundFile} from '../../../src/lib/refunds/bulk/refund-file.js'
import {REPO_ROOT} from '../../helpers/shared.js'

const fixture = (name: string) => join(REPO_ROOT, 'test', 'fixtures', 'sheets', name)
const columns = (currency: string) => ['mch_order_no=Invoice No', `refund_amount=Refund (${currency})`]

/** Each row as [line, order, the amount it asks for or its problems], and the totals and rows left out. */
function outcome(file: RefundFile) {
  const problems = (line: number) =>
    file.problems
      .filter((p) => p.line === line)
      .map((p) => p.message)
      .join('; ')
  const rows = file.rows.map((r) => {
    const amount = r.request?.amount
    return [r.line, r.order, amount && 'decimal' in amount ? amount.decimal : problems(r.line)]
  })
  return {rows, totals: file.totals, left: file.left, source: file.source}
}

const read = async (name: string, options: Parameters<typeof readRefundFile>[1] = {}) =>
  outcome(await readRefundFile(fixture(name), {column: columns('THB'), ...options}))

describe("CSVs of comma-decimal and other locales, as LibreOffice saves them in each country's settings", () => {
  // The header says THB ("Refund (THB)"): 82,305 is 82.305, never 82305, and THB has two decimals.
  const comma = [
    [2, 'LOC-1', '150000.00'],
    [3, 'LOC-2', 'refund_amount: THB has 2 decimal places; "82,305" (82.305) has more'],
    [4, 'LOC-3', '12.34'],
    [5, 'LOC-4', '1.5'],
    [6, 'LOC-5', '1500'],
  ]
  it.each([
    ['refunds.libreoffice-fr.tab.csv', '150\u00a0000,00'],
    ['refunds.libreoffice-fr.utf16.csv', '150\u00a0000,00'],
    ['refunds.libreoffice-sv.csv', '150\u00a0000,00'],
    ['refunds.libreoffice-pt-br.csv', '150.000,00'],
  ])('%s: a decimal comma, settled by line 2 (%j); 82,305 is 82.305, never 82305', async (name, shown) => {
    const {rows, source} = await read(name)
    expect(rows).toEqual(comma)
    expect(source.marks).toEqual([{field: 'refund_amount', mark: 'comma', line: 2, text: shown}])
  })

  it.each([
    ['refunds.libreoffice-de-ch.csv', "150'000.00"],
    ['refunds.libreoffice-en-in.csv', '1,50,000.00'],
  ])('%s: a decimal point with Swiss or Indian grouping, settled by line 2 (%j)', async (name, shown) => {
    const {rows, source} = await read(name)
    expect(rows).toEqual([
      [2, 'LOC-1', '150000.00'],
      [3, 'LOC-2', 'refund_amount: THB has 2 decimal places; "82.305" has more'],
      [4, 'LOC-3', '12.34'],
      [5, 'LOC-4', '1.5'],
      [6, 'LOC-5', '1500'],
    ])
    expect(source.marks).toEqual([{field: 'refund_amount', mark: 'point', line: 2, text: shown}])
  })

  it("pandas' decimal=',' (R's write.csv2 alike): read", async () => {
    const {rows} = await read('refunds.pandas-decimal-comma.csv', {column: []})
    expect(rows).toEqual([
      [2, 'PD-1', '1500.0'],
      [3, 'PD-2', '12.34'],
      [4, 'PD-3', '0.3'],
    ])
  })

  it("Shift_JIS yen amounts (the yen sign is the byte of '\\'): yen have no decimals, so 1,500 reads one way", async () => {
    const options = {column: columns('JPY'), encoding: 'shift_jis'}
    const file = await readRefundFile(fixture('refunds.libreoffice-ja.sjis.csv'), options)
    expect(file.rows.map((r) => [r.order, r.feeType, r.request?.amount])).toEqual([
      ['YEN-1', 'JPY', {decimal: '1500'}],
      ['YEN-2', 'JPY', {decimal: '23000'}],
    ])
  })
})

describe('the amount shown is the amount refunded', () => {
  it('a number cell whose format shows another amount than it holds (1,500 for 1,499.6) is a problem naming both', async () => {
    const {rows} = await read('amounts.openpyxl.xlsx', {sheet: 'Shown'})
    expect(rows).toEqual([
      [
        2,
        'SHOWN-1',
        'refund_amount: the cell shows "1,500" (its number format is "#,##0") but holds 1,499.6: the sheet shows another amount than the one it holds; type the amount meant into the cell, or format it to show all of it',
      ],
      [3, 'SHOWN-2', '1500'],
    ])
  })
})

describe('what the sheet shows is what is read: hidden, filtered-out and struck-through rows, the sheet in front', () => {
  const stopped = (hidden: string, filtered: string) => [
    [2, 'NOV-1', '100.00'],
    [3, 'NOV-2', '200.00'],
    [
      4,
      'NOV-3',
      expect.stringMatching(
        new RegExp(
          `^${hidden} in the sheet: such a row is never refunded silently; --only-visible leaves these rows out, --include-hidden refunds them too$`,
        ),
      ),
    ],
    [5, 'NOV-4', expect.stringMatching(new RegExp(`^${filtered} in the sheet`))],
    [6, 'NOV-5', expect.stringMatching(/^struck through \(cells A6, B6, D6\) in the sheet/)],
    [7, 'NOV-6', '600.00'],
  ]
  const subtotal = {line: 8, label: 'visible total', amount: '1400.00', sum: '1400.00', agrees: true, shown: true}

  it.each([
    ['filtered.excel.xlsx', 'hidden'],
    ['filtered.libreoffice.xlsx', 'hidden'],
  ])(
    '%s: reads "November", the sheet it opens on; every row it does not show is a problem of its line',
    async (name, hidden) => {
      const {rows, totals, source} = await read(name)
      expect(source).toMatchObject({sheet: 'November', sheets: ['October', 'November'], active: 'November'})
      expect(rows).toEqual(stopped(hidden, 'filtered out by the filter on column D'))
      // The SUBTOTAL under the filter is a totals row, checked against the rows the sheet shows.
      expect(totals).toEqual([subtotal])
    },
  )

  it("LibreOffice's .ods: its filter's rows (hidden by hand too, as it saves them) are filtered out; it opens on its first sheet", async () => {
    // LibreOffice headless saves no view settings: the .ods opens on "October", and gw reads that.
    expect((await read('filtered.libreoffice.ods')).source).toMatchObject({sheet: 'October'})
    const {rows, totals} = await read('filtered.libreoffice.ods', {sheet: 'November'})
    expect(rows).toEqual(stopped('filtered out by the filter on column D', 'filtered out by the filter on column D'))
    expect(totals).toEqual([subtotal])
  })

  it.each([
    ['filtered.excel.xlsx', undefined],
    ['filtered.libreoffice.xlsx', undefined],
    ['filtered.libreoffice.ods', 'November'],
  ])('%s: --only-visible reads the rows shown and leaves the others out, each with why', async (name, sheet) => {
    const {rows, left, totals} = await read(name, {'only-visible': true, sheet})
    expect(rows).toEqual([
      [2, 'NOV-1', '100.00'],
      [3, 'NOV-2', '200.00'],
      [7, 'NOV-6', '600.00'],
    ])
    expect(left.map((l) => [l.line, l.why])).toEqual([
      [4, expect.stringMatching(/^hidden$|^filtered out/)],
      [5, 'filtered out by the filter on column D'],
      [6, 'struck through (cells A6, B6, D6)'],
    ])
    expect(totals).toEqual([subtotal])
  })

  it('--include-hidden reads every row; --sheet still picks another sheet', async () => {
    const all = await read('filtered.excel.xlsx', {'include-hidden': true})
    expect(all.rows.map((r) => r[2])).toEqual(['100.00', '200.00', '300.00', '400.00', '500.00', '600.00'])
    const october = await read('filtered.excel.xlsx', {sheet: 'october'})
    expect(october.rows).toEqual([[2, 'OCT-1', '50.00']])
  })

  it("openpyxl's filter with its rows hidden: hidden by hand and filtered out told apart", async () => {
    const {rows} = await read('filtered.openpyxl.xlsx')
    expect(rows.slice(0, 6)).toEqual(stopped('hidden', 'filtered out by the filter on column D'))
  })

  it("odfpy's .ods: the sheet in front (ActiveTable), a collapsed row, an order number merged down two rows", async () => {
    const {rows, source} = await read('collapsed.odfpy.ods')
    expect(source).toMatchObject({sheet: 'November', active: 'November'})
    expect(rows).toEqual([
      [2, 'NOV-1', '100'],
      [3, 'NOV-2', expect.stringMatching(/^hidden \(collapsed\) in the sheet/)],
      [4, 'NOV-7', '300'],
      [
        5,
        '',
        'no order number: fill one of mch_order_no (its mch_order_no cell is covered by the merged cells A4:A5; the value is in A4 only: unmerge them and fill each row)',
      ],
    ])
  })
})
