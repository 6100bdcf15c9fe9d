/**
 * gw reconcile of finance's real files: exports with their own column names, workbooks, encodings and
 * separators, gw's own outputs read back.
 */
import {copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {REPO_ROOT, untab} from '../helpers/shared.js'
import {savedBy} from '../helpers/spreadsheets.js'
import {payShownOrders} from '../helpers/shown-orders.js'
import {readWorkbook, writeWorkbook, writeWorkbookBomb} from '../helpers/workbooks.js'

let world: GwWorld

const file = (name: string, content: string | Buffer) => {
  const path = join(world.configDir, name)
  writeFileSync(path, content)
  return path
}

const rowsOf = (path: string, delimiter = ',') =>
  parse(readFileSync(path), {columns: true, bom: true, delimiter, cast: untab}) as Record<string, string>[]

const gwOrderNo = async (mch: string) => (await world.sandbox.controls.orders(mch))[0]!.gw_order_no

/** The summary beside a CSV report, as lines of cells. */
const summaryOf = (csv: string) =>
  parse(readFileSync(csv.replace(/\.csv$/, '.report.summary.csv')), {
    bom: true,
    trim: true,
    relax_column_count: true,
  }) as string[][]

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

describe('reconcile of an export with its own column names', () => {
  it('never gives a false all-clear: exit 2 with the mapping hint; with --column, the 999.00 row is an amount_mismatch', async () => {
    const [wrong, missed] = await world.paidOrders(2, 10_650, 'CLEAR')
    const csv = file('export.csv', `mch_order_no,Total,State\n${wrong},999.00,paid\n${missed},106.50,unpaid\n`)
    const refused = await world.run(['reconcile', csv, '--channel', 'wechat'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('only whether each order exists could be checked')
    expect(refused.stderr).toContain('"Total" looks like amounts: --column amount=Total')
    expect(refused.stderr).toContain('"State" looks like states: --column status=State')
    expect(refused.stderr).toContain('--existence-only')
    expect(existsSync(csv.replace('.csv', '.reconciled.csv'))).toBe(false)

    const mapped = await world.run([
      'reconcile',
      csv,
      '--channel',
      'wechat',
      '--column',
      'amount=Total',
      '--column',
      'status=State',
    ])
    expect(mapped.code).toBe(1)
    expect(mapped.stderr).toContain(
      'comparing: order found (mch_order_no); amount (Total); state (State); not compared: currency',
    )
    expect(mapped.stdout).toContain('compared: order found (mch_order_no); amount (Total); state (State)')
    const [first, second] = rowsOf(csv.replace('.csv', '.reconciled.csv'))
    expect(first).toMatchObject({
      classification: 'amount_mismatch',
      detail: 'amount: merchant 999.00 THB, gateway 106.50 THB',
      gateway_total_fee: '10650',
      gateway_amount: '106.50',
    })
    expect(second).toMatchObject({
      classification: 'status_mismatch',
      detail: expect.stringContaining('missed notification'),
    })
  })

  it('--existence-only checks existence and says so; the summary and --json carry what was compared and ignored', async () => {
    const [order] = await world.paidOrders(1, 5000, 'EXIST')
    const csv = file('exist.csv', `Invoice,mch_order_no,Amount (THB)\nX,${order},1.00\n`)
    const result = await world.run(['reconcile', csv, '--existence-only', '--channel', 'wechat', '--json'])
    expect(result.code).toBe(0)
    expect(result.json()).toMatchObject({
      comparisons: [{check: 'order found', columns: ['mch_order_no']}],
      ignored_columns: ['Invoice', 'Amount (THB)'],
    })
    expect(result.stderr).toContain('ignored columns: "Invoice", "Amount (THB)"')
    expect(result.stderr).toContain(`"Amount (THB)" looks like amounts: --column amount='Amount (THB)'`)
  })

  it('a partly refunded order the merchant calls paid is a match with a note; told by a refund number when made elsewhere', async () => {
    const [partly, fully, viaGw] = await world.paidOrders(3, 10_000, 'PART')
    const wire = world.sandbox.wire()
    for (const [order, fee] of [
      [partly, 2500],
      [fully, 10_000],
    ] as const) {
      const refund = {
        mch_order_no: order,
        total_fee: 10_000,
        fee_type: 'THB',
        mch_refund_no: `${order}-R1`,
        refund_fee: fee,
      }
      expect((await wire.call('order_refund', refund)).data.result).toBe('SUCCESS')
    }
    expect((await world.run(['refund', 'create', viaGw!, '--amount', '10.00'])).code).toBe(0)
    const csv = file(
      'partly.csv',
      [
        'mch_order_no,amount,status,mch_refund_no',
        `${partly},100.00,paid,${partly}-R1`,
        `${partly},100.00,refunded_partly,${partly}-R1`,
        `${fully},100.00,paid,${fully}-R1`,
        `${viaGw},100.00,paid,`,
        `${partly},100.00,paid,`,
      ].join('\n'),
    )
    const result = await world.run(['reconcile', csv, '--channel', 'wechat'])
    expect(result.code).toBe(1)
    expect(
      rowsOf(csv.replace('.csv', '.reconciled.csv')).map((r) => [r.classification, r.detail, r.refunded_amount]),
    ).toEqual([
      ['match', 'partly refunded at the gateway: 25.00 THB of 100.00 THB', '25.00'],
      ['match', 'partly refunded at the gateway: 25.00 THB of 100.00 THB', '25.00'],
      ['status_mismatch', 'status: merchant paid, gateway REFUND (refunded in full, 100.00 THB)', '100.00'],
      ['match', 'partly refunded at the gateway: 10.00 THB of 100.00 THB', '10.00'],
      ['status_mismatch', expect.stringContaining('give it in a mch_refund_no column'), ''],
    ])
  })

  it('a mapping naming no column, or no field, is exit 2 listing what there is; nothing is queried', async () => {
    const csv = file('typo.csv', 'Invoice No,Amount\nA,1\n')
    const before = (await world.requests()).order_query ?? 0
    const typo = await world.run(['reconcile', csv, '--column', 'mch_order_no=Invoice Number'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('the file has no column "Invoice Number"')
    expect(typo.stderr).toContain('Its columns are: "Invoice No", "Amount"')
    const field = await world.run(['reconcile', csv, '--column', 'order=Invoice No'])
    expect(field.code).toBe(2)
    expect(field.stderr).toContain('"order" is not a field read here')
    expect((await world.requests()).order_query ?? 0).toBe(before)
  })
})

describe('rows that cannot be taken at their word', () => {
  it('an empty compared cell, a row wider than its header, two order numbers that disagree, a bad channel: invalid_row, never a match', async () => {
    const [a, b] = await world.paidOrders(2, 10_000, 'ROWS')
    const wire = world.sandbox.wire()
    expect(
      (
        await wire.call('native_pay', {
          channel: 'wechat',
          mch_order_no: 'ROWS-UNPAID',
          total_fee: 10_000,
          fee_type: 'THB',
        })
      ).data.result,
    ).toBe('SUCCESS')
    const gwB = await gwOrderNo(b!)
    const csv = file(
      'rows.csv',
      [
        'mch_order_no,gw_order_no,amount,status,channel',
        `ROWS-UNPAID,,,,wechat`,
        `${a},,100.00,paid,wechat,extra`,
        `${a},${gwB},100.00,paid,wechat`,
        `${a},,100.00,paid,paypal`,
        `${b},${gwB},100.00,paid,wechat`,
      ].join('\n'),
    )
    const result = await world.run(['reconcile', csv])
    expect(result.code).toBe(1)
    expect(rowsOf(csv.replace('.csv', '.reconciled.csv')).map((r) => [r.classification, r.detail])).toEqual([
      ['invalid_row', 'amount, status are empty: the row cannot be compared'],
      ['invalid_row', '1 more field than the header has columns (a separator inside a value?)'],
      [
        'invalid_row',
        expect.stringMatching(new RegExp(`^gw_order_no ${gwB} is not the gw_order_no of the order mch_order_no ${a}`)),
      ],
      ['invalid_row', expect.stringContaining('channel "paypal" is not one of')],
      ['match', ''],
    ])
  })

  it('a header and no rows is exit 2 for both commands', async () => {
    const csv = file('header-only.csv', 'mch_order_no,amount,refund_amount\n')
    for (const args of [
      ['reconcile', csv],
      ['refund', 'create', '--from-csv', csv, '--yes'],
    ]) {
      const result = await world.run(args)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('has a header but no rows')
    }
  })

  it('a gateway that answers nothing stops reconcile with exit 3 and leaves the earlier output alone', async () => {
    const orders = await world.paidOrders(3, 10_000, 'DOWN')
    const csv = file(
      'down.csv',
      `mch_order_no,amount\n${Array.from({length: 40}, (_, i) => `${orders[i % 3]},100.00`).join('\n')}\n`,
    )
    expect((await world.run(['reconcile', csv, '--channel', 'wechat'])).code).toBe(0)
    const before = readFileSync(csv.replace('.csv', '.reconciled.csv'))
    await world.faults('http-500=1')
    try {
      const result = await world.run(['reconcile', csv, '--channel', 'wechat'], {timeoutMs: 120_000})
      expect(result.code).toBe(3)
      expect(result.stderr).toContain('answered none of the first 16 order queries')
      // One sentence: the cause in brackets, then what happened ("(4 attempts).); stopped" read wrong).
      expect(result.stderr).toMatch(
        /answered none of the first 16 order queries \([^\n]*attempts\)\): stopped, nothing was written\./,
      )
      expect(result.stderr).not.toContain('.)')
    } finally {
      await world.faults('')
    }
    expect(readFileSync(csv.replace('.csv', '.reconciled.csv'))).toEqual(before)
  })
})

describe('Excel workbooks', () => {
  it('an .xlsx (Thai text, a 23-digit order number, numeric cells) reconciles and bulk-refunds as the same CSV does', async () => {
    const orders = await world.paidOrders(3, 10_000, 'XLSX')
    const numbers = await Promise.all(orders.map(gwOrderNo))
    expect(numbers[0]).toMatch(/^\d{23}$/)
    const names = ['สมชาย ใจดี', 'Somsri', 'ภูมิ']
    // The same facts as a sheet (numbers as numeric cells with a number format) and as CSV text.
    const header = ['เลขที่คำสั่งซื้อ', 'ยอดเงิน', 'สถานะ', 'ลูกค้า']
    const mapping = ['--column', 'gw_order_no=เลขที่คำสั่งซื้อ', '--column', 'amount=ยอดเงิน', '--column', 'status=สถานะ']
    const sheetRows = numbers.map((n, i) => [n, i === 2 ? 99.5 : 100, 'paid', names[i]])
    const workbook = await writeWorkbook(join(world.configDir, 'orders.xlsx'), [
      {name: 'ยอดขาย', rows: [header, ...sheetRows], formats: {B2: '#,##0.00', B3: '#,##0.00', B4: '#,##0.00'}},
    ])
    const csv = file(
      'orders.csv',
      [header, ...numbers.map((n, i) => [n, i === 2 ? '99.50' : '100.00', 'paid', names[i]])].join('\n'),
    )
    const fromSheet = await world.run([
      'reconcile',
      workbook,
      ...mapping,
      '--out',
      join(world.configDir, 'sheet.csv'),
      '--json',
    ])
    const fromCsv = await world.run(['reconcile', csv, ...mapping, '--out', join(world.configDir, 'csv.csv'), '--json'])
    expect(fromSheet.code).toBe(1)
    expect(fromSheet.json<{results: unknown}>().results).toEqual(fromCsv.json<{results: unknown}>().results)
    expect(readFileSync(join(world.configDir, 'sheet.csv'))).toEqual(readFileSync(join(world.configDir, 'csv.csv')))
    expect(
      rowsOf(join(world.configDir, 'sheet.csv')).map((r) => [r['เลขที่คำสั่งซื้อ'], r['ลูกค้า'], r.classification]),
    ).toEqual([
      [numbers[0], names[0], 'match'],
      [numbers[1], names[1], 'match'],
      [numbers[2], names[2], 'amount_mismatch'],
    ])

    // Bulk refunds: the workbook's plan is the CSV's plan; once the workbook is refunded, the CSV's rows are already refunded.
    const refundHeader = ['gw_order_no', 'refund_amount', 'หมายเหตุ']
    const refundRows = numbers.map((n, i) => [n, 12.5 + i, `คืนเงิน ${i}`])
    const refunds = await writeWorkbook(join(world.configDir, 'refunds.xlsx'), [
      {name: 'คืนเงิน', rows: [refundHeader, ...refundRows], formats: {B2: '0.00', B3: '0.00', B4: '0.00'}},
    ])
    const refundsCsv = file(
      'refunds-as-csv.csv',
      [refundHeader, ...numbers.map((n, i) => [n, (12.5 + i).toFixed(2), `คืนเงิน ${i}`])].join('\n'),
    )
    const plan = (path: string) => world.run(['refund', 'create', '--from-csv', path, '--dry-run', '--json'])
    const sheetPlan = (await plan(refunds)).json<{rows: unknown[]}>()
    expect(sheetPlan.rows).toEqual((await plan(refundsCsv)).json<{rows: unknown[]}>().rows)
    expect(sheetPlan.rows).toHaveLength(3)
    const sent = await world.run(['refund', 'create', '--from-csv', refunds, '--yes'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stdout).toContain(`report: ${join(world.configDir, 'refunds.report.xlsx')}`)
    for (const order of orders) expect((await world.ledger(order))!.refunds).toHaveLength(1)
    const after = await plan(refundsCsv)
    expect(after.code, after.stderr).toBe(0)
    const csvAfter = after.json<{rows: {status: string}[]}>()
    expect(csvAfter.rows.map((r) => r.status)).toEqual(['already_refunded', 'already_refunded', 'already_refunded'])

    // The report opens with text ids (every digit) and numeric amounts, the header frozen, a summary sheet.
    const [report, summary] = await readWorkbook(join(world.configDir, 'refunds.report.xlsx'))
    expect(report!.frozenRows).toBe(1)
    const columns = report!.rows[0]!.map((c) => c.value)
    const cell = (row: number, name: string) => report!.rows[row]![columns.indexOf(name)]!
    expect(cell(1, 'gw_order_no')).toEqual({value: numbers[0], type: 3})
    expect(cell(1, 'หมายเหตุ')).toEqual({value: 'คืนเงิน 0', type: 3})
    expect(cell(1, 'refund_amount')).toEqual({value: 12.5, type: 2, numFmt: '#,##0.00'})
    expect(cell(1, 'refund_fee')).toEqual({value: 1250, type: 2})
    expect(cell(1, 'gw_refund_no').value).toMatch(/^\d{23}$/)
    expect(cell(1, 'refund_time').value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/)
    expect(summary!.rows.find((r) => r[0]!.value === 'refunded')!.map((c) => c.value)).toEqual([
      'refunded',
      'THB',
      3,
      40.5,
    ])
  })

  it('a numeric order number past 15 digits is a problem: Excel has lost its digits', async () => {
    const sheet = await writeWorkbook(join(world.configDir, 'long-ids.xlsx'), [
      {
        name: 'S',
        rows: [
          ['gw_order_no', 'refund_amount', 'amount'],
          [Number('90020261121093015000001'), 1, 1], // a number, as a sheet holds an id typed without ',
        ],
      },
    ])
    const plan = await world.run(['refund', 'create', '--from-csv', sheet, '--dry-run'])
    expect(plan.code).toBe(2)
    expect(plan.stderr).toContain('gw_order_no is a number of more than 15 digits in the workbook')
    const reconciled = await world.run(['reconcile', sheet, '--json'])
    expect(reconciled.json<{results: {detail: string}[]}>().results[0]!.detail).toContain(
      'store order numbers as text cells',
    )
  })

  it('a ZIP bomb (3 MB expanding to 700 MB) is exit 2 in seconds, gw itself unharmed', async () => {
    const bomb = await writeWorkbookBomb(join(world.configDir, 'bomb.xlsx'), 700)
    const result = await world.run(['reconcile', bomb], {timeoutMs: 60_000})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('expands to more than gw reads')
  })

  it('other binary files are exit 2, "not a CSV or .xlsx file"; an old .xls says how to save it', async () => {
    for (const [name, bytes] of [
      ['photo.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 2, 0, 3, 4, 5])],
      ['book.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0])],
      ['report.csv', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1')],
    ] as const) {
      for (const args of [['reconcile'], ['refund', 'create', '--dry-run', '--from-csv']]) {
        const result = await world.run([...args, file(name, bytes)])
        expect(result.code, result.stderr).toBe(2)
        expect(result.stderr).toContain('is not a CSV or .xlsx file')
        // eslint-disable-next-line no-control-regex -- no byte of the file reaches the terminal
        expect(result.stderr).not.toMatch(/[\u0000-\u0008]/)
      }
    }
    expect(
      (await world.run(['reconcile', file('book.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0]))])).stderr,
    ).toContain('save it as .xlsx')
  })
})

describe('encodings and separators', () => {
  const thai = 'ลูกค้า'

  const content = (order: string, separator = ',') =>
    [
      ['mch_order_no', 'amount', 'status', thai].join(separator),
      [order, '100.00', 'paid', 'สมหญิง'].join(separator),
    ].join('\r\n') + '\r\n'

  it('UTF-16 (Excel "Unicode text") by its BOM, or told; without BOM or flag: exit 2 naming the flag', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'U16')
    const text = content(order!, '\t')
    const withBom = file('unicode.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]))
    const ok = await world.run(['reconcile', withBom, '--channel', 'wechat'])
    expect(ok.code, ok.stderr).toBe(0)
    // Answered as it was asked: tab-separated.
    expect(rowsOf(withBom.replace('.txt', '.reconciled.csv'), '\t')[0]![thai]).toBe('สมหญิง')
    const noBom = file('nobom.txt', Buffer.from(text, 'utf16le'))
    const refused = await world.run(['reconcile', noBom, '--channel', 'wechat'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('add --encoding utf-16le')
    expect((await world.run(['reconcile', noBom, '--channel', 'wechat', '--encoding', 'utf-16le'])).code).toBe(0)
  })

  it('Windows-874 (TIS-620) Thai: exit 2 naming the line and --encoding without it, read right with it', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TIS')
    // Windows-874 bytes of the Thai text (Thai letters are U+0E01.. -> 0xA1..).
    const bytes = Buffer.from(
      [...content(order!)].map((c) => (c >= '\u0e01' ? c.charCodeAt(0) - 0x0e01 + 0xa1 : c.charCodeAt(0))),
    )
    const legacy = file('legacy.csv', bytes)
    const refused = await world.run(['reconcile', legacy, '--channel', 'wechat'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('legacy.csv line 1: the text is not valid UTF-8.')
    expect(refused.stderr).toContain('--encoding windows-874')
    const read = await world.run(['reconcile', legacy, '--channel', 'wechat', '--encoding', 'windows-874'])
    expect(read.code, read.stderr).toBe(0)
    expect(read.stderr).toContain('reading encoding windows-874')
    expect(rowsOf(legacy.replace('.csv', '.reconciled.csv'))[0]).toMatchObject({
      [thai]: 'สมหญิง',
      classification: 'match',
    })
  })

  it('a semicolon file (Excel in many locales) reads, in reconcile and bulk refunds, and is answered in semicolons', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'SEMI')
    const semi = file('semi.csv', content(order!, ';'))
    const result = await world.run(['reconcile', semi, '--channel', 'wechat'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('reading columns separated by semicolons')
    expect(readFileSync(semi.replace('.csv', '.reconciled.csv'), 'utf8')).toMatch(/^\ufeffmch_order_no;amount;status;/)
    const xls = await world.run(['reconcile', semi, '--channel', 'wechat', '--out', join(world.configDir, 'x.xls')])
    expect(xls.code).toBe(2)
    expect(xls.stderr).toContain('gw writes .xlsx workbooks and CSV files, not .xls')
    const refunds = file('semi-refunds.csv', `mch_order_no;refund_amount;note\n${order};10.00;"a;b"\n`)
    const plan = await world.run(['refund', 'create', '--from-csv', refunds, '--dry-run', '--json'])
    expect(plan.json<{to_send: unknown[]}>().to_send).toEqual([
      {currency: 'THB', rows: 1, refund_fee: 1000, refund_amount: '10.00'},
    ])
  })

  it('CSV outputs start with a BOM (Thai opens right in Excel); --no-bom omits it', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'BOM')
    const csv = file('bom.csv', content(order!))
    await world.run(['reconcile', csv, '--channel', 'wechat'])
    expect(readFileSync(csv.replace('.csv', '.reconciled.csv')).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]))
    await world.run(['reconcile', csv, '--channel', 'wechat', '--no-bom'])
    expect(readFileSync(csv.replace('.csv', '.reconciled.csv')).toString('utf8', 0, 12)).toBe('mch_order_no')
    const refunds = file('bom-refunds.csv', `mch_order_no,refund_amount\n${order},1.00\n`)
    expect((await world.run(['refund', 'create', '--from-csv', refunds, '--yes'])).code).toBe(0)
    expect(readFileSync(refunds.replace('.csv', '.report.csv')).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]))
  })
})

describe("gw's own outputs are inputs", () => {
  it("reconcile reads its own output and gw's order list back: the gateway's columns said once, every row checked again", async () => {
    const [a, b] = await world.paidOrders(2, 10_000, 'REP-REC')
    const csv = world.csv(`Orders,,\nmch_order_no,amount,status\n${a},100.00,paid\n\n${b},100.00,paid\nTotal,200.00,\n`)
    const first = await world.run(['reconcile', csv, '--channel', 'wechat'])
    expect(first.code, first.stderr).toBe(0)
    const output = csv.replace(/\.csv$/, '.reconciled.csv')
    const lines = linesOf(output)
    const classification = lines[1]!.indexOf('classification')
    expect(lines.map((cells) => cells[classification] ?? '')).toEqual([
      'not_a_row',
      'classification',
      'match',
      'not_a_row',
      'match',
      'totals',
    ])
    const again = world.csv(readFileSync(output, 'utf8'))
    const second = await world.run(['reconcile', again, '--json'])
    expect(second.code, second.stderr).toBe(0)
    expect(second.stderr).toContain(`gw's own columns of an earlier report or list, not read: "gateway_state"`)
    expect(second.json<{results: {classification: string}[]}>().results.map((r) => r.classification)).toEqual([
      'match',
      'match',
    ])
    await world.createOrder('REP-REC-LIST')
    const list = join(world.configDir, 'order-list.csv')
    expect((await world.run(['order', 'list', '--out', list])).code).toBe(0)
    const listed = await world.run(['reconcile', list, '--json'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stderr).toContain(`gw's own columns of an earlier report or list, not read: "made_at"`)
  })
})

describe('rows that could not be used, in the summaries', () => {
  it('are counted under the currency they name, with no amount: an empty cell (a spreadsheet shows no stray apostrophe)', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'REP-SKIP')
    const csv = world.csv(
      `mch_order_no,refund_amount,fee_type\n${order},1.00,THB\n${order},-5.00,THB\nREP-SKIP-X,฿2.00,\n`,
    )
    const run = await world.bulk(csv, ['--skip-invalid'])
    expect(run.code, run.stderr).toBe(1)
    expect(run.stdout).toMatch(/^skipped_invalid\tTHB\t2\t-$/m)
    expect(summaryOf(csv)).toContainEqual(['skipped_invalid', 'THB', '2', ''])
    const summary = csv.replace(/\.csv$/, '.report.summary.csv')
    expect(readFileSync(summary, 'utf8')).not.toContain("'-")
    const saved = savedByLibreOffice(summary)
    if (saved) expect(saved).toContainEqual(['skipped_invalid', 'THB', '2', ''])
    const orders = world.csv(`mch_order_no,amount,fee_type\n${order},100.00,THB\n${order},-1.00,THB\n`)
    const reconciled = await world.run(['reconcile', orders, '--json'])
    expect(reconciled.code).toBe(1)
    const lines = reconciled.json<{summary: {classification: string; currency: string; rows: number}[]}>().summary
    expect(lines.map((l) => [l.classification, l.currency, l.rows])).toEqual([
      ['match', 'THB', 1],
      ['invalid_row', 'THB', 1],
    ])
  })
})

describe('files as spreadsheet programs write them', () => {
  let world: GwWorld

  const FIXTURES = join(REPO_ROOT, 'test/fixtures/finance')

  /** The fixtures' orders, as the sales sheet gives them; November's orders (november.py), 2,000.00 THB each. */
  const ORDERS = {'FIN-1': 126_711, 'FIN-2': 128_133, 'FIN-3': 129_555, 'FIN-4': 2050}

  const NOVEMBER = ['GN-1', 'GN-2', 'GN-3', 'GN-4']

  const XLSXWRITER = ['XW-1', 'XW-2']

  const WORKBOOKS = ['finance.openpyxl.xlsx', 'finance.libreoffice.xlsx', 'finance.ods']

  const copy = (name: string) => {
    const path = join(world.configDir, name)
    copyFileSync(join(FIXTURES, name), path)
    return path
  }

  const at = (name: string) => join(world.configDir, name)

  interface Reconciled {
    results: {line: number; mch_order_no: string; classification: string}[]
    totals: {line: number; amount: string; agrees?: boolean}[]
  }

  const reconcile = async (name: string, ...args: string[]) => {
    const result = await world.run(['reconcile', at(name), '--column', 'mch_order_no=Invoice No', ...args, '--json'])
    return {...result, doc: result.json<Reconciled>()}
  }

  beforeAll(async () => {
    world = await startWorld()
    const wire = world.sandbox.wire()
    for (const [mch, fee] of [
      ...Object.entries(ORDERS),
      ...NOVEMBER.map((mch) => [mch, 200_000] as const),
      ...XLSXWRITER.map((mch) => [mch, 10_000] as const),
    ]) {
      const created = await wire.call('native_pay', {
        channel: 'wechat',
        mch_order_no: mch,
        total_fee: fee,
        fee_type: 'THB',
      })
      expect(created.data.result).toBe('SUCCESS')
      expect((await world.sandbox.controls.pay(mch)).status).toBe(200)
    }
    for (const name of readdirSync(FIXTURES)) if (/\.(xlsx|ods|csv)$/.test(name)) copy(name)
  })

  afterAll(() => world.close())

  describe('sales sheets: the title row skipped, the totals row reported and checked, amounts by value', () => {
    it.each([...WORKBOOKS, 'sales.libreoffice.csv'])('%s reconciles: 4 matches, exit 0', async (name) => {
      const result = await reconcile(name)
      expect(result.code, result.stderr).toBe(0)
      expect(result.doc.results.map((r) => [r.line, r.mch_order_no, r.classification])).toEqual([
        [3, 'FIN-1', 'match'],
        [4, 'FIN-2', 'match'],
        [5, 'FIN-3', 'match'],
        [6, 'FIN-4', 'match'],
      ])
      expect(result.doc.totals).toEqual([expect.objectContaining({line: 7, amount: '3864.49', agrees: true})])
      expect(result.stderr).toContain('skipped 1 title row above the header: line 1 ("Sales November 2026")')
      expect(result.doc.totals[0]).not.toHaveProperty('classification')
    })

    it('a totals row that does not agree with the rows above it is said to; an amount changed is an amount_mismatch', async () => {
      const csv = at('sales-edited.csv')
      writeFileSync(
        csv,
        'Sales\nInvoice No,Amount,Status\nFIN-1,"฿1,267.11",paid\nFIN-2,"1,281.34",paid\nTotal,"2,548.44",\n',
      )
      const result = await reconcile('sales-edited.csv')
      expect(result.code).toBe(1)
      expect(result.doc.results.map((r) => r.classification)).toEqual(['match', 'amount_mismatch'])
      expect(result.stderr).toContain('does NOT agree with the sum of the rows above it (2548.45)')
    })
  })

  describe("formulas without a stored result (xlsxwriter's default: a placeholder 0, calculated when opened) are never read as 0", () => {
    it('reconcile makes such a row an invalid_row naming its cells, and asks nothing about it', async () => {
      const before = await world.requests()
      const result = await reconcile(
        'formulas.xlsxwriter.xlsx',
        '--sheet',
        'Orders',
        '--column',
        'amount=Amount',
        '--column',
        'status=Status',
      )
      expect(result.code).toBe(1)
      expect(result.doc.results.map((r) => [r.line, r.classification])).toEqual([
        [2, 'match'],
        [3, 'invalid_row'],
      ])
      const detail = (result.doc.results[1] as unknown as {detail: string}).detail
      expect(detail).toBe(
        'formula without a stored result in cells A3 (mch_order_no), C3 (status): open and save the workbook in your spreadsheet first (the program that wrote it does not calculate)',
      )
      // The readable row's order, once on each of the seven channels, at once.
      expect(((await world.requests()).order_query ?? 0) - (before.order_query ?? 0)).toBe(7)
    })
  })

  describe('encodings told, not guessed', () => {
    it("LibreOffice's UTF-8 export given --encoding windows-874 is refused naming the line both ways; nothing is queried", async () => {
      const before = await world.requests()
      const result = await reconcile('sales.libreoffice.csv', '--encoding', 'windows-874')
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('line 3: the file is UTF-8, not windows-874 as --encoding says')
      expect(result.stderr).toContain('as UTF-8 it reads "FIN-1,สมชาย ใจดี')
      expect(await world.requests()).toEqual(before)
    })
  })
})

describe('sheets that do not show all they hold', () => {
  let world: GwWorld

  const FIXTURES = join(REPO_ROOT, 'test/fixtures/shown')

  const copy = (name: string) => {
    const path = join(world.configDir, name)
    copyFileSync(join(FIXTURES, name), path)
    return path
  }

  beforeAll(async () => {
    world = await startWorld()
    await payShownOrders(world)
  })

  afterAll(() => world.close())

  describe('a column the sheet hides is never read', () => {
    it('reconcile: a hidden stale amount never decides a match; the shown one is compared', async () => {
      const path = copy('reconcile-hidden-amount.openpyxl.xlsx')
      const refused = await world.run(['reconcile', path])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('column B ("amount") is hidden in the sheet')
      const shown = await world.run(['reconcile', path, '--column', 'amount=Amount (THB)', '--json'])
      expect(shown.json<{results: {classification: string}[]}>().results[0]!.classification).toBe('amount_mismatch')
    })
  })

  describe('the amount is what the cell shows, in the currency it shows', () => {
    it('reconcile: the currency a cell shows is compared: never a silent match', async () => {
      const result = await world.run([
        'reconcile',
        copy('currency-format.openpyxl.xlsx'),
        '--column',
        'amount=refund_amount',
        '--existence-only',
        '--json',
      ])
      const rows = result.json<{results: {line: number; classification: string; detail: string}[]}>().results
      expect(rows.map((r) => [r.line, r.classification])).toEqual([
        [2, 'currency_mismatch'],
        [3, 'currency_mismatch'],
        [4, 'invalid_row'],
      ])
      expect(rows[2]!.detail).toContain('"US$12.50" is written in USD')
    })

    it('reconcile: a header "Amount (JPY)" over baht orders is a currency_mismatch', async () => {
      const path = join(world.configDir, 'reconcile-jpy.csv')
      writeFileSync(path, 'mch_order_no,Amount (JPY)\nSHW-47,"10,000"\n')
      const result = await world.run(['reconcile', path, '--column', 'amount=Amount (JPY)', '--json'])
      const rows = result.json<{results: {classification: string}[]}>().results
      expect(rows.map((r) => r.classification)).toEqual(['currency_mismatch'])
    })
  })
})
