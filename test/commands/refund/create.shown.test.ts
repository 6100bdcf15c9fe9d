/**
 * gw refund create --from-csv on what a sheet says beside its cells' text (issue 44, round three):
 * comments on cells that say not to refund, text too small to read, white text on a fill a
 * conditional format adds, and how a row held back is said. Fixtures by openpyxl, xlsxwriter,
 * odfpy and LibreOffice (test/fixtures/shown); the sandbox's ledger says what money moved.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {REPO_ROOT} from '../../helpers/shared.js'
import {payShownOrders} from '../../helpers/shown-orders.js'

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

beforeAll(async () => {
  world = await startWorld()
  await payShownOrders(world)
})

afterAll(() => world.close())

describe('a comment on a cell that says not to refund holds its row, as a note beside it does', () => {
  it.each([
    ['legacy notes, as openpyxl writes them', 'comments.openpyxl.xlsx'],
    ["Excel's threaded comments (the thread read, not the note Excel keeps beside it)", 'comments.excel.handmade.xlsx'],
    ['.ods annotations, as LibreOffice saves them', 'comments.libreoffice.ods'],
  ])('%s: the run stops naming the cell and the comment; nothing sent', async (_, name) => {
    const before = await refunded('SHW-91', 'SHW-92', 'SHW-93')
    const result = await send(copy(name))
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(
      `line 1: a comment says not to refund its row: "DO NOT REFUND" (cell B3); gw refunds none of the file unasked: take those rows out of the file, or say what a comment means with --status-map 'DO NOT REFUND=rejected'`,
    )
    // Every comment read is said, with what it did: one that says nothing of refunding is not acted on.
    expect(result.stderr).toContain('line 2, cell A2: "customer called twice": says nothing of refunding')
    expect(result.stderr).toContain('line 3, cell B3: "DO NOT REFUND": holds its row back')
    expect(await refunded('SHW-91', 'SHW-92', 'SHW-93')).toEqual(before)
  })

  it('the dry run says the held row held, with its comment, and the others not sent; --json lists the comments', async () => {
    const path = copy('comments.openpyxl.xlsx')
    const result = await world.run(['refund', 'create', '--from-csv', path, '--dry-run', '--json'])
    expect(result.code, result.stderr).toBe(2)
    const json = JSON.parse(result.stdout) as {comments: unknown[]; rows: {line: number; status: string}[]}
    expect(json.comments).toEqual([
      {line: 2, cell: 'A2', text: 'customer called twice', did: 'says nothing of refunding'},
      {line: 3, cell: 'B3', text: 'DO NOT REFUND', did: 'holds its row back'},
    ])
    expect(json.rows.map((r) => [r.line, r.status])).toEqual([
      [2, 'pending'],
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
    const left = await send(copy('comments.openpyxl.xlsx'), '--status-map', 'DO NOT REFUND=rejected')
    expect(left.code, left.stderr).toBe(0)
    expect(left.stderr).toContain('line 3: the comment on B3 says "DO NOT REFUND", rejected (--status-map)')
    expect(await refunded('SHW-91', 'SHW-92', 'SHW-93')).toEqual([...before, ['SHW-91', 1000], ['SHW-93', 3000]].sort())
    const approved = await send(copy('comments.libreoffice.ods'), '--status-map', 'DO NOT REFUND=approved')
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
    expect(result.stderr).toContain('a comment says not to refund its row: "on hold" (cell D3)')
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

  it("an .ods annotation is never read as its cell's text: the order number is the cell's own", async () => {
    const result = await world.run([
      'refund',
      'create',
      '--from-csv',
      copy('comments.libreoffice.ods'),
      '--dry-run',
      '--status-map',
      'DO NOT REFUND=rejected',
    ])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/│ 2 +│ SHW-91 +│/)
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
    expect(result.stdout).toMatch(/│ 3 +│ SHW-28 +│ +│ - +│ held +│/)
    expect(result.stdout).toContain(
      'Fix the problems above, then run without --dry-run (the file is held back by its words, not a row: --skip-invalid skips none of it).',
    )
    expect(result.stderr).toContain('read for what their words say (approvals, notes that hold a row back): "Note"')
    expect(result.stderr).not.toContain('ignored columns')
    const json = JSON.parse(
      (await world.run(['refund', 'create', '--from-csv', path, '--dry-run', '--json'])).stdout,
    ) as {ignored_columns: string[]; word_columns: string[]; rows: {line: number; status: string; err_msg?: string}[]}
    expect(json).toMatchObject({ignored_columns: [], word_columns: ['Note']})
    expect(json.rows[1]).toMatchObject({status: 'held', err_msg: 'held by its note "duplicate - skip" (column "Note")'})
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
