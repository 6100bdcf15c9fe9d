/**
 * The reports of gw refund create --from-csv: true on every rerun, kept, summed per currency, intact in a
 * spreadsheet, and read back as inputs.
 */
import {createHash} from 'node:crypto'
import {existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {basename, extname, join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {untab} from '../../helpers/shared.js'
import {readByPandas, savedBy} from '../../helpers/spreadsheets.js'
import {readWorkbook, writeWorkbook} from '../../helpers/workbooks.js'

let world: GwWorld

const rowsOf = (path: string) =>
  parse(readFileSync(path), {columns: true, bom: true, cast: untab, relax_column_count: true}) as Record<
    string,
    string
  >[]

/** The summary beside a CSV report, as lines of cells. */
const summaryOf = (csv: string) =>
  parse(readFileSync(csv.replace(/\.csv$/, '.report.summary.csv')), {
    bom: true,
    trim: true,
    relax_column_count: true,
  }) as string[][]

const statuses = (csv: string) => world.reportOf(csv).map((r) => r.status)

interface BulkJson {
  to_send: {currency: string; rows: number; amount: number}[]
  summary: {status: string; currency: string; rows: number; amount?: number}[]
  rows: {status: string; gw_refund_no?: string; refund_time?: string; settled_by?: string}[]
  audit: Record<string, string>
}

/**
 * A report opened by LibreOffice with its default import (a CSV's or a workbook's) and saved as
 * CSV: what a user opening and saving the report gets, as lines of cells. Undefined (and the
 * check skipped, said on stderr) where LibreOffice is not installed.
 */
function savedByLibreOffice(report: string, trim = true): string[][] | undefined {
  const saved = savedBy('libreoffice', report, 'csv')
  return saved ? (parse(readFileSync(saved), {bom: true, trim, relax_column_count: true}) as string[][]) : undefined
}

/** A CSV as lines of cells, the header among them, as a spreadsheet shows them. */
const linesOf = (path: string) =>
  (parse(readFileSync(path), {bom: true, relax_column_count: true, cast: untab}) as string[][]).map((cells) =>
    cells.every((c) => c === '') ? [] : cells,
  )

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('a bulk report tells who moved the money', () => {
  it('a file rerun after its journal is lost stays already_refunded on every later run, never claimed as refunded', async () => {
    const wechat = await world.paidOrders(2, 10_000, 'REP-LOST')
    const alipay = await world.paidOrders(1, 10_000, 'REP-LOST-ALI', 'alipay')
    const csv = world.csv(`mch_order_no,refund_amount\n${[...wechat, ...alipay].map((o) => `${o},12.34`).join('\n')}\n`)
    const journal = `${csv}.journal.jsonl`
    expect((await world.bulk(csv)).code).toBe(0)
    expect(statuses(csv)).toEqual(['refunded', 'refunded', 'refunded'])
    rmSync(journal)
    const second = await world.bulk(csv, ['--json'])
    expect(second.code, second.stderr).toBe(0)
    expect(statuses(csv)).toEqual(['already_refunded', 'already_refunded', 'already_refunded'])
    // Every already_refunded row says which refund it is and when it was made.
    for (const row of second.json<BulkJson>().rows)
      expect(row).toMatchObject({
        gw_refund_no: expect.stringMatching(/^\d+$/),
        refund_time: expect.stringMatching(/^\d{4}-/),
      })
    const third = await world.bulk(csv)
    expect(third.code, third.stderr).toBe(0)
    expect(statuses(csv)).toEqual(['already_refunded', 'already_refunded', 'already_refunded'])
    const summary = summaryOf(csv)
    expect(summary.filter((line) => line[0] === 'refunded')).toEqual([])
    expect(summary).toContainEqual(['already_refunded', 'THB', '3', '37.02'])
    for (const order of [...wechat, ...alipay]) expect((await world.ledger(order))!.refunds).toHaveLength(1)
  })

  it('a rerun with its journal says refunded_earlier, with the time that run sent it', async () => {
    const orders = await world.paidOrders(2, 10_000, 'REP-EARLIER')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},500`).join('\n')}\n`)
    expect((await world.bulk(csv)).code).toBe(0)
    const again = await world.bulk(csv)
    expect(again.code, again.stderr).toBe(0)
    expect(world.reportOf(csv).map((r) => [r.status, r.earlier_run_at])).toEqual(
      Array(2).fill(['refunded_earlier', expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/)]),
    )
    expect(summaryOf(csv)).toContainEqual(['refunded_earlier', 'THB', '2', '10.00'])
  })

  it("a dry run consults this machine's history as the run does: its total is what the run sends", async () => {
    const [made, fresh] = await world.paidOrders(2, 10_000, 'REP-DRY', 'alipay')
    expect((await world.bulk(world.csv(`mch_order_no,refund_fee\n${made},700\n`))).code).toBe(0)
    const repeat = world.csv(`mch_order_no,refund_fee\n${made},700\n${fresh},300\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', repeat, '--dry-run', '--json'])
    expect(dry.code, dry.stderr).toBe(0)
    const plan = dry.json<BulkJson>()
    expect(plan.to_send).toEqual([{currency: 'THB', rows: 1, refund_fee: 300, refund_amount: '3.00'}])
    expect(plan.rows[0]).toMatchObject({status: 'already_refunded', settled_by: 'history'})
    const before = await world.requests()
    const real = await world.bulk(repeat, ['--json'])
    expect(real.code, real.stderr).toBe(0)
    const sent = real.json<BulkJson>().summary.filter((l) => l.status === 'refunded')
    expect(sent).toEqual([{status: 'refunded', currency: 'THB', rows: 1, refund_fee: 300, refund_amount: '3.00'}])
    expect((await world.requests()).order_refund! - (before.order_refund ?? 0)).toBe(1)
    expect((await world.ledger(made!))!.refunds).toHaveLength(1)
  })
})

describe('reports are kept and carry their audit trail', () => {
  it('two runs leave two reports, each with its summary; the trail names the file by SHA-256, the account and the times', async () => {
    const orders = await world.paidOrders(1, 10_000, 'REP-KEEP')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders[0]},100\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])
    const run = await world.bulk(csv, ['--json'])
    expect(run.code, run.stderr).toBe(0)
    await world.bulk(csv)
    const dir = readdirSync(world.configDir).filter((n) => n.startsWith(basename(csv, '.csv')))
    const reports = dir.filter((n) => /\.report(\.[\dT-]+)?\.csv$/.test(n))
    expect(reports).toHaveLength(2)
    expect(dir.filter((n) => /\.report(\.[\dT-]+)?\.summary\.csv$/.test(n))).toHaveLength(2)
    expect(run.json<{earlier_report: string | null}>().earlier_report).toBeNull()
    const sha256 = createHash('sha256').update(readFileSync(csv)).digest('hex')
    const audit = run.json<BulkJson>().audit
    expect(audit).toMatchObject({
      input_file: basename(csv),
      input_sha256: sha256,
      profile: 'sandbox',
      mode: 'test',
      gw_version: expect.stringMatching(world.spawned ? /^\d+\.\d+\.\d+\+\d{8}\.[0-9a-f]{7}/ : /^\d+\.\d+\.\d+$/),
      os_user: expect.any(String),
      started: expect.stringMatching(/[+-]\d\d:\d\d$/),
      finished: expect.stringMatching(/[+-]\d\d:\d\d$/),
    })
    expect(dry.json<BulkJson>().audit.input_sha256).toBe(sha256)
    expect(summaryOf(csv).slice(0, 4)).toEqual([
      ['input_file', basename(csv)],
      ['input_sha256', sha256],
      ['profile', 'sandbox'],
      ['appid', audit.appid],
    ])
  })

  it('a .csv and an .xlsx of the same name have a journal each', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'REP-TWIN')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`, 'Refunds-Nov.csv')
    const xlsx = await writeWorkbook(join(world.configDir, 'Refunds-Nov.xlsx'), [
      {
        name: 'refunds',
        rows: [
          ['mch_order_no', 'refund_fee'],
          [order, 200],
        ],
      },
    ])
    expect((await world.bulk(csv)).code).toBe(0)
    const dry = await world.run(['refund', 'create', '--from-csv', xlsx, '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect((await world.bulk(xlsx)).code).toBe(0)
    expect(existsSync(`${csv}.journal.jsonl`) && existsSync(`${xlsx}.journal.jsonl`)).toBe(true)
  })
})

describe('reports open in a spreadsheet as written', () => {
  it('a hostile header is neutralised, a plain negative number is not, and 23-digit ids survive LibreOffice', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'REP-LO')
    const hostile = '=HYPERLINK("http://x","hdr")'
    const csv = world.csv(`mch_order_no,refund_fee,"${hostile.replaceAll('"', '""')}",adjust\n${order},100,x,-50.00\n`)
    expect((await world.bulk(csv)).code).toBe(0)
    const report = csv.replace(/\.csv$/, '.report.csv')
    const text = readFileSync(report, 'utf8')
    expect(text).toContain(`"'${hostile.replaceAll('"', '""')}"`)
    expect(text).toMatch(/,-50\.00,/)
    const gwRefundNo = world.reportOf(csv)[0]!.gw_refund_no!.trim()
    expect(gwRefundNo).toMatch(/^\d{23}$/)
    const saved = savedByLibreOffice(report)
    if (!saved) return
    const header = saved[0]!
    expect(header).toContain(`'${hostile}`)
    const row = saved[1]!
    expect(row[header.indexOf('gw_refund_no')]!.trim()).toBe(gwRefundNo)
    expect(row[header.indexOf('adjust')]).toBe('-50')
  })

  it('a cell "\\r=1+1" of the input is written back as that text, neutralised: in the CSV report and in an .xlsx one', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'REP-CR')
    const cells = ['\r=1+1', 'a\r\nb\rc']
    const csv = world.csv(`mch_order_no,refund_fee,note,memo\r${order},100,"${cells[0]}","${cells[1]}"\r`)
    expect((await world.bulk(csv, ['--dry-run'])).code).toBe(0)
    const plan = csv.replace(/\.csv$/, '.dry-run.csv')
    // The same text, a ' first where a spreadsheet would run it, quoted so a reader ends no row at its CR.
    expect(readFileSync(plan, 'utf8')).toContain(`,"'${cells[0]}","${cells[1]}",`)
    const row = rowsOf(plan)[0]!
    expect([row.note, row.memo]).toEqual([`'${cells[0]}`, cells[1]])
    const xlsx = csv.replace(/\.csv$/, '.plan.xlsx')
    expect((await world.bulk(csv, ['--dry-run', '--out', xlsx])).code).toBe(0)
    // Read by exceljs, which decodes a workbook's escapes as Excel does.
    const [sheet] = await readWorkbook(xlsx)
    const columns = sheet!.rows[0]!.map((c) => c.value)
    const textOf = (value: unknown) =>
      (value as {richText?: {text: string}[]}).richText?.map((run) => run.text).join('') ?? value
    expect(['note', 'memo'].map((name) => textOf(sheet!.rows[1]![columns.indexOf(name)]!.value))).toEqual(cells)
    // In LibreOffice, both are text, not the formula's 2 (its CSV import reads a CR as a new line; a workbook's CR stays).
    for (const path of [plan, xlsx]) {
      const saved = savedByLibreOffice(path, false)
      if (!saved) return
      const note = saved[1]![saved[0]!.indexOf('note')]
      expect(note).toBe(path === plan ? "'\n=1+1" : cells[0])
    }
  })

  it("an .xlsx report: status right after the order number, the input's numbers and dates typed, amounts as numbers, times with their offset, columns sized to content", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'REP-XLSX-000000000000001')
    const xlsx = await writeWorkbook(join(world.configDir, 'typed.xlsx'), [
      {
        name: 'refunds',
        rows: [
          ['note', 'mch_order_no', 'refund_fee', 'paid_on', 'weight'],
          ['first', order, 150, new Date(Date.UTC(2026, 10, 20)), 1234.5],
        ],
        formats: {D2: 'yyyy-mm-dd', E2: '#,##0.00'},
      },
    ])
    expect((await world.bulk(xlsx)).code).toBe(0)
    const [report, summary] = await readWorkbook(join(world.configDir, 'typed.report.xlsx'))
    const columns = report!.rows[0]!.map((c) => c.value)
    expect(columns.slice(0, 3)).toEqual(['note', 'mch_order_no', 'status'])
    const cell = (name: string) => report!.rows[1]![columns.indexOf(name)]!
    expect(cell('refund_amount')).toEqual({value: 1.5, type: 2, numFmt: '#,##0.00'})
    // The input's own number and date cells stay typed, with their formats.
    expect(cell('weight')).toEqual({value: 1234.5, type: 2, numFmt: '#,##0.00'})
    expect(cell('paid_on')).toEqual({value: new Date(Date.UTC(2026, 10, 20)), type: 4, numFmt: 'yyyy-mm-dd'})
    expect(cell('gw_refund_no').value).toMatch(/^\d{23}$/)
    expect(cell('refund_time').value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/)
    expect(report!.widths[columns.indexOf('mch_order_no')]).toBeGreaterThanOrEqual(order!.length)
    expect(summary!.name).toBe('summary')
    expect(summary!.rows.map((r) => r[0]!.value)).toContain('input_sha256')
  })
})

