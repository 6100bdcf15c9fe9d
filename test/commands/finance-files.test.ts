/**
 * Finance's real files, through the CLI against the sandbox: exports with their own column
 * names, Excel workbooks, legacy encodings and separators, and outputs a spreadsheet opens
 * with every character and digit intact.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {REPO_ROOT, untab} from '../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../helpers/terminal.js'
import {readWorkbook, writeSharedStringsBomb, writeWorkbook, writeWorkbookBomb} from '../helpers/workbooks.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

const file = (name: string, content: string | Buffer) => {
  const path = join(world.configDir, name)
  writeFileSync(path, content)
  return path
}
const rowsOf = (path: string, delimiter = ',') =>
  parse(readFileSync(path), {columns: true, bom: true, delimiter, cast: untab}) as Record<string, string>[]
const gwOrderNo = async (mch: string) => (await world.sandbox.controls.orders(mch))[0]!.gw_order_no

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

  it('a refund row whose order numbers disagree is a problem; nothing is sent', async () => {
    const [a, b] = await world.paidOrders(2, 10_000, 'TWO')
    const csv = file('two.csv', `mch_order_no,gw_order_no,refund_amount\n${a},${await gwOrderNo(b!)},1.00\n`)
    const result = await world.run(['refund', 'create', '--from-csv', csv, '--yes'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('the row names two orders')
    expect((await world.ledger(a!))!.refunds).toEqual([])
  })

  it('your own columns are never changed: gw writes gw_status beside your Status; empty cells of a field it read are filled', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'OWN')
    const csv = file('own.csv', `mch_order_no,refund_amount,mch_refund_no,Status\n${order},1.00,,Approved by Somchai\n`)
    expect((await world.run(['refund', 'create', '--from-csv', csv, '--yes'])).code).toBe(0)
    const [row] = rowsOf(csv.replace('.csv', '.report.csv'))
    expect(row).toMatchObject({Status: 'Approved by Somchai', gw_status: 'refunded', refund_amount: '1.00'})
    expect(row!.mch_refund_no).toMatch(/^RF[0-9A-F]{30}$/)
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
  }, 120_000)
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
  }, 60_000)

  it("the issue's bomb, gigabytes of shared strings of 1 KiB each: exit 2 in seconds, by the size the part declares or by the strings it holds", async () => {
    // 3 GiB declared (as the 5.8 MB workbook of issue 37 unpacks): refused before anything is unpacked.
    const declared = await writeSharedStringsBomb(join(world.configDir, 'declared.xlsx'), 1, 3 * 1024 - 1)
    // 120 MiB of strings, each well under any cell's limit: refused once they pass what gw holds.
    const held = await writeSharedStringsBomb(join(world.configDir, 'held.xlsx'), 120)
    for (const bomb of [declared, held]) {
      const started = Date.now()
      const result = await world.run(['refund', 'create', '--from-csv', bomb, '--dry-run'], {timeoutMs: 60_000})
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('expands to more than gw reads')
      expect(Date.now() - started).toBeLessThan(20_000)
    }
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

describe('what the sheet shows is what is refunded (issue 37)', () => {
  it('a sheet using all 16,384 columns: its report is checked before money moves, written as CSV, or refused when named .xlsx', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'WIDE')
    const header = ['mch_order_no', 'refund_amount', ...Array.from({length: 16_382}, (_, i) => `note ${i + 3}`)]
    const sheet = await writeWorkbook(join(world.configDir, 'wide.xlsx'), [
      {name: 'Refunds', rows: [header, [order, 25, ...header.slice(2).map(() => 'x')]]},
    ])
    const named = await world.run([
      'refund',
      'create',
      '--from-csv',
      sheet,
      '--out',
      join(world.configDir, 'r.xlsx'),
      '--yes',
    ])
    expect(named.code).toBe(2)
    expect(named.stderr).toContain(
      "the output would have 16,395 columns, past a worksheet's 16,384: it does not fit a workbook",
    )
    expect((await world.ledger(order!))!.refunds).toEqual([])
    const sent = await world.run(['refund', 'create', '--from-csv', sheet, '--yes'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stderr).toContain(
      "the output is written as CSV, wide.report.csv: it has 16,395 columns, past a worksheet's 16,384",
    )
    expect(sent.stderr).toContain('ignored columns: "note 3", "note 4"')
    expect(sent.stderr).toContain('"note 22", and 16,362 more')
    expect((await world.ledger(order!))!.refunds.map((r) => r.refund_fee)).toEqual([2500])
    expect(rowsOf(join(world.configDir, 'wide.report.csv'))[0]).toMatchObject({mch_order_no: order, status: 'refunded'})
  })

  it("Excel's filtered sheet: stopped naming each row it does not show; --only-visible refunds the rows shown, and the report says the rest were left out", async () => {
    await world.paidOrders(6, 100_000, 'NOV')
    const sheet = file('november.xlsx', readFileSync(join(REPO_ROOT, 'test/fixtures/sheets/filtered.excel.xlsx')))
    const args = ['refund', 'create', '--from-csv', sheet, '--column', 'mch_order_no=Invoice No']
    args.push('--column', 'refund_amount=Refund (THB)', '--yes')
    const stopped = await world.run(args)
    expect(stopped.code).toBe(2)
    expect(stopped.stderr).toContain(
      'reading sheet "November", the one the workbook opens on, not its first ("October"); the workbook also has "October"; --sheet picks another',
    )
    expect(stopped.stderr).toContain('line 4: hidden in the sheet: such a row is never refunded silently')
    expect(stopped.stderr).toContain('line 5: filtered out by the filter on column D in the sheet')
    expect(stopped.stderr).toContain('line 6: struck through (cells A6, B6, D6) in the sheet')
    expect(stopped.stderr).toContain(
      'line 8: a totals row ("visible total") of "1400.00", not acted on; it agrees with the rows above it that the sheet shows (1400.00)',
    )
    for (let n = 1; n <= 6; n++) expect((await world.ledger(`NOV-${n}`))!.refunds).toEqual([])

    const sent = await world.run([...args, '--only-visible'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stderr).toContain('3 rows the sheet does not show, left out (--only-visible): not sent')
    const refunded = await Promise.all([1, 2, 3, 4, 5, 6].map(async (n) => (await world.ledger(`NOV-${n}`))!.refunds))
    expect(refunded.map((r) => r.map((x) => x.refund_fee))).toEqual([[10_000], [20_000], [], [], [], [60_000]])
    const [report] = await readWorkbook(join(world.configDir, 'november.report.xlsx'))
    const header = report!.rows[0]!.map((c) => c.value)
    const at = (row: number, name: string) => report!.rows[row]![header.indexOf(name)]?.value
    expect([1, 2, 3, 4, 5, 6, 7].map((row) => [at(row, 'Invoice No') ?? '', at(row, 'status')])).toEqual([
      ['NOV-1', 'refunded'],
      ['NOV-2', 'refunded'],
      ['NOV-3', 'left_out'],
      ['NOV-4', 'left_out'],
      ['NOV-5', 'left_out'],
      ['NOV-6', 'refunded'],
      ['', 'totals'],
    ])
    expect(at(4, 'advice')).toBe('filtered out by the filter on column D: left out by --only-visible')
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

describe('a dry run that shows the plan', () => {
  it('shows the rows (20, then how many more), orders with several rows, and writes the plan file', async () => {
    const orders = await world.paidOrders(24, 10_000, 'PLAN')
    const lines = orders.map((o) => `${o},10.00`)
    lines.splice(1, 0, `${orders[0]},20.00`, `${orders[0]},-5`)
    const csv = file('plan.csv', `mch_order_no,refund_amount\n${lines.join('\n')}\n`)
    const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(result.code).toBe(2)
    expect(result.stdout).toContain('26 rows, 24 orders; to send: 25 rows, 260.00 THB')
    expect(result.stdout.match(/THB +│ would_refund +│/g)).toHaveLength(19)
    expect(result.stdout).toMatch(new RegExp(`│ 4 +│ ${orders[0]} +│ +│ - +│ skipped_invalid │`))
    expect(result.stdout).toContain('... and 6 more (every row is in the plan file and in --json)')
    expect(result.stdout).toContain(
      `Orders with several rows:\n  ${orders[0]}: lines 2, 3 send 30.00 THB of 100.00 THB left`,
    )
    expect(result.stdout).toContain(`plan: ${csv.replace('.csv', '.dry-run.csv')}`)
    expect(result.stderr).toContain('line 4: refund_amount "-5" is negative')
    const plan = rowsOf(csv.replace('.csv', '.dry-run.csv'))
    expect(plan).toHaveLength(26)
    expect(plan[0]).toMatchObject({status: 'would_refund', refund_fee: '1000', refund_amount: '10.00', fee_type: 'THB'})
    expect(plan[2]).toMatchObject({status: 'skipped_invalid', err_msg: expect.stringContaining('is negative')})
    expect(Object.values(await world.requests()).reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    for (const order of orders) expect((await world.ledger(order))!.refunds).toEqual([])
  })

  it('Ctrl-C while the orders are checked: nothing was sent, exit 130, and the progress never shares a line', async () => {
    const orders = await world.paidOrders(30, 10_000, 'STOP')
    const csv = file('stop.csv', `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    await world.faults('latency=150-200ms')
    try {
      const before = (await world.requests()).order_query ?? 0
      const {child, result} = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '1'])
      while (((await world.requests()).order_query ?? 0) < before + 3) await new Promise((r) => setTimeout(r, 50))
      child.kill('SIGINT')
      const stopped = await result
      expect(stopped.code).toBe(130)
      expect(stopped.stderr).toContain('stopping the checks: nothing has been sent')
      expect(stopped.stderr).toContain('Interrupted while checking the orders: nothing was sent.')
      expect(existsSync(`${csv}.journal.jsonl`)).toBe(false)
      for (const order of orders) expect((await world.ledger(order))!.refunds).toEqual([])
      if (!HAS_TMUX) return
      const terminal = new Terminal(['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '1'], {
        GW_CONFIG_DIR: world.configDir,
      })
      try {
        await terminal.waitFor(/checking orders .*\d+\/30/)
        terminal.press('C-c')
        const screen = await terminal.waitFor(/EXIT=130/)
        expect(screen).toMatch(/^stopping the checks: nothing has been sent$/m)
        expect(screen).toMatch(/^Error: Interrupted while checking the orders: nothing was sent\.$/m)
      } finally {
        terminal.close()
      }
    } finally {
      await world.faults('')
    }
  })
})
