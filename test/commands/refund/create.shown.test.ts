/**
 * gw refund create --from-csv on a sheet as the person sees it (issue 44): hidden rows and columns,
 * formats that show less or other than a cell holds, struck and unseen text, conditional formats,
 * and what a sheet says beside its cells' text: comments on cells that say not to refund, text too
 * small to read, white text on a fill a rule adds, and how a row held back is said. Fixtures by openpyxl, xlsxwriter,
 * odfpy and LibreOffice (test/fixtures/shown); the sandbox's ledger says what money moved.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {HAS_CHROMIUM, launchChromium} from '../../helpers/browser.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {REPO_ROOT} from '../../helpers/shared.js'
import {payShownOrders} from '../../helpers/shown-orders.js'
import {writeWorkbook} from '../../helpers/workbooks.js'

let world: GwWorld

const FIXTURES = join(REPO_ROOT, 'test/fixtures/shown')

let copies = 0
/** A fixture copied into the world's folder (a name of its own each time: a run writes its journal beside it). */
const copy = (name: string) => {
  const path = join(world.configDir, `${++copies}-${name}`)
  copyFileSync(join(FIXTURES, name), path)
  return path
}

/** Refunds the ledger shows for the orders, as [order, refund_fee]. */
const refunded = async (...orders: string[]) =>
  (await Promise.all(orders.map(async (o) => ((await world.ledger(o))?.refunds ?? []).map((r) => [o, r.refund_fee]))))
    .flat()
    .sort()

const send = (path: string, ...args: string[]) => world.bulk(path, args)

/**
 * The cases of each group below in a world of its own (a sandbox with the shown orders paid): the
 * groups refund some of the same orders.
 */
function inAWorldOfItsOwn() {
  beforeAll(async () => {
    world = await startWorld()
    await payShownOrders(world)
  })
  afterAll(() => world.close())
}