describe('a report lines up with its input, line for line', () => {
  it('a title, a blank line and a totals row are written where they were: not_a_row, totals with its check', async () => {
    const [a, b] = await world.paidOrders(2, 10_000, 'REP-LINES')
    const csv = world.csv(
      `Refunds November 2026,,\n\nmch_order_no,refund_amount,note\n${a},10.00,"two\nlines"\n,,\n${b},5.00,x\nTotal,15.00,\n`,
    )
    expect((await world.bulk(csv)).code).toBe(0)
    const input = readFileSync(csv, 'utf8').split('\n')
    const report = readFileSync(csv.replace(/\.csv$/, '.report.csv'), 'utf8')
      .replace(/^\uFEFF/, '')
      .split('\n')
    expect(report).toHaveLength(input.length)
    const lines = linesOf(csv.replace(/\.csv$/, '.report.csv'))
    const status = lines[2]!.indexOf('status')
    const advice = lines[2]!.indexOf('advice')
    expect(lines.map((cells) => [cells[0], cells[status]])).toEqual([
      ['Refunds November 2026', 'not_a_row'],
      ['', 'not_a_row'],
      ['mch_order_no', 'status'],
      [a, 'refunded'],
      ['', 'not_a_row'],
      [b, 'refunded'],
      ['Total', 'totals'],
    ])
    expect(lines[6]![advice]).toBe('it agrees with the rows above it (15.00)')
    // Not rows: none is counted in the summary.
    const summary = summaryOf(csv)
    const header = summary.findIndex((line) => line[0] === 'status')
    expect(summary.slice(header + 1, header + 3)).toEqual([['refunded', 'THB', '2', '15.00'], ['']])
  })

  it('a workbook report keeps each row on its row: the title, an empty row and the totals row too', async () => {
    const [a, b] = await world.paidOrders(2, 10_000, 'REP-LINES-X')
    const xlsx = await writeWorkbook(join(world.configDir, 'lines.xlsx'), [
      {
        name: 'refunds',
        rows: [['Refunds November 2026'], ['mch_order_no', 'refund_amount'], [a, 10], [], [b, 5], ['Total', 15]],
      },
    ])
    expect((await world.bulk(xlsx)).code).toBe(0)
    const [report] = await readWorkbook(join(world.configDir, 'lines.report.xlsx'))
    expect(report!.frozenRows).toBe(2)
    expect(report!.rows.map((cells) => [cells[0]?.value ?? null, cells[1]?.value ?? null])).toEqual([
      ['Refunds November 2026', 'not_a_row'],
      ['mch_order_no', 'status'],
      [a, 'refunded'],
      [null, 'not_a_row'],
      [b, 'refunded'],
      ['Total', 'totals'],
    ])
  })
})

