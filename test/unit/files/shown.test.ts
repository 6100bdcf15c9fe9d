/**
 * Render, then read: every number cell of formats.openpyxl.xlsx (a format a row, test/fixtures/
 * shown) as gw shows it, held against what LibreOffice shows of it (its CSV saved as shown), and
 * the same sheet saved by LibreOffice as .ods, each cell as gw renders its number style held
 * against the text LibreOffice wrote into the cell.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {describe, expect, it} from 'vitest'

import {showText} from '../../../src/lib/files/shown-number.js'
import {readRefundFile} from '../../../src/lib/refunds/bulk/refund-file.js'
import {readWorkbook} from '../../../src/lib/files/workbook-reader.js'
import type {WorkbookRecord} from '../../../src/lib/files/workbook-rows.js'
import {REPO_ROOT} from '../../helpers/shared.js'

const fixture = (name: string) => join(REPO_ROOT, 'test', 'fixtures', 'shown', name)

async function rowsOf(name: string): Promise<WorkbookRecord[]> {
  const book = await readWorkbook(fixture(name), undefined)
  const rows: WorkbookRecord[] = []
  for await (const row of book.records) rows.push(row)
  return rows
}

/** Text as compared: runs of spaces as one, a Unicode minus as `-`, ends trimmed (alignment padding). */
const plain = (text: string) =>
  text
    .replace(/\u2212/g, '-')
    .replace(/\s+/g, ' ')
    .trim()

/** A row's cells as compared: empty cells at its end dropped (LibreOffice writes none for `;;;`). */
const cellsOf = (cells: string[]) => {
  const kept = cells.map(plain)
  while (kept.at(-1) === '') kept.pop()
  return kept
}

/**
 * A format of literal text only (`"see note"`), or with conditions (`[>=1000]#,##0,"K";0`), shows a
 * negative number with a minus in Excel (numfmt, Gnumeric, gw), without one in LibreOffice: the
 * minus is left out of the comparison there. (gw refuses a negative amount either way.)
 */
