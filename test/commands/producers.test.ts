/**
 * Finance's files as real spreadsheet programs write them (test/fixtures/finance, made once with
 * openpyxl and LibreOffice: see its README), through the CLI against the sandbox: each workbook
 * reconciles and bulk-refunds as LibreOffice's CSV export of it does; cells are read by value;
 * title rows and totals rows are handled; negatives are never refunded.
 */
import {copyFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {REPO_ROOT} from '../helpers/shared.js'

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

const at = (name: string) => join(world.configDir, name)
interface Reconciled {
  results: {line: number; mch_order_no: string; classification: string}[]
  totals: {line: number; amount: string; agrees?: boolean}[]
}
const reconcile = async (name: string, ...args: string[]) => {
  const result = await world.run(['reconcile', at(name), '--column', 'mch_order_no=Invoice No', ...args, '--json'])
  return {...result, doc: result.json<Reconciled>()}
}
const plan = (name: string, ...args: string[]) =>
  world.run([
    'refund',
    'create',
    '--from-csv',
    at(name),
    '--column',
    'mch_order_no=Invoice No',
    ...args,
    '--dry-run',
    '--json',
  ])

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

describe('refund sheets', () => {
  const expected = [
    ['FIN-1', '100.00 THB'],
    ['FIN-2', '200.00 THB'],
    ['FIN-3', '300.00 THB'],
    ['FIN-4', '10.25 THB'],
  ]
  interface Plan {
    rows: {line: number; mch_order_no: string; refund_fee?: number; status: string}[]
  }
  it.each<[string, string | undefined]>([
    ...WORKBOOKS.map((w): [string, string] => [w, 'Refunds']),
    ['refunds.libreoffice.csv', undefined],
  ])('%s (sheet %s) plans the same four refunds; the totals row is not a row', async (name, sheet) => {
    const result = await plan(name, '--column', 'refund_amount=Refund', ...(sheet ? ['--sheet', sheet] : []))
    expect(result.code, result.stderr).toBe(0)
    const rows = result.json<Plan>().rows
    expect(rows.map((r) => [r.mch_order_no, r.refund_fee, r.status])).toEqual(
      expected.map(([mch], i) => [mch, [10_000, 20_000, 30_000, 1025][i], 'would_refund']),
    )
    expect(rows.map((r) => r.line)).toEqual([3, 4, 5, 6])
    expect(result.stderr).toContain('line 7: a totals row ("รวม (Total)") of "610.25", not acted on; it agrees')
  })

  it.each(WORKBOOKS)(
    '%s: negative cells (red, parenthesised, accounting, baht) and zero are refused by line, nothing sent',
    async (name) => {
      const before = await world.requests()
      const result = await plan(name, '--column', 'refund_amount=Refund', '--sheet', 'Negatives')
      expect(result.code).toBe(2)
      // Each as the sheet shows it: with a minus, or in parentheses.
      for (const line of [3, 5, 6])
        expect(result.stderr).toMatch(new RegExp(`line ${line}: refund_amount "(?:-[^"]+|\\([^"]+\\))" is negative`))
      // Red without a minus: the sheet shows 2.50, the cell holds -2.5, and that is said.
      expect(result.stderr).toMatch(
        /line 4: refund_amount: the cell holds -2\.5, a negative amount its number format shows as "2\.50", without its minus .*; a refund must be above zero/,
      )
      expect(result.stderr).toMatch(/line 7: refund_amount is zero/)
      expect((await world.requests()).order_refund ?? 0).toBe(before.order_refund ?? 0)
    },
  )

  it('a percentage is not an amount; a formula without its result is refused with its cell (openpyxl)', async () => {
    const percent = await plan('finance.openpyxl.xlsx', '--column', 'refund_amount=Refund', '--sheet', 'Percent')
    expect(percent.code).toBe(2)
    expect(percent.stderr).toContain('line 2: refund_amount: the cell is a percentage')
    const formula = await plan('finance.openpyxl.xlsx', '--column', 'refund_amount=Refund', '--sheet', 'Formulas')
    expect(formula.code).toBe(2)
    expect(formula.stderr).toContain('line 2: formula without a stored result in cell B2 (refund_amount)')
    // The plan names the row by its order still (its order number is no formula).
    expect(formula.json<{rows: {line: number; order: string}[]}>().rows[0]).toMatchObject({line: 2, order: 'FIN-1'})
  })

  it('--header-row says where the header is; a line without the columns is refused naming them', async () => {
    const ok = await plan('refunds.libreoffice.csv', '--column', 'refund_amount=Refund', '--header-row', '2')
    expect(ok.code, ok.stderr).toBe(0)
    const wrong = await plan('refunds.libreoffice.csv', '--column', 'refund_amount=Refund', '--header-row', '1')
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('the file has no column "Invoice No"')
  })

  it("a real run from openpyxl's workbook refunds exactly the four rows (the ledger), and the CSV export is then already refunded", async () => {
    const sent = await world.run([
      'refund',
      'create',
      '--from-csv',
      at('finance.openpyxl.xlsx'),
      '--sheet',
      'Refunds',
      '--column',
      'mch_order_no=Invoice No',
      '--column',
      'refund_amount=Refund',
      '--yes',
    ])
    expect(sent.code, sent.stderr).toBe(0)
    for (const [i, mch] of Object.keys(ORDERS).entries()) {
      const ledger = await world.ledger(mch)
      expect(ledger!.refunds.map((r) => [r.refund_fee, r.state])).toEqual([
        [[10_000, 20_000, 30_000, 1025][i], 'SUCCESS'],
      ])
    }
    const after = await plan('refunds.libreoffice.csv', '--column', 'refund_amount=Refund')
    expect(after.json<Plan>().rows.map((r) => r.status)).toEqual(Array(4).fill('already_refunded'))
  })
})

describe("November's refunds as Gnumeric, LibreOffice and openpyxl wrote them: amounts by value, the computed total too", () => {
  const NOVEMBER_FILES = [
    'november.gnumeric.xlsx',
    'november.gnumeric.ods',
    'november.gnumeric.csv',
    'november.libreoffice.xlsx',
  ]
  const mapping = ['--column', 'refund_amount=Refund (THB)']
  interface Plan {
    rows: {line: number; mch_order_no: string; refund_fee?: number; status: string}[]
  }

  it.each(NOVEMBER_FILES)(
    '%s plans the four refunds as shown (12.34, not 12.3400000000000000001); its total agrees',
    async (name) => {
      const result = await plan(name, ...mapping)
      expect(result.code, result.stderr).toBe(0)
      expect(result.json<Plan>().rows.map((r) => [r.line, r.mch_order_no, r.refund_fee, r.status])).toEqual(
        [126_711, 1234, 128_133, 28_636].map((fee, i) => [3 + i, NOVEMBER[i], fee, 'would_refund']),
      )
      expect(result.stderr).toContain(
        'line 7: a totals row ("Total") of "2847.14", not acted on; it agrees with the rows above it (2847.14)',
      )
    },
  )

  it.each(['november.gnumeric.xlsx', 'november.gnumeric.ods'])(
    '%s: a real third decimal (12.345) is still refused; nothing is sent',
    async (name) => {
      const before = await world.requests()
      const result = await plan(name, ...mapping, '--sheet', 'Decimals')
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('line 2: refund_amount: THB has 2 decimal places; "12.345" has more')
      expect((await world.requests()).order_refund ?? 0).toBe(before.order_refund ?? 0)
    },
  )

  it("a real run from Gnumeric's workbook refunds exactly the four amounts (the ledger); its CSV and .ods are then already refunded", async () => {
    const sent = await world.run([
      'refund',
      'create',
      '--from-csv',
      at('november.gnumeric.xlsx'),
      '--column',
      'mch_order_no=Invoice No',
      ...mapping,
      '--yes',
    ])
    expect(sent.code, sent.stderr).toBe(0)
    for (const [i, mch] of NOVEMBER.entries())
      expect((await world.ledger(mch))!.refunds.map((r) => [r.refund_fee, r.state])).toEqual([
        [[126_711, 1234, 128_133, 28_636][i], 'SUCCESS'],
      ])
    for (const name of ['november.gnumeric.csv', 'november.gnumeric.ods']) {
      const after = await plan(name, ...mapping)
      expect(after.json<Plan>().rows.map((r) => r.status)).toEqual(Array(4).fill('already_refunded'))
    }
  })
})

describe('a title row above the header', () => {
  it("does not hide the header's --column hints (LibreOffice's sheet): both commands name the header's columns, exit 2, nothing asked", async () => {
    const before = await world.requests()
    for (const extra of [[], ['--skip-invalid']]) {
      const refund = await world.run([
        'refund',
        'create',
        '--from-csv',
        at('november.libreoffice.xlsx'),
        '--dry-run',
        ...extra,
      ])
      expect(refund.code, refund.stderr).toBe(2)
      expect(refund.stderr).toContain('skipped 1 title row above the header: line 1 ("Refunds November 2026")')
      expect(refund.stderr).toContain(
        `line 2: no order number column (sheet "Refunds"; the workbook also has "Decimals": --sheet NAME reads another): the header needs one of mch_order_no, gw_order_no, channel_order_no (it has "Invoice No", "Refund (THB)", "Reason"); name yours with --column mch_order_no='Invoice No'`,
      )
      expect(refund.stderr).toContain("name yours with --column refund_amount='Refund (THB)'")
    }
    const reconciled = await world.run(['reconcile', at('november.libreoffice.xlsx')])
    expect(reconciled.code).toBe(2)
    expect(reconciled.stderr).toContain('line 2: no order number column')
    expect(reconciled.stderr).toContain("name yours with --column mch_order_no='Invoice No'")
    expect(await world.requests()).toEqual(before)
  })
})

describe("formulas without a stored result (xlsxwriter's default: a placeholder 0, calculated when opened) are never read as 0", () => {
  it('a bulk refund names the cells of the row and of its total; nothing is sent, no order "0" is asked for', async () => {
    const before = await world.requests()
    const dry = await world.run([
      'refund',
      'create',
      '--from-csv',
      at('formulas.xlsxwriter.xlsx'),
      '--column',
      'mch_order_no=Invoice No',
      '--column',
      'refund_amount=Refund (THB)',
      '--dry-run',
    ])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toContain(
      'line 3: formula without a stored result in cells A3 (mch_order_no), B3 (refund_amount), C3 (fee_type): open and save the workbook in your spreadsheet first',
    )
    expect(dry.stderr).toContain(
      'line 4: a totals row ("Total"), not acted on; not checked (an amount above it could not be read)',
    )
    expect(dry.stderr).not.toMatch(/zero|order 0|"0"/)
    const after = await world.requests()
    // The one readable row's order, once on each of the seven channels, at once; nothing refunded.
    expect((after.order_query ?? 0) - (before.order_query ?? 0)).toBe(7)
    expect(after.order_refund ?? 0).toBe(before.order_refund ?? 0)
  })

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