describe("gw's own outputs are inputs", () => {
  interface Plan {
    rows: {line: number; status: string}[]
    earlier_output_columns: string[]
  }

  const dry = (path: string) => world.run(['refund', 'create', '--from-csv', path, '--dry-run', '--json'])

  it("a finished batch's report, CSV or workbook, read back: every row already refunded, nothing sent, gw's columns said once", async () => {
    const [a, b] = await world.paidOrders(2, 10_000, 'REP-AGAIN')
    const [ali] = await world.paidOrders(1, 10_000, 'REP-AGAIN-ALI', 'alipay')
    const csv = world.csv(
      `Refunds,,\nmch_order_no,refund_amount,note\n${a},10.00,x\n\n${b},5.00,y\n${ali},2.50,z\nTotal,17.50,\n`,
    )
    expect((await world.bulk(csv)).code).toBe(0)
    expect((await world.bulk(csv, ['--out', csv.replace(/\.csv$/, '.report.xlsx')])).code).toBe(0)
    const before = await world.requests()
    for (const report of ['.report.csv', '.report.xlsx']) {
      const again = join(world.configDir, `again-${basename(csv, '.csv')}${extname(report)}`)
      writeFileSync(again, readFileSync(csv.replace(/\.csv$/, report)))
      const planned = await dry(again)
      expect(planned.code, planned.stderr).toBe(0)
      expect(planned.json<Plan>().rows.map((r) => [r.line, r.status])).toEqual([
        [3, 'already_refunded'],
        [5, 'already_refunded'],
        [6, 'already_refunded'],
      ])
      expect(planned.stderr).toContain(
        `gw's own columns of an earlier report or list, not read: "status", "gw_refund_no", "refund_time", "earlier_run_at", "settled_by", "err_code", "err_msg", "advice"; every row is checked again`,
      )
      expect(planned.stderr).not.toContain('both refund_fee and refund_amount')
      expect(planned.stderr).toContain('a totals row ("Total") of "17.50", not acted on; it agrees')
      const run = await world.bulk(again)
      expect(run.code, run.stderr).toBe(0)
    }
    expect((await world.requests()).order_refund ?? 0).toBe(before.order_refund ?? 0)
    for (const order of [a, b, ali]) expect((await world.ledger(order!))!.refunds).toHaveLength(1)
    // The report of the report: gw's status column written over in its place, the file's own columns as they were.
    const rereport = linesOf(join(world.configDir, `again-${basename(csv, '.csv')}.report.csv`))
    expect(rereport[1]).toEqual(linesOf(csv.replace(/\.csv$/, '.report.csv'))[1])
    expect(rereport.map((cells) => cells[3] ?? '')).toEqual([
      'not_a_row',
      'status',
      'already_refunded',
      'not_a_row',
      'already_refunded',
      'already_refunded',
      'totals',
    ])
  })

  it('a refund list export read back is already refunded; both amount forms that disagree are a problem, nothing sent', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'REP-LIST')
    expect((await world.run(['refund', 'create', order!, '--amount', '3.00'])).code).toBe(0)
    const list = join(world.configDir, 'refund-list.csv')
    expect((await world.run(['refund', 'list', '--out', list])).code).toBe(0)
    const mine = world.csv(
      [
        readFileSync(list, 'utf8').split('\n')[0],
        ...readFileSync(list, 'utf8')
          .split('\n')
          .filter((l) => l.includes(order!)),
      ].join('\n'),
    )
    const planned = await dry(mine)
    expect(planned.code, planned.stderr).toBe(0)
    expect(planned.json<Plan>().rows.map((r) => r.status)).toEqual(['already_refunded'])
    expect(planned.json<Plan>().earlier_output_columns).toContain('status')
    const before = await world.requests()
    const wrong = world.csv(`mch_order_no,refund_fee,refund_amount,fee_type\n${order},300,4.00,THB\n`)
    const refused = await world.bulk(wrong)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      'line 2: both refund_fee ("300") and refund_amount ("4.00") are filled and disagree: 4.00 THB is 400 in minor units; give one',
    )
    expect((await world.requests()).order_refund ?? 0).toBe(before.order_refund ?? 0)
  })
})