describe("what a sheet says beside its cells' text", () => {
  inAWorldOfItsOwn()

  describe('a comment on a cell that says not to refund holds its row, as a note beside it does', () => {
    it.each([
      ['legacy notes, as openpyxl writes them', 'comments.openpyxl.xlsx'],
      [
        "Excel's threaded comments (the thread read, not the note Excel keeps beside it)",
        'comments.excel.handmade.xlsx',
      ],
      ['.ods annotations, as LibreOffice saves them', 'comments.libreoffice.ods'],
    ])('%s: the run stops naming the cell and the comment; nothing sent', async (_, name) => {
      const before = await refunded('SHW-91', 'SHW-92', 'SHW-93')
      const result = await send(copy(name))
      expect(result.code, result.stderr).toBe(2)
      // A comment is free text: whatever it says, its row waits for the user's word on it.
      // (Excel's thread has a reply on B3 too: "agreed, leave it for now".)
      expect(result.stderr).toContain(
        'line 1: comments on rows to refund: "customer called twice" (cell A2), "DO NOT REFUND" (cell B3)',
      )
      expect(result.stderr).toContain(
        "a comment can say anything, so gw refunds none of the file before you say what each means: read them, then say it of each, as in --status-map 'customer called twice=rejected' (it leaves out the rows that comment is on; approved refunds them)",
      )
      // Every comment read is said, with what it did.
      expect(result.stderr).toContain('line 2, cell A2: "customer called twice": holds its row back')
      expect(result.stderr).toContain('line 3, cell B3: "DO NOT REFUND": holds its row back')
      expect(await refunded('SHW-91', 'SHW-92', 'SHW-93')).toEqual(before)
    })

    it('the dry run says the held row held, with its comment, and the others not sent; --json lists the comments', async () => {
      const path = copy('comments.openpyxl.xlsx')
      const result = await world.run(['refund', 'create', '--from-csv', path, '--dry-run', '--json'])
      expect(result.code, result.stderr).toBe(2)
      const json = JSON.parse(result.stdout) as {comments: unknown[]; rows: {line: number; status: string}[]}
      expect(json.comments).toEqual([
        {line: 2, cell: 'A2', text: 'customer called twice', did: 'holds its row back'},
        {line: 3, cell: 'B3', text: 'DO NOT REFUND', did: 'holds its row back'},
      ])
      expect(json.rows.map((r) => [r.line, r.status])).toEqual([
        [2, 'held'],
        [3, 'held'],
        [4, 'pending'],
      ])
      expect(json.rows[1]).toMatchObject({order: 'SHW-92', err_msg: 'held by the comment on B3: "DO NOT REFUND"'})
    })

    it('the --preview page lists the comments read, escaped, and says the held row held', async () => {
      const path = copy('comments.libreoffice.ods')
      const page = join(world.configDir, 'comments-preview.html')
      const result = await world.run(['refund', 'create', '--from-csv', path, '--dry-run', '--preview', page])
      expect(result.code, result.stderr).toBe(2)
      const html = readFileSync(page, 'utf8')
      expect(html).toContain("<h2>Comments on the sheet's cells, read</h2>")
      expect(html).toContain('<li>line 3, cell B3: &#34;DO NOT REFUND&#34;: holds its row back</li>')
      expect(html).toContain('held: held by the comment on B3: &#34;DO NOT REFUND&#34;')
    })

    it('--status-map says what the comment means: rejected leaves its row out, approved refunds it', async () => {
      const before = await refunded('SHW-91', 'SHW-92', 'SHW-93')
      const said = ['--status-map', 'customer called twice=approved']
      const left = await send(copy('comments.openpyxl.xlsx'), ...said, '--status-map', 'DO NOT REFUND=rejected')
      expect(left.code, left.stderr).toBe(0)
      expect(left.stderr).toContain('line 3: the comment on B3 says "DO NOT REFUND", rejected (--status-map)')
      expect(await refunded('SHW-91', 'SHW-92', 'SHW-93')).toEqual(
        [...before, ['SHW-91', 1000], ['SHW-93', 3000]].sort(),
      )
      const approved = await send(copy('comments.libreoffice.ods'), ...said, '--status-map', 'DO NOT REFUND=approved')
      expect(approved.code, approved.stderr).toBe(0)
      expect(approved.stderr).toContain('line 3, cell B3: "DO NOT REFUND": refunded by --status-map')
      // The same rows in another format are the same refunds: SHW-91 and SHW-93 are not sent again.
      expect(approved.stdout).toContain('2 rows already refunded, not sent again')
      expect(await refunded('SHW-91', 'SHW-92', 'SHW-93')).toEqual(
        [...before, ['SHW-91', 1000], ['SHW-92', 2000], ['SHW-93', 3000]].sort(),
      )
    })

    it('a comment on a cell of a hidden column holds its shown row all the same; nothing sent', async () => {
      const result = await send(copy('comment-hidden-cell.openpyxl.xlsx'))
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('a comment on a row to refund: "on hold" (cell D3)')
      expect(await refunded('SHW-94', 'SHW-95')).toEqual([])
    })

    it("a comment on a title holds the whole file, as a title's words do; nothing sent", async () => {
      const result = await send(copy('comment-title.openpyxl.xlsx'))
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(
        'line 1: the comment on A1 says not to refund ("duplicate - skip"): "duplicate - skip this batch"',
      )
      expect(await refunded('SHW-96')).toEqual([])
    })

    it('a title or a comment that holds the whole file holds it under --skip-invalid too: nothing sent', async () => {
      const path = join(world.configDir, 'draft.csv')
      writeFileSync(path, 'DRAFT - DO NOT REFUND YET\nmch_order_no,refund_amount\nSHW-31,6.00\n')
      for (const file of [path, copy('comment-title.openpyxl.xlsx')]) {
        const result = await send(file, '--skip-invalid')
        expect(result.code, result.stderr).toBe(2)
        expect(result.stderr).toContain('says not to refund')
        expect(result.stderr).toContain(
          'Fix them and run again (the file is held back by its words, not a row: --skip-invalid skips none of it).',
        )
      }
      expect(await refunded('SHW-31', 'SHW-96')).toEqual([])
    })

    it.each([
      // Excel's New Note starts with its author's name and a line break, the word on the next line.
      ['Somchai Prasert:\nRejected', 'SHW-36'],
      // An approval word that holds its row in a note column (docs/finance.md: ไม่อนุมัติ, not approved).
      ['ไม่อนุมัติ', 'SHW-37'],
      ['NO', 'SHW-39'],
      // What no list of words reads: a request, and words turned round by a bidi override (shown "DO NOT REFUND").
      ['Please hold', 'SHW-40'],
      ['ok \u202eDNUFER TON OD\u202c', 'SHW-41'],
    ])('a comment %j holds its row (review3): nothing sent', async (note, order) => {
      const path = await writeWorkbook(join(world.configDir, `${++copies}-note.xlsx`), [
        {
          name: 'Refunds',
          rows: [
            ['mch_order_no', 'refund_amount'],
            [order, 3],
          ],
          notes: {B2: note},
        },
      ])
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('holds its row back')
      expect(await refunded(order)).toEqual([])
    })

    it("an .ods annotation is never read as its cell's text: the order number is the cell's own", async () => {
      const result = await world.run([
        'refund',
        'create',
        '--from-csv',
        copy('comments.libreoffice.ods'),
        '--dry-run',
        '--status-map',
        'DO NOT REFUND=rejected',
        '--status-map',
        'customer called twice=approved',
      ])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(/^2\tSHW-91\t/m)
      expect(result.stderr).not.toContain('2026-12-02')
    })
  })

  describe('text too small to read is refused as white on white is (under 5 pt: colours.ts says why)', () => {
    it('openpyxl: 1, 2 and 4 pt cells and a 1 pt row style refused by line and cell; the 5 pt row is read', async () => {
      const path = copy('tiny-font.openpyxl.xlsx')
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      for (const [line, cells] of [
        [2, 'cell B2'],
        [3, 'cell A3'],
        [5, 'cells A5, B5'],
        [6, 'cell B6'],
      ])
        expect(result.stderr).toContain(
          `line ${line}: written too small to read (${cells}: a font under 5 pt shows as a dot) in the sheet`,
        )
      expect(result.stderr).not.toMatch(/line 4: written too small/)
      expect(await refunded('SHW-97', 'SHW-98', 'SHW-99', 'SHW-100', 'SHW-102')).toEqual([])
      // --only-visible refunds what the sheet shows: the 5 pt row alone.
      const shown = await send(path, '--only-visible')
      expect(shown.code, shown.stderr).toBe(0)
      expect(await refunded('SHW-97', 'SHW-98', 'SHW-99', 'SHW-100', 'SHW-102')).toEqual([['SHW-99', 3000]])
    })

    it('an order number whose last run is 1 pt (it shows SHW-10 and a dot) shows less than it holds: refused', async () => {
      const result = await send(copy('tiny-run.xlsxwriter.xlsx'))
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(
        'line 2: partly written too small to read (cell A2): the sheet shows less than the cell holds',
      )
      expect(await refunded('SHW-10', 'SHW-101')).toEqual([])
    })

    it('odfpy: a size set only by a style, its parent, a span or a conditional style refused; 5 pt and 10.00 read', async () => {
      const path = copy('tiny-font.odfpy.ods')
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('line 2: written too small to read (cell B2')
      expect(result.stderr).toContain('line 3: written too small to read (cell A3')
      expect(result.stderr).toContain('line 4: partly written too small to read (cell A4)')
      expect(result.stderr).toContain('line 7: written too small to read (cell B7')
      expect(result.stderr).not.toMatch(/line [56]: /)
      const shown = await send(path, '--only-visible')
      expect(shown.code, shown.stderr).toBe(0)
      expect(await refunded('SHW-103', 'SHW-104', 'SHW-105', 'SHW-106', 'SHW-107')).toEqual([
        ['SHW-106', 4000],
        ['SHW-107', 1000],
      ])
    })
  })

  describe("a rule's format of a 1 pt font (patched in: Excel offers no size in a rule)", () => {
    it('the amount over 15 it shrinks is refused, 10.00 read and refunded with --only-visible', async () => {
      const path = copy('rule-size.handmade.xlsx')
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('line 3: written too small to read (cell B3: a font under 5 pt shows as a dot)')
      expect(result.stderr).not.toContain('line 2:')
      expect((await send(path, '--only-visible')).code).toBe(0)
      expect(await refunded('SHW-34', 'SHW-35')).toEqual([['SHW-34', 1000]])
    })
  })

  describe('white text on a fill a conditional format adds shows', () => {
    it('amounts written white: the one a rule fills dark blue is refunded, unfilled and white-filled ones refused', async () => {
      const path = copy('rule-fill.xlsxwriter.xlsx')
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('line 2: shown empty by its format or a conditional format (cell B2')
      expect(result.stderr).toContain('line 4: shown empty by its format or a conditional format (cell B4')
      expect(result.stderr).not.toContain('line 3:')
      const shown = await send(path, '--only-visible')
      expect(shown.code, shown.stderr).toBe(0)
      expect(await refunded('SHW-108', 'SHW-109', 'SHW-110')).toEqual([['SHW-109', 2000]])
    })
  })

  describe('white text on a fill an .ods rule adds shows', () => {
    it("LibreOffice's save of the same sheet (calcext conditions): refused and read as in the .xlsx", async () => {
      const result = await world.run(['refund', 'create', '--from-csv', copy('rule-fill.libreoffice.ods'), '--dry-run'])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('line 2: shown empty by its format or a conditional format (cell B2')
      expect(result.stderr).toContain('line 4: shown empty by its format or a conditional format (cell B4')
      expect(result.stderr).not.toContain('line 3:')
    })

    it('odfpy: a style of white text whose style:map fills it dark blue over 15: that one is refunded', async () => {
      const path = copy('rule-fill.odfpy.ods')
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('line 2: shown empty by its format or a conditional format (cell B2')
      expect(result.stderr).not.toContain('line 3:')
      expect((await send(path, '--only-visible')).code).toBe(0)
      expect(await refunded('SHW-32', 'SHW-33')).toEqual([['SHW-33', 2000]])
    })
  })

  describe('a row held back by a note is said held, and its note column read', () => {
    const NOTES =
      'mch_order_no,refund_amount,Note\nSHW-27,1.00,duplicate charge\nSHW-28,2.00,duplicate - skip\nSHW-29,3.00,\n'

    it('the plan shows the held row held with its note, not pending; the note column is read, not ignored', async () => {
      const path = join(world.configDir, 'held-note.csv')
      writeFileSync(path, NOTES)
      const result = await world.run(['refund', 'create', '--from-csv', path, '--dry-run'])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stdout).toMatch(/^3\tSHW-28\t\t-\theld$/m)
      expect(result.stdout).toContain(
        'Fix the problems above, then run without --dry-run (the file is held back by its words, not a row: --skip-invalid skips none of it).',
      )
      expect(result.stderr).toContain('read for what their words say (approvals, notes that hold a row back): "Note"')
      expect(result.stderr).not.toContain('ignored columns')
      const json = JSON.parse(
        (await world.run(['refund', 'create', '--from-csv', path, '--dry-run', '--json'])).stdout,
      ) as {ignored_columns: string[]; word_columns: string[]; rows: {line: number; status: string; err_msg?: string}[]}
      expect(json).toMatchObject({ignored_columns: [], word_columns: ['Note']})
      expect(json.rows[1]).toMatchObject({
        status: 'held',
        err_msg: 'held by its note "duplicate - skip" (column "Note")',
      })
    })

    it('--status-map pending leaves the row out said held by its note, not merely pending', async () => {
      const path = join(world.configDir, 'held-note-mapped.csv')
      writeFileSync(path, NOTES)
      const result = await world.run([
        'refund',
        'create',
        '--from-csv',
        path,
        '--dry-run',
        '--status-map',
        'duplicate - skip=pending',
      ])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain(
        'line 3: held by its note "duplicate - skip" (column "Note"), pending (--status-map)',
      )
      expect(result.stderr).toContain('read for what their words say (approvals, notes that hold a row back): "Note"')
      expect(await refunded('SHW-27', 'SHW-28', 'SHW-29')).toEqual([])
    })
  })
})

