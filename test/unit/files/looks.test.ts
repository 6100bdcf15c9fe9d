/**
 * What a sheet says beside its cells' text, read by the workbook readers (issue 44, round three):
 * comments on cells, text too small to read, and a rule's fill under white text. The fixtures of
 * test/fixtures/shown, each as its producer wrote it; the refunds they lead to are
 * test/commands/refund/create.shown.test.ts's.
 */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {SMALLEST_READABLE, shrunkTooSmall, tooSmall, unseenOn, UNTOLD} from '../../../src/lib/files/colours.js'
import {tinted} from '../../../src/lib/files/xlsx-styles.js'
import {readWorkbook} from '../../../src/lib/files/workbook-reader.js'
import type {WorkbookRecord} from '../../../src/lib/files/workbook-rows.js'
import {REPO_ROOT} from '../../helpers/shared.js'

async function rows(name: string): Promise<WorkbookRecord[]> {
  const book = await readWorkbook(join(REPO_ROOT, 'test/fixtures/shown', name), undefined)
  const read: WorkbookRecord[] = []
  for await (const row of book.records) read.push(row)
  return read
}

describe('colours and sizes as a reader sees them', () => {
  it('a font under 5 pt is too small to read; 5 pt and over, and a size not said, are not', () => {
    expect(SMALLEST_READABLE).toBe(5)
    expect([1, 2, 4, 4.99].map(tooSmall)).toEqual([true, true, true, true])
    expect([5, 5.5, 11, undefined].map(tooSmall)).toEqual([false, false, false, false])
  })

  it("text shrunk to fit: its font scaled by the column's width over its length, too small under 5 pt", () => {
    // 11 pt in 1.5 digits for 6 characters: 2.75 pt; in 3 digits, 5.5 pt; a text that fits is not shrunk.
    expect(shrunkTooSmall('500.00', 11, 1.5)).toBe(true)
    expect(shrunkTooSmall('500.00', 11, 3)).toBe(false)
    expect(shrunkTooSmall('SHW-125', 4, 20)).toBe(true)
    expect(shrunkTooSmall('SHW-125', 11, 8.43)).toBe(false)
    // A cell that does not shrink, and one with no text, are never shrunk.
    expect(shrunkTooSmall('500.00', undefined, 0.5)).toBe(false)
    expect(shrunkTooSmall('  ', 11, 0.5)).toBe(false)
  })

  it('white text hides on no fill and on a white one, shows on dark blue; automatic text always shows', () => {
    expect(unseenOn('ffffff', undefined)).toBe(true)
    expect(unseenOn('ffffff', 'fefefe')).toBe(true)
    expect(unseenOn('ffffff', '1f3864')).toBe(false)
    expect(unseenOn(undefined, '000000')).toBe(false)
  })
})

describe('comments on cells', () => {
  it.each(['comments.openpyxl.xlsx', 'comments.excel.handmade.xlsx', 'comments.libreoffice.ods'])(
    "%s: each comment on its row and column, never in its cell's text",
    async (name) => {
      const read = await rows(name)
      expect(read.map((r) => r.record[0])).toEqual(['mch_order_no', 'SHW-91', 'SHW-92', 'SHW-93'])
      expect(read.map((r) => r.comments)).toEqual([
        undefined,
        [{at: 0, text: 'customer called twice'}],
        name.includes('excel')
          ? [
              {at: 1, text: 'DO NOT REFUND'},
              {at: 1, text: 'agreed, leave it for now'},
            ]
          : [{at: 1, text: 'DO NOT REFUND'}],
        undefined,
      ])
    },
  )

  it('a comment on a line of nothing else is a record of its own, with no cells', async () => {
    expect((await rows('comment-title.openpyxl.xlsx'))[0]).toMatchObject({
      line: 1,
      record: ['Refunds, November'],
      comments: [{at: 0, text: 'duplicate - skip this batch'}],
    })
  })
})

describe('a comment on a merged cell', () => {
  it.each(['comment-merged.openpyxl.xlsx', 'comment-merged.libreoffice.ods'])(
    '%s: on each line the merged cell covers, at its column',
    async (name) => {
      expect((await rows(name)).map((r) => [r.line, r.comments])).toEqual([
        [1, undefined],
        [2, [{at: 2, text: 'DO NOT REFUND'}]],
        [3, [{at: 2, text: 'DO NOT REFUND'}]],
        [4, undefined],
      ])
    },
  )
})