describe('reports as LibreOffice, Gnumeric and pandas open them: identifiers whole, amounts numbers', () => {
  /** A bulk run of two refunds, its report written as `extension`: the report, and the gateway's refund numbers. */
  async function reportAs(extension: 'csv' | 'xlsx', prefix: string) {
    const orders = await world.paidOrders(2, 10_000, prefix)
    const csv = world.csv(`mch_order_no,refund_amount\n${orders.map((o) => `${o},1.50`).join('\n')}\n`)
    const report = csv.replace(/\.csv$/, `.report.${extension}`)
    const run = await world.bulk(csv, ['--out', report, '--json'])
    expect(run.code, run.stderr).toBe(0)
    const ids = run.json<BulkJson>().rows.map((r) => r.gw_refund_no!)
    for (const id of ids) expect(id).toMatch(/^\d{23}$/)
    return {report, ids}
  }

  /** The gw_refund_no and refund_amount cells of a workbook's rows: their values and exceljs types (2 number, 3 text). */
  async function cellsOf(workbook: string) {
    const [sheet] = await readWorkbook(workbook)
    const columns = sheet!.rows[0]!.map((c) => c.value)
    return sheet!.rows.slice(1).map((row) => ({
      id: row[columns.indexOf('gw_refund_no')]!,
      amount: row[columns.indexOf('refund_amount')]!,
    }))
  }

  it('an .xlsx report: every program keeps each 23-digit id as text and reads the amounts as numbers', async () => {
    const {report, ids} = await reportAs('xlsx', 'REP-OPEN-X')
    for (const program of ['libreoffice', 'gnumeric'] as const) {
      const saved = savedBy(program, report, 'xlsx')
      if (!saved) continue
      expect((await cellsOf(saved)).map(({id, amount}) => [id.value, id.type, amount.value, amount.type])).toEqual(
        ids.map((id) => [id, 3, 1.5, 2]),
      )
    }
    const read = readByPandas(report)
    if (!read) return
    expect(read.gw_refund_no).toEqual({dtype: 'object', values: ids})
    expect(read.refund_amount).toEqual({dtype: 'float64', values: [1.5, 1.5]})
  })

  it('a CSV report: LibreOffice and pandas keep the ids (after their tab) and read amounts as numbers; Gnumeric rounds them, and the summary says to open the .xlsx there', async () => {
    const {report, ids} = await reportAs('csv', 'REP-OPEN-C')
    const libre = savedBy('libreoffice', report, 'xlsx')
    if (libre)
      expect(
        (await cellsOf(libre)).map(({id, amount}) => [String(id.value).trim(), id.type, amount.value, amount.type]),
      ).toEqual(ids.map((id) => [id, 3, 1.5, 2]))
    const read = readByPandas(report)
    if (read) {
      expect(read.gw_refund_no!.dtype).toBe('object')
      expect(read.gw_refund_no!.values.map((v) => String(v).trim())).toEqual(ids)
      expect(read.refund_amount).toEqual({dtype: 'float64', values: [1.5, 1.5]})
    }
    // Measured: Gnumeric reads a tab-led number as a number (9.10202611271323E+22), so the summary says what to do.
    const gnumeric = savedBy('gnumeric', report, 'xlsx')
    if (gnumeric) expect((await cellsOf(gnumeric)).map(({id}) => id.type)).toEqual([2, 2])
    const summary = parse(readFileSync(report.replace(/\.csv$/, '.summary.csv')), {
      bom: true,
      relax_column_count: true,
    }) as string[][]
    expect(summary.at(-1)).toEqual([
      'identifiers',
      'numbers of more than 15 digits (gw_refund_no, gw_order_no) are written after a tab: LibreOffice and Excel keep them as text, and a script trims the tab; Gnumeric ignores the tab and rounds them (9.10202611271323E+22): open the .xlsx report there (--out NAME.xlsx)',
    ])
  })
})