describe('sheets that do not show all they hold', () => {
  inAWorldOfItsOwn()

  describe('a column the sheet hides is never read', () => {
    it('a hidden mch_order_no beside the shown "Invoice No" stops the run naming both; --column reads the shown one', async () => {
      const path = copy('hidden-order-column.xlsxwriter.xlsx')
      const refused = await send(path, '--column', 'refund_amount=Refund (THB)')
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain(
        `column A ("mch_order_no") is hidden in the sheet, so gw does not read mch_order_no from it; the shown "Invoice No" looks like order numbers: name the column to read with --column mch_order_no='Invoice No'`,
      )
      expect(await refunded('SHW-1', 'SHW-2', 'SHW-3', 'SHW-4')).toEqual([])
      const run = await send(path, '--column', 'refund_amount=Refund (THB)', '--column', 'mch_order_no=Invoice No')
      expect(run.code, run.stderr).toBe(0)
      expect(await refunded('SHW-1', 'SHW-2', 'SHW-3', 'SHW-4')).toEqual([
        ['SHW-1', 1000],
        ['SHW-2', 2000],
      ])
    })

    it('a column of zero width is hidden as much (a hand-made package)', async () => {
      const result = await send(copy('zero-width.handmade.xlsx'), '--column', 'refund_amount=Refund (THB)')
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('column A ("mch_order_no") is zero width in the sheet')
    })

    it('a stale hidden refund_amount beside the shown "Refund (THB)": stopped; the shown one refunds 2,747.14', async () => {
      const path = copy('hidden-amount-column.openpyxl.xlsx')
      const refused = await send(path)
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain(
        `column B ("refund_amount") is hidden in the sheet, so gw does not read refund_amount from it; the shown "Refund (THB)" looks like amounts: name the column to read with --column refund_amount='Refund (THB)'`,
      )
      const run = await send(path, '--column', 'refund_amount=Refund (THB)')
      expect(run.code, run.stderr).toBe(0)
      const rows = await refunded('SHW-5', 'SHW-6', 'SHW-7', 'SHW-8')
      expect(rows.reduce((sum, [, fee]) => sum + (fee as number), 0)).toBe(274_714)
    })
  })

  describe('rows hidden or struck in ways the sheet keeps', () => {
    it.each([
      ['zero-height.handmade.xlsx', 3, 'hidden (zero height)'],
      ['struck-by-rule.xlsxwriter.xlsx', 3, 'struck through (cells A3, B3, D3)'],
      ['struck-by-rule.libreoffice.xlsx', 3, 'struck through (cells A3, B3, D3)'],
      ['struck-by-rule.libreoffice.ods', 3, 'struck through (cells A3, B3, D3)'],
      ['struck-by-cellis.xlsxwriter.xlsx', 3, 'struck through (cell B3)'],
      ['rich-strike.xlsxwriter.xlsx', 2, 'struck through (cell A2)'],
    ])('%s: line %i is %s in the sheet: nothing sent', async (name, line, why) => {
      const before = (await world.requests()).order_refund ?? 0
      const result = await send(copy(name))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`line ${line}: ${why} in the sheet: such a row is never refunded silently`)
      expect((await world.requests()).order_refund ?? 0).toBe(before)
    })

    it('--only-visible refunds the rows the conditional format leaves standing, and the report says the struck one was left out', async () => {
      const run = await send(copy('struck-by-rule.libreoffice.ods'), '--only-visible')
      expect(run.code, run.stderr).toBe(0)
      expect(await refunded('SHW-11', 'SHW-12', 'SHW-13')).toEqual([
        ['SHW-11', 1000],
        ['SHW-13', 1000],
      ])
    })

    it('a conditional format gw cannot evaluate stops the run, naming it', async () => {
      const result = await send(copy('struck-by-formula.xlsxwriter.xlsx'))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(
        'the sheet has a conditional format on A2:D4 that strikes its cells through when expression AND($D2="no",$B2>5), which gw cannot evaluate',
      )
    })

    it('a cell partly struck that gw does not read is a warning naming it', async () => {
      const result = await world.run([
        'refund',
        'create',
        '--from-csv',
        copy('rich-strike.xlsxwriter.xlsx'),
        '--dry-run',
      ])
      expect(result.stderr).toContain(
        'warning: 1 cell partly struck through, read as written (gw reads none of them): C3',
      )
    })

    it("odfpy's .ods: a collapsed column, a row of zero height, a struck run, its own text against its style, a display factor", async () => {
      const result = await send(copy('hidden.odfpy.ods'), '--column', 'mch_order_no=Invoice No')
      expect(result.code).toBe(2)
      for (const said of [
        'line 3: hidden (zero height) in the sheet',
        'line 4: struck through (cell B4) in the sheet',
        `line 5: refund_amount: the file's own text of the cell is "1,500", but its number style shows "1499.6"`,
        'line 6: refund_amount: the cell shows "1,500" (its number format is "#,0,") but holds 1,500,000',
      ])
        expect(result.stderr).toContain(said)
      expect(await refunded('SHW-50', 'SHW-51', 'SHW-54', 'SHW-55', 'SHW-56')).toEqual([])
    })
  })

  describe('the amount is what the cell shows, in the currency it shows', () => {
    it('formats that scale or hide the number: every row refused, nothing sent (not 1,500,000.00 THB)', async () => {
      const result = await send(copy('scaled.openpyxl.xlsx'))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('"Refunds in thousands of baht" says the amounts are in thousands')
      for (const said of [
        'line 3: refund_amount: the cell shows "1,500" (its number format is "#,##0,") but holds 1,500,000',
        'line 6: refund_amount: the cell looks empty (its number format is ";;;") but holds 1,500',
        'line 7: refund_amount: the cell shows "see note"',
        'line 8: refund_amount: the cell shows "50.00" (its number format is ""50.00"") but holds 5,000',
      ])
        expect(result.stderr).toContain(said)
      expect(await refunded('SHW-15', 'SHW-16', 'SHW-17', 'SHW-18', 'SHW-19', 'SHW-20')).toEqual([])
    })

    it('฿ on a ringgit order, ¥ and US$ on baht orders: each refused naming both', async () => {
      // --skip-invalid: the rows the file alone cannot refuse go on to be checked against their orders.
      const result = await send(copy('currency-format.openpyxl.xlsx'), '--skip-invalid')
      expect(result.code).not.toBe(0)
      expect(result.stderr).toMatch(/line 2: .*THB.*MYR|line 2: .*MYR.*THB/)
      expect(result.stderr).toMatch(/line 3: .*JPY.*THB|line 3: .*THB.*JPY/)
      expect(result.stderr).toContain(
        'line 4: refund_amount: "US$12.50" is written in USD, which the gateway does not take',
      )
      expect(await refunded('SHW-M1', 'SHW-21', 'SHW-22')).toEqual([])
    })

    it("LibreOffice's ringgit currency cell on a baht order: refused", async () => {
      const result = await send(copy('currency-myr.libreoffice.ods'))
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/line 2: .*MYR.*THB|line 2: .*THB.*MYR/)
      expect(await refunded('SHW-26')).toEqual([])
    })

    it('a column headed "Refund (JPY)" on a baht order: refused naming both; yen grouping reads one way', async () => {
      const path = join(world.configDir, 'refund-jpy.csv')
      writeFileSync(path, 'mch_order_no,Refund (JPY)\nSHW-23,"1,000"\n')
      const result = await send(path, '--column', 'refund_amount=Refund (JPY)')
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/line 2: .*JPY.*THB|line 2: .*THB.*JPY/)
      expect(await refunded('SHW-23')).toEqual([])
    })
  })

  describe('approval words are not payment states', () => {
    it('Rejected, Declined, Pending, On hold and their Thai forms beside Approved stop the run; --where takes the approved', async () => {
      const path = copy('approval.openpyxl.xlsx')
      const refused = await send(path)
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('column "Status" says not every refund is approved: "Rejected" (1 row: line 3)')
      expect(refused.stderr).toContain('--where Status=Approved')
      const orders = Array.from({length: 9}, (_, i) => `SHW-${30 + i}`)
      expect(await refunded(...orders)).toEqual([])
      const run = await send(path, '--where', 'Status=Approved')
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toContain('7 rows, left out (--where): not sent')
      expect(await refunded(...orders)).toEqual([
        ['SHW-30', 1000],
        ['SHW-38', 1000],
      ])
    })

    it('a yes/no Approved column is read, not ignored: --status-map says what "no" means', async () => {
      const path = copy('approved-yes-no.openpyxl.xlsx')
      const refused = await send(path)
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('column "Approved" says not every refund is approved: "no" (1 row: line 3)')
      const run = await send(path, '--status-map', 'no=rejected')
      expect(run.code, run.stderr).toBe(0)
      expect(await refunded('SHW-40', 'SHW-41', 'SHW-42')).toEqual([
        ['SHW-40', 1000],
        ['SHW-42', 1000],
      ])
    })

    it('a status word gw does not know is a problem of its line', async () => {
      const path = join(world.configDir, 'unknown-status.csv')
      writeFileSync(path, 'mch_order_no,refund_amount,Status\nSHW-44,10.00,Escalated\n')
      const result = await send(path)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('line 2: status "Escalated" (column "Status") is not a word gw knows')
      expect(await refunded('SHW-44')).toEqual([])
    })
  })

  describe.skipIf(!HAS_CHROMIUM)('the sheet as gw read it (--dry-run --preview), in Chromium', () => {
    /** The page a dry run wrote, opened in Chromium: its text, what each struck and marked cell says, what it asked for. */
    async function open(page: string) {
      const browser = await launchChromium()
      try {
        const tab = await browser.newPage({viewport: {width: 1280, height: 900}})
        const requests: string[] = []
        tab.on('request', (request) => requests.push(request.url()))
        await tab.goto(pathToFileURL(page).href)
        const text = await tab.innerText('body')
        // Run in the page, where getComputedStyle is the window's (the tests' own types know no DOM).
        const struck = await tab.$$eval('tr.not_sent td.cell', (cells) =>
          cells.map(
            (cell) =>
              (globalThis as unknown as {getComputedStyle(e: unknown): {textDecorationLine: string}}).getComputedStyle(
                cell,
              ).textDecorationLine,
          ),
        )
        const marked = await tab.$$eval('tbody mark', (marks) =>
          marks.map((m) => [m.textContent, m.getAttribute('title')]),
        )
        const images = await tab.$$eval('img, script, iframe', (found) => found.length)
        const title = await tab.title()
        await tab.screenshot({path: page.replace(/\.html$/, '.png'), fullPage: true})
        return {text, struck, marked, images, title, requests}
      } finally {
        await browser.close()
      }
    }

    it("odfpy's sheet: cells as shown, the amount to send marked, rows not sent struck with why, the hidden column and row listed", async () => {
      const page = join(world.configDir, 'hidden.preview.html')
      const result = await world.run([
        'refund',
        'create',
        '--from-csv',
        copy('hidden.odfpy.ods'),
        '--column',
        'mch_order_no=Invoice No',
        '--dry-run',
        '--preview',
        page,
      ])
      expect(result.code).toBe(2)
      const seen = await open(page)
      expect(seen.requests).toEqual([pathToFileURL(page).href])
      expect(seen.marked).toEqual([['10', 'gw would send 10.00 THB']])
      expect(seen.text).toContain('would refund 10.00 THB')
      expect(seen.text).toMatch(/SHW-54\s+30\s+skipped_invalid: struck through \(cell B4\) in the sheet/)
      expect(seen.text).toMatch(/SHW-56\s+1,500\s+skipped_invalid: refund_amount: the cell shows "1,500"/)
      expect(seen.struck.length).toBeGreaterThan(0)
      expect(seen.struck.every((line) => line.includes('line-through'))).toBe(true)
      expect(seen.text).toContain('column A (mch_order_no) is hidden: not shown, not read')
      expect(seen.text).toContain('line 3: hidden (zero height)')
      // The hidden column is not among the columns shown.
      expect(seen.text).not.toContain('SHW-52')
    })

    it('text of the file with markup is shown as text: no element made, no script run, nothing fetched', async () => {
      const csv = join(world.configDir, 'markup.csv')
      writeFileSync(
        csv,
        `mch_order_no,refund_amount,Reason\nSHW-45,10.00,"<img src=x onerror=""document.title='pwned'""><script>document.title='pwned'</script>"\n`,
      )
      const page = join(world.configDir, 'markup.preview.html')
      const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--preview', page])
      expect(result.code, result.stderr).toBe(0)
      const seen = await open(page)
      expect(seen.images).toBe(0)
      expect(seen.title).not.toContain('pwned')
      expect(seen.text).toContain(`<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`)
      expect(seen.requests).toEqual([pathToFileURL(page).href])
    })

    it('--preview is a page (.html) and only of a dry run', async () => {
      const csv = join(world.configDir, 'one.csv')
      writeFileSync(csv, 'mch_order_no,refund_amount\nSHW-46,1.00\n')
      const named = await world.run([
        'refund',
        'create',
        '--from-csv',
        csv,
        '--dry-run',
        '--preview',
        csv.replace('.csv', '.txt'),
      ])
      expect(named.code).toBe(2)
      expect(named.stderr).toContain('name the page .html')
      const live = await world.run([
        'refund',
        'create',
        '--from-csv',
        csv,
        '--yes',
        '--preview',
        csv.replace('.csv', '.html'),
      ])
      expect(live.code).toBe(2)
      expect(await refunded('SHW-46')).toEqual([])
    })
  })

  describe('the built gw reads a workbook in its worker thread, whose heap is bounded', () => {
    it('a workbook read by the built gw (its worker beside the chunk that starts it) plans as in-process', async () => {
      const result = await world.run(
        ['refund', 'create', '--from-csv', copy('subtotal.libreoffice.xlsx'), '--dry-run', '--json'],
        {process: true},
      )
      expect(result.code, result.stderr).toBe(0)
      expect(result.json<{rows: {line: number}[]}>().rows.map((r) => r.line)).toEqual([2, 3, 5])
    })
  })

  describe("finance's running sheet: one file a month, rows appended", () => {
    it('a file that only grew is the same batch, continued: the new rows are sent, the earlier ones never again', async () => {
      const csv = join(world.configDir, 'november-running.csv')
      writeFileSync(csv, 'mch_order_no,refund_amount\nSHW-48,1.00\nSHW-49,2.00\n')
      expect((await send(csv)).code).toBe(0)
      writeFileSync(csv, 'mch_order_no,refund_amount\nSHW-48,1.00\nSHW-49,2.00\nSHW-57,3.00\n')
      const grown = await send(csv)
      expect(grown.code, grown.stderr).toBe(0)
      expect(grown.stderr).toContain(
        'the file grew since its journal began: lines 1 to 3 are as the earlier run read them',
      )
      expect(await refunded('SHW-48', 'SHW-49', 'SHW-57')).toEqual([
        ['SHW-48', 100],
        ['SHW-49', 200],
        ['SHW-57', 300],
      ])
    })

    it('a changed earlier row makes it another file: refused, nothing sent', async () => {
      const csv = join(world.configDir, 'december-running.csv')
      writeFileSync(csv, 'mch_order_no,refund_amount\nSHW-58,1.00\n')
      expect((await send(csv)).code).toBe(0)
      writeFileSync(csv, 'mch_order_no,refund_amount\nSHW-58,1.50\nSHW-59,2.00\n')
      const changed = await send(csv)
      expect(changed.code).toBe(2)
      expect(changed.stderr).toContain('belongs to another version of the file')
      expect(await refunded('SHW-58', 'SHW-59')).toEqual([['SHW-58', 100]])
    })

    it('a workbook saved again with rows appended is the same sheet grown', async () => {
      const book = join(world.configDir, 'running.xlsx')
      const rows = [
        ['mch_order_no', 'refund_amount'],
        ['SHW-60', 1],
        ['SHW-61', 2],
      ]
      await writeWorkbook(book, [{name: 'Refunds', rows, formats: {B2: '0.00', B3: '0.00'}}])
      expect((await send(book)).code).toBe(0)
      await writeWorkbook(book, [
        {name: 'Refunds', rows: [...rows, ['SHW-60', 0.5]], formats: {B2: '0.00', B3: '0.00', B4: '0.00'}},
      ])
      const grown = await send(book, '--allow-repeats')
      expect(grown.code, grown.stderr).toBe(0)
      expect(await refunded('SHW-60', 'SHW-61')).toEqual([
        ['SHW-60', 100],
        ['SHW-60', 50],
        ['SHW-61', 200],
      ])
    })
  })

  describe('what an outside trial found the sheet shows (review44)', () => {
    it('amounts typed as text are read through their format: ;;; shows nothing, a text section words; nothing sent', async () => {
      const result = await send(copy('text-formats.xlsxwriter.xlsx'))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('line 3: no amount')
      expect(result.stderr).toContain('line 4: refund_amount: "see note" is not an amount')
      expect(result.stderr).toContain('line 5: no order number')
      expect(await refunded('SHW-62', 'SHW-63', 'SHW-64', 'SHW-65')).toEqual([])
    })

    it('an approval note that says more than its first word ("Approved - on hold", "Approved?") is a problem', async () => {
      const path = join(world.configDir, 'approval-notes.csv')
      writeFileSync(
        path,
        'mch_order_no,refund_amount,Status\nSHW-75,10.00,Approved - on hold\nSHW-76,10.00,Approved?\n',
      )
      const result = await send(path)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('line 2: status "Approved - on hold" (column "Status") is not a word gw knows')
      expect(result.stderr).toContain('line 3: status "Approved?" (column "Status") is not a word gw knows')
      expect(await refunded('SHW-75', 'SHW-76')).toEqual([])
    })

    it.each([
      ['OK to refund', 'yes', 'no'],
      ['Manager sign-off', 'Approved', 'Refused'],
      ['Action', 'Refund', 'Do not refund'],
      ['Approve (Y/N)', 'Y', 'N'],
      ['Decision', 'Approve', 'Reject'],
      ['Freigabe', 'Ja', 'Nein'],
      ['審核', '批准', '駁回'],
    ])(
      'a column gw does not read is an approval by what it holds: "%s" with %s and %s stops the run, nothing sent',
      async (header, yes, no) => {
        const path = join(world.configDir, `approval-by-content-${header.length}${yes}.csv`)
        writeFileSync(path, `mch_order_no,refund_amount,${header}\nSHW-75,10.00,${yes}\nSHW-76,10.00,${no}\n`)
        const result = await send(path)
        expect(result.code, result.stderr).toBe(2)
        expect(result.stderr).toContain(`column "${header}" says not every refund is approved: "${no}" (1 row: line 3)`)
        expect(await refunded('SHW-75', 'SHW-76')).toEqual([])
      },
    )

    it('a note column that holds other words too is a note, never an approval: its rows are sent', async () => {
      const path = join(world.configDir, 'note-column.csv')
      writeFileSync(path, 'mch_order_no,refund_amount,Note\nSHW-74,1.00,no receipt\nSHW-74,2.00,gift\nSHW-74,3.00,\n')
      const result = await send(path)
      expect(result.code, result.stderr).toBe(0)
      expect(await refunded('SHW-74')).toEqual([
        ['SHW-74', 100],
        ['SHW-74', 200],
        ['SHW-74', 300],
      ])
    })

    it('a note that says not to refund its row ("duplicate - skip") stops the run; --status-map says what it means', async () => {
      const before = await refunded('SHW-81', 'SHW-82')
      const path = join(world.configDir, 'held-note.csv')
      writeFileSync(
        path,
        'mch_order_no,refund_amount,Note\nSHW-81,1.00,duplicate charge\nSHW-82,2.00,duplicate - skip\nSHW-81,3.00,\n',
      )
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(
        `column "Note" has notes that say not to refund their rows: "duplicate - skip" (1 row: line 3); gw refunds none of the file unasked: take those rows out of the file, or say what a note means with --status-map 'duplicate - skip=rejected'`,
      )
      expect(await refunded('SHW-81', 'SHW-82')).toEqual(before)
      const mapped = await send(path, '--status-map', 'duplicate - skip=rejected')
      expect(mapped.code, mapped.stderr).toBe(0)
      expect(await refunded('SHW-81', 'SHW-82')).toEqual([...before, ['SHW-81', 100], ['SHW-81', 300]].sort())
    })

    it.each([
      ['a title above the header', 'DRAFT - DO NOT REFUND YET\nmch_order_no,refund_amount\nSHW-81,6.00\n', 1],
      [
        'a note under the rows',
        'mch_order_no,refund_amount\nSHW-81,6.00\n\nDo not refund any of the above - on hold\n',
        4,
      ],
    ])('%s that says not to refund holds the whole file back: nothing sent', async (_, text, line) => {
      const before = await refunded('SHW-81')
      const path = join(world.configDir, `held-file-${line}.csv`)
      writeFileSync(path, text)
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toMatch(new RegExp(`line ${line}: ".*" says not to refund`, 'i'))
      expect(await refunded('SHW-81')).toEqual(before)
    })

    it('an approval word that rejects, in a column of other notes too, still holds its row back: nothing sent', async () => {
      const before = await refunded('SHW-81', 'SHW-82')
      const path = join(world.configDir, 'rejected-among-notes.csv')
      writeFileSync(path, 'mch_order_no,refund_amount,Note\nSHW-81,4.00,customer cancelled\nSHW-82,5.00,Rejected\n')
      const result = await send(path)
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(
        'column "Note" has notes that say not to refund their rows: "Rejected" (1 row: line 3)',
      )
      expect(await refunded('SHW-81', 'SHW-82')).toEqual(before)
    })

    it.each(['narrow-column.odfpy.ods', 'narrow-column.libreoffice.xlsx'])(
      '%s: a stale column dragged narrower than a digit is never read; the shown one is named',
      async (name) => {
        const result = await send(copy(name))
        expect(result.code).toBe(2)
        expect(result.stderr).toContain(
          `column B ("refund_amount") is narrower than a digit in the sheet, so gw does not read refund_amount from it; the shown "Refund (THB)" looks like amounts`,
        )
        expect(await refunded('SHW-71', 'SHW-72')).toEqual([])
      },
    )

    it('a conditional format that shows the amounts in thousands: the shown 1.50 is read, and the 1,500 held named', async () => {
      const result = await send(copy('rule-number-format.xlsxwriter.xlsx'))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(
        'line 2: refund_amount: the cell shows "1.50" (a conditional format shows it by "#,##0.00,") but holds 1,500',
      )
      expect(result.stderr).toContain('line 3: refund_amount: the cell shows "2.00"')
      expect(await refunded('SHW-66', 'SHW-67')).toEqual([])
    })

    it.each(['rule-white-text.xlsxwriter.xlsx', 'white-cell.xlsxwriter.xlsx'])(
      '%s: an amount written white on white looks empty; it is not sent, nor is anything',
      async (name) => {
        const result = await send(copy(name))
        expect(result.code).toBe(2)
        expect(result.stderr).toMatch(
          /line 3: shown empty by its format or a conditional format \(cells? (A3, )?B3: white on white, or ;;;\)/,
        )
        expect(await refunded('SHW-68', 'SHW-69')).toEqual([])
      },
    )

    it.each([
      // The cell holds SHW-70, the sheet shows SHW-7: neither is the order the person sees refunded.
      [
        'an order number whose last run is written white shows less than it holds',
        'white-run.xlsxwriter.xlsx',
        ['SHW-7', 'SHW-70'],
        'line 2: partly written white on white (cell A2): the sheet shows less than the cell holds',
      ],
      [
        'a row struck by its row style alone (its order number names no style)',
        'struck-row.handmade.xlsx',
        ['SHW-83', 'SHW-84'],
        'line 3: struck through (cell A3)',
      ],
      [
        'an ODF 1.2 conditional cell style (style:map) that strikes the amounts over 15',
        'style-map.odfpy.ods',
        ['SHW-73', 'SHW-74'],
        'line 3: struck through (cell B3)',
      ],
    ])('%s: refused, nothing sent', async (_, name, orders, said) => {
      const before = await refunded(...orders)
      const result = await send(copy(name))
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(said)
      expect(await refunded(...orders)).toEqual(before)
    })
  })
})

