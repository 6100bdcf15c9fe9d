/**
 * gw refund create --from-csv on what a sheet says beside its cells' text (issue 44, round three):
 * comments on cells that say not to refund, text too small to read, white text on a fill a
 * conditional format adds, and how a row held back is said. Fixtures by openpyxl, xlsxwriter,
 * odfpy and LibreOffice (test/fixtures/shown); the sandbox's ledger says what money moved.
 */
import {copyFileSync} from 'node:fs'
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

const send = (path: string, ...args: string[]) => world.run(['refund', 'create', '--from-csv', path, '--yes', ...args])

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