describe('files a spreadsheet opens', () => {
  // A leading CR cannot arrive from a file (line endings are read as new lines); spreadsheetSafe's unit test covers it.
  const hostile = ['=HYPERLINK("http://evil.example","click")', "+cmd|' /C calc'!A0", '@SUM(1)', '-2+3', '\tTAB']

  const quote = (value: string) => `"${value.replace(/"/g, '""')}"`

  it('the refund report and the reconcile output neutralise every cell a spreadsheet would read as a formula', async () => {
    const orders = await world.paidOrders(hostile.length, 10_000, 'SAFE')
    const rows = orders.map((order, i) => `${order},100,${quote(hostile[i]!)}`).join('\n')
    const csv = world.numberedFile('formulas.csv', `mch_order_no,refund_fee,note\n${rows}\n`)
    expect((await world.bulk(csv)).code).toBe(0)
    const report = parse(readFileSync(csv.replace(/\.csv$/, '.report.csv')), {columns: true, bom: true}) as Record<
      string,
      string
    >[]
    expect(report.map((r) => r.note)).toEqual(hostile.map((v) => `'${v}`))
    expect(report.map((r) => r.refund_fee)).toEqual(hostile.map(() => '100'))
    const recon = world.numberedFile(
      'formulas-orders.csv',
      `mch_order_no,note\n${orders.map((o, i) => `${o},${quote(hostile[i]!)}`).join('\n')}\n`,
    )
    await world.run(['reconcile', recon, '--channel', 'wechat', '--existence-only'])
    const out = parse(readFileSync(recon.replace(/\.csv$/, '.reconciled.csv')), {columns: true, bom: true}) as Record<
      string,
      string
    >[]
    expect(out.map((r) => r.note)).toEqual(hostile.map((v) => `'${v}`))
    expect(out[0]!.gateway_total_fee).toBe('10000')
  })
})