describe('what a fresh review found the sheet shows (round four)', () => {
  inAWorldOfItsOwn()

  describe("a rule's colours are its font's and its fill's, told by the workbook's theme", () => {
    it.each([
      ['a rule that only adds a border (its border is black, not the text)', 'rule-border.openpyxl.xlsx', 111],
      ["a rule that fills the theme's Background 1 tinted 5% (white still)", 'rule-themetint.openpyxl.xlsx', 114],
    ])('%s: the row written white on white is refused; nothing sent', async (_, name, first) => {
      const orders = [first, first + 1, first + 2].map((n) => `SHW-${n}`)
      const result = await send(copy(name))
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toMatch(/line 3: shown empty by its format or a conditional format \(cells A3, B3/)
      expect(result.stderr).not.toMatch(/line [24]:/)
      expect(await refunded(...orders)).toEqual([])
    })

    it('a rule that fills a theme colour the workbook does not define: refused as unseen, saying why', async () => {
      const result = await send(copy('rule-theme-untold.handmade.xlsx'))
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(
        'line 2: taken as unseen (cells A2, B2: a conditional format colours them in a colour gw cannot tell',
      )
      expect(result.stderr).toContain('line 3: taken as unseen (cells A3, B3')
      expect(await refunded('SHW-114', 'SHW-115', 'SHW-116')).toEqual([])
    })
  })

  it('an .ods whose named cell style "Default" is 3 pt (as odfpy writes it): cells that name no style refused', async () => {
    const result = await send(copy('small-default-named.odfpy.ods'))
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(
      'line 2: written too small to read (cells A2, B2: a font under 5 pt shows as a dot)',
    )
    expect(result.stderr).toContain('line 3: written too small to read (cells A3, B3')
    expect(await refunded('SHW-117', 'SHW-118')).toEqual([])
  })

  describe('a comment on a cell merged over rows is read beside each of them', () => {
    it.each(['comment-merged.openpyxl.xlsx', 'comment-merged.libreoffice.ods'])(
      '%s: both rows the merged reason covers are held; nothing sent',
      async (name) => {
        const result = await send(copy(name))
        expect(result.code, result.stderr).toBe(2)
        expect(result.stderr).toContain('line 2, cell C2: "DO NOT REFUND": holds its row back')
        expect(result.stderr).toContain('line 3, cell C3: "DO NOT REFUND": holds its row back')
        expect(await refunded('SHW-119', 'SHW-120', 'SHW-121')).toEqual([])
      },
    )

    it('--status-map rejected leaves out both rows it covers; the row below is refunded', async () => {
      const result = await send(copy('comment-merged.openpyxl.xlsx'), '--status-map', 'DO NOT REFUND=rejected')
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain('line 2: the comment on C2 says "DO NOT REFUND", rejected (--status-map)')
      expect(result.stderr).toContain('line 3: the comment on C3 says "DO NOT REFUND", rejected (--status-map)')
      expect(await refunded('SHW-119', 'SHW-120', 'SHW-121')).toEqual([['SHW-121', 100]])
    })
  })

  it("an Excel thread that approves over its legacy note's DO NOT REFUND (what LibreOffice shows): held; nothing sent", async () => {
    const result = await send(copy('thread-diverge.handmade.xlsx'))
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain('line 2, cell B2: "DO NOT REFUND": holds its row back')
    expect(await refunded('SHW-122', 'SHW-123')).toEqual([])
  })

  it.each([
    ['500.00 in an .xlsx column 1.5 wide', 'shrink-to-fit.openpyxl.xlsx', 'SHW-124', ['SHW-125', 1000]],
    [
      '1,500.00 in an .ods column 0.6 cm wide (5.00 in it is read)',
      'shrink-to-fit.odfpy.ods',
      'SHW-126',
      ['SHW-127', 500],
    ],
  ] as const)(
    '%s, shrunk to fit, is refused as too small; the row whose text is drawn readable is refunded',
    async (_, name, shrunk, [read, fee]) => {
      const path = copy(name)
      const result = await send(path, '--column', 'refund_amount=Refund')
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(
        'line 2: written too small to read (cell B2: shrunk to fit a column too narrow for its text, under 5 pt)',
      )
      expect(result.stderr).not.toContain('line 3:')
      expect(await refunded(shrunk, read)).toEqual([])
      const shown = await send(path, '--column', 'refund_amount=Refund', '--only-visible')
      expect(shown.code, shown.stderr).toBe(0)
      expect(await refunded(shrunk, read)).toEqual([[read, fee]])
    },
  )
})