describe('an Excel thread and its legacy note', () => {
  it('a legacy note that says other than its thread is read beside it; the copy Excel keeps is not', async () => {
    expect((await rows('thread-diverge.handmade.xlsx')).map((r) => r.comments)).toEqual([
      undefined,
      [
        {at: 1, text: 'Approved, go ahead'},
        {at: 1, text: 'DO NOT REFUND'},
      ],
      undefined,
    ])
  })
})

describe('text too small to read', () => {
  it('openpyxl: cells at 1, 2 and 4 pt and a row style of 1 pt marked small; 5 pt not', async () => {
    expect((await rows('tiny-font.openpyxl.xlsx')).slice(1).map((r) => [r.line, r.small])).toEqual([
      [2, [1]],
      [3, [0]],
      [4, undefined],
      [5, [0, 1]],
      [6, [1]],
    ])
  })

  // openpyxl: 500.00 in a column 1.5 digits wide, an order number that fits; odfpy: 1,500.00 in a
  // column 0.6 cm wide (LibreOffice draws it at 3.3 pt), 5.00 in it (6.6 pt) and an order number that fits.
  it.each(['shrink-to-fit.openpyxl.xlsx', 'shrink-to-fit.odfpy.ods'])(
    '%s: shrink to fit in a column too narrow for its text is small; where it is drawn at 5 pt or more, not',
    async (name) => {
      expect((await rows(name)).slice(1).map((r) => [r.line, r.small, r.shrunk])).toEqual([
        [2, [1], [1]],
        [3, undefined, undefined],
      ])
    },
  )

  it('xlsxwriter: an order number whose last run is 1 pt is partly small', async () => {
    expect((await rows('tiny-run.xlsxwriter.xlsx'))[1]).toMatchObject({record: ['SHW-101', '10.00'], partlySmall: [0]})
  })

  it('odfpy: by a cell style, a parent style, a span, a style:map; 5 pt and a 10.00 under the map not', async () => {
    expect((await rows('tiny-font.odfpy.ods')).slice(1).map((r) => [r.line, r.small, r.partlySmall])).toEqual([
      [2, [1], undefined],
      [3, [0], undefined],
      [4, undefined, [0]],
      [5, undefined, undefined],
      [6, undefined, undefined],
      [7, [1], undefined],
    ])
  })

  it('odfpy: the named cell style "Default" at 3 pt is the size of every cell that names no style', async () => {
    expect((await rows('small-default-named.odfpy.ods')).map((r) => [r.line, r.small])).toEqual([
      [1, [0, 1]],
      [2, [0, 1]],
      [3, [0, 1]],
    ])
  })
})

describe("a rule's fill under white text", () => {
  it.each(['rule-fill.xlsxwriter.xlsx', 'rule-fill.libreoffice.ods'])(
    '%s: unfilled and white-filled amounts look empty, the one on dark blue shows',
    async (name) => {
      expect((await rows(name)).slice(1).map((r) => [r.line, r.blanked])).toEqual([
        [2, [1]],
        [3, undefined],
        [4, [1]],
      ])
    },
  )
})

describe("a rule's colours (round four)", () => {
  it('a theme colour is tinted as Excel draws it: lighter towards white, darker towards black', () => {
    expect(tinted('ffffff', 0.05)).toBe('ffffff')
    expect(tinted('000000', 0.5)).toBe('808080')
    expect(tinted('4472c4', 0.4)).toBe('8faadc')
    expect(tinted('4472c4', -0.25)).toBe('2f5597')
    expect(tinted('4472c4', 0)).toBe('4472c4')
  })

  it('a colour gw cannot tell is no proof that text shows: on it, or in it, text is taken as unseen', () => {
    expect(unseenOn('ffffff', UNTOLD)).toBe(true)
    expect(unseenOn(undefined, UNTOLD)).toBe(true)
    expect(unseenOn(UNTOLD, '1f3864')).toBe(true)
  })

  it.each(['rule-border.openpyxl.xlsx', 'rule-themetint.openpyxl.xlsx'])(
    "%s: the rule's border or tinted white fill leaves the white row looking empty",
    async (name) => {
      expect((await rows(name)).slice(1).map((r) => [r.line, r.blanked])).toEqual([
        [2, undefined],
        [3, [0, 1, 2]],
        [4, undefined],
      ])
    },
  )

  it('a rule filling a theme colour the workbook does not define: each cell it paints taken as unseen, as untold', async () => {
    expect((await rows('rule-theme-untold.handmade.xlsx')).slice(1).map((r) => [r.line, r.untold])).toEqual([
      [2, [0, 1, 2]],
      [3, [0, 1, 2]],
      [4, [0, 1, 2]],
    ])
  })
})
