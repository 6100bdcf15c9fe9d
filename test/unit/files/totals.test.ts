/** Totals rows as finance's sheets have them: never refunded, each checked against the rows it totals. */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {readRefundFile} from '../../../src/lib/refunds/bulk/refund-file.js'
import {REPO_ROOT, tempFile} from '../../helpers/shared.js'

const read = (path: string) => readRefundFile(path, {})

describe('totals rows', () => {
  it("Excel's Data > Subtotal (LibreOffice calculated): each order's total, then the grand total without them", async () => {
    const file = await read(join(REPO_ROOT, 'test/fixtures/shown/subtotal.libreoffice.xlsx'))
    expect(file.problems).toEqual([])
    expect(file.rows.map((r) => [r.line, r.order])).toEqual([
      [2, 'SHW-60'],
      [3, 'SHW-60'],
      [5, 'SHW-61'],
    ])
    expect(file.totals.map((t) => [t.line, t.label, t.amount, t.agrees])).toEqual([
      [4, 'SHW-60 Total', '15.00', true],
      [6, 'SHW-61 Total', '20.00', true],
      [7, 'Grand Total', '35.00', true],
    ])
  })

  it.each(['合計', '総計', '小計', '合计', '总计', 'المجموع', 'الإجمالي', 'รวม'])(
    '%s labels a totals row',
    async (word) => {
      const file = await read(tempFile('t.csv', `mch_order_no,refund_amount\nT-1,10.00\nT-2,5.00\n${word},15.00\n`))
      expect(file.totals).toEqual([expect.objectContaining({line: 4, label: word, agrees: true})])
      expect(file.rows).toHaveLength(2)
    },
  )

  it('a total over rows of two currencies never agrees: it is said unchecked', async () => {
    const file = await read(
      tempFile('two.csv', 'mch_order_no,refund_amount,fee_type\nT-1,10.00,THB\nT-2,5.00,MYR\nTotal,15.00,\n'),
    )
    expect(file.totals).toEqual([
      expect.objectContaining({
        line: 4,
        unchecked: 'the rows above it are in 2 currencies (THB, MYR): no one total can agree with them',
      }),
    ])
    expect(file.totals[0]).not.toHaveProperty('agrees')
  })
})