const minusDiffers = (code: string) => !/[0#?]/.test(code.replace(/"[^"]*"/g, '')) || /^\[[<>=]/.test(code)
/** Excel (numfmt, gw) shows `#.##` of 1500 as `1500.` and of 0 as `.`, LibreOffice as `1500` and nothing: a point with no digit after it is left out. */
const unsigned = (code: string, cells: string[]) =>
  cells.map((c) => (minusDiffers(code) ? c.replace(/^-/, '') : c).replace(/(^|\d)\.(?!\d)/g, '$1'))

/** LibreOffice's #FMT: a fraction it cannot show (of 10^15); numfmt shows its digits. Left out of the comparison. */
const comparable = (shown: string[], expected: string[]) => {
  const kept = expected.flatMap((text, at) => (text === '#FMT' ? [] : [[shown[at], text]]))
  return [kept.map(([s]) => s), kept.map(([, e]) => e)]
}

/**
 * General shows as many digits as the column is wide: LibreOffice's CSV writes every digit
 * (12.3400000000001), Gnumeric's a narrow column's (1234568), Excel's 11 characters (1234567.891,
 * as numfmt and gw): no program's text is the one a person sees; test/unit/files/workbook.test.ts
 * holds gw's General to Excel's rule. A number in a text-formatted cell is shown as General.
 */
const AS_WIDE_AS_THE_COLUMN = new Set(['General', '@'])

describe('a number cell shows what LibreOffice shows of it', () => {
  it('formats.openpyxl.xlsx: every cell as LibreOffice saved it "as shown"', async () => {
    const libreoffice: string[][] = parse(readFileSync(fixture('formats.libreoffice.csv'), 'utf8'))
    const rows = await rowsOf('formats.openpyxl.xlsx')
    let compared = 0
    for (const [at, row] of rows.entries()) {
      if (at === 0) continue
      if (AS_WIDE_AS_THE_COLUMN.has(row.record[0]!)) continue
      const code = row.record[0]!
      const [shown, expected] = comparable(
        unsigned(code, cellsOf(row.record.slice(1))),
        cellsOf(libreoffice[at]!.slice(1)),
      )
      expect(shown, `format ${code}`).toEqual(expected)
      compared += expected!.length
    }
    expect(compared).toBeGreaterThan(500)
  })

  it('formats.libreoffice.ods: every number style rendered as the text LibreOffice wrote in its cell', async () => {
    const rows = await rowsOf('formats.libreoffice.ods')
    const xml = await import('node:child_process').then(({execFileSync}) =>
      execFileSync('unzip', ['-p', fixture('formats.libreoffice.ods'), 'content.xml']).toString('utf8'),
    )
    // The text of each cell of each row, as LibreOffice wrote it (text:p, with text:s as a space).
    const written = [...xml.matchAll(/<table:table-row[^>]*>([\s\S]*?)<\/table:table-row>/g)].map(([, cells]) =>
      [...cells!.matchAll(/<table:table-cell[^>]*?(?:\/>|>([\s\S]*?)<\/table:table-cell>)/g)].map(([, inner]) =>
        plain(
          (inner ?? '')
            .replace(/<text:s\/>/g, ' ')
            .replace(/<[^>]+>/g, '')
            .replace(/&quot;/g, '"')
            .replace(/&amp;/g, '&'),
        ),
      ),
    )
    let compared = 0
    for (const [at, row] of rows.entries()) {
      if (at === 0 || AS_WIDE_AS_THE_COLUMN.has(row.record[0]!)) continue
      const code = row.record[0]!
      const [shown, expected] = comparable(unsigned(code, cellsOf(row.record.slice(1))), cellsOf(written[at]!.slice(1)))
      expect(shown, `format ${code}`).toEqual(expected)
      compared += row.record.length - 1
    }
    expect(compared).toBeGreaterThan(500)
  })
})

describe('a text cell shows through its format', () => {
  it.each([
    [';;;', '20.00', ''],
    ['0.00;-0.00;0.00;"see note"', '20.00', 'see note'],
    ['"INV-"@', '000042', 'INV-000042'],
    ['_-* #,##0.00_-;\\-* #,##0.00_-;_-* "-"??_-;_-@_-', 'refund_amount', 'refund_amount'],
    ['#,##0.00', '20.00', '20.00'],
    ['General', 'SHW-1', 'SHW-1'],
  ])('%j shows %j as %j', (code, text, shown) => {
    expect(showText(text, code)).toBe(shown)
  })
})

describe('white on white, as the sheet shows it', () => {
  /** Each row's line, order and the problems gw says of it. */
  async function problems(name: string) {
    const file = await readRefundFile(fixture(name), {})
    return file.rows.map((row) => [
      row.line,
      row.order,
      file.problems
        .filter((p) => p.line === row.line)
        .map((p) => p.message)
        .join('; '),
    ])
  }

  it('white-text.odfpy.ods: a white cell style looks empty, a white last span shows less, white on yellow shows', async () => {
    const [empty, partly, shown] = await problems('white-text.odfpy.ods')
    expect(empty).toEqual([
      2,
      'SHW-78',
      expect.stringContaining('shown empty by its format or a conditional format (cell B2: white on white, or ;;;)'),
    ])
    expect(partly).toEqual([
      3,
      'SHW-79',
      expect.stringContaining('partly written white on white (cell A3): the sheet shows less than the cell holds'),
    ])
    expect(shown).toEqual([4, 'SHW-80', ''])
  })

  it('white-run-filled.xlsxwriter.xlsx: a white run on a cell filled yellow shows, and is read', async () => {
    expect(await problems('white-run-filled.xlsxwriter.xlsx')).toEqual([[2, 'SHW-70', '']])
  })

  it.each(['indexed-white.openpyxl.xlsx', 'row-white.odfpy.ods'])(
    "%s: the palette's white, or a row's default style of white, looks empty",
    async (name) => {
      const [kept, blank] = await problems(name)
      expect(kept).toEqual([2, 'SHW-85', ''])
      expect(blank).toEqual([3, 'SHW-86', expect.stringContaining('shown empty by its format or a conditional format')])
    },
  )

  it.each(['same-colour.xlsxwriter.xlsx', 'same-colour.odfpy.ods'])(
    '%s: text in the colour it is drawn on looks empty (black on black, #FEFEFE on no fill); white on dark blue shows',
    async (name) => {
      const blank = expect.stringContaining('shown empty by its format or a conditional format (cell B')
      expect(await problems(name)).toEqual([
        [2, 'SHW-87', ''],
        [3, 'SHW-88', blank],
        [4, 'SHW-89', blank],
        [5, 'SHW-90', ''],
      ])
    },
  )

  it('style-map-common.odfpy.ods: a conditional cell style of a common style, which LibreOffice does not apply, strikes nothing', async () => {
    expect(await problems('style-map-common.odfpy.ods')).toEqual([
      [2, 'SHW-73', ''],
      [3, 'SHW-74', ''],
    ])
  })

  it("struck-row.handmade.xlsx: a cell that names no style takes its row's, as LibreOffice shows it: struck", async () => {
    const [kept, struck] = await problems('struck-row.handmade.xlsx')
    expect(kept).toEqual([2, 'SHW-83', ''])
    expect(struck).toEqual([3, 'SHW-84', expect.stringContaining('struck through (cell A3)')])
  })

  it("style-map.odfpy.ods: ODF 1.2's conditional cell style strikes the amounts over 15", async () => {
    const [kept, struck] = await problems('style-map.odfpy.ods')
    expect(kept).toEqual([2, 'SHW-73', ''])
    expect(struck).toEqual([3, 'SHW-74', expect.stringContaining('struck through (cell B3)')])
  })
})
