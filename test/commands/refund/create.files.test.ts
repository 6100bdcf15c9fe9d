/**
 * gw refund create --from-csv on finance's real files: what the sheet shows is what is refunded (workbooks
 * of every producer, encodings, separators, thousands marks), large and hostile files refused by line.
 */
import {copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {HAS_CHROMIUM, launchChromium} from '../../helpers/browser.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {REPO_ROOT, untab} from '../../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../../helpers/terminal.js'
import {payShownOrders} from '../../helpers/shown-orders.js'
import {readWorkbook, writeSharedStringsBomb, writeWorkbook} from '../../helpers/workbooks.js'

let world: GwWorld

const file = (name: string, content: string | Buffer) => {
  const path = join(world.configDir, name)
  writeFileSync(path, content)
  return path
}

const rowsOf = (path: string, delimiter = ',') =>
  parse(readFileSync(path), {columns: true, bom: true, delimiter, cast: untab}) as Record<string, string>[]

const gwOrderNo = async (mch: string) => (await world.sandbox.controls.orders(mch))[0]!.gw_order_no

let n = 0

/** A file of this content in the world's folder, its name made unique: its path. */
const numberedFile = (name: string, content: string | Buffer) => world.file(`${++n}-${name}`, content)

/** `csv` refused by a bulk refund's dry run and by reconcile alike: exit 2, saying `problem`. */
async function refusedByBoth(csv: string, problem: string) {
  for (const args of [
    ['refund', 'create', '--from-csv', csv, '--dry-run'],
    ['reconcile', csv, '--existence-only'],
  ]) {
    const result = await world.run(args)
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(problem)
  }
}

const ESC = '\u001b'

const machine = () => world.machine()

const seen = async (operation: string) => (await world.requests())[operation] ?? 0

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('rows that cannot be taken at their word', () => {
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
})

describe('Excel workbooks', () => {
  it("the issue's bomb, gigabytes of shared strings of 1 KiB each: exit 2 in seconds, by the size the part declares or by the strings it holds", async () => {
    // 3 GiB declared (as the 5.8 MB workbook of issue 37 unpacks): refused before anything is unpacked.
    const declared = await writeSharedStringsBomb(join(world.configDir, 'declared.xlsx'), 1, 3 * 1024 - 1)
    // 120 MiB of strings, each well under any cell's limit: refused once they pass what gw holds.
    const held = await writeSharedStringsBomb(join(world.configDir, 'held.xlsx'), 120)
    for (const bomb of [declared, held]) {
      const result = await world.run(['refund', 'create', '--from-csv', bomb, '--dry-run'])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('expands to more than gw reads')
    }
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

describe('untrusted text on a terminal', () => {
  it('CSV values quoted in problems are shown with their controls visible', async () => {
    const csv = numberedFile('esc.csv', `mch_order_no,refund_fee,fee_type\nA,100,${ESC}[32mTHB\n`)
    const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('fee_type "\\x1B[32mTHB" is not a currency')
    expect(result.stderr).not.toContain(ESC)
  })
})

describe('bounded inputs', () => {
  it('a CSV field over 64 KiB: exit 2 naming the line, in refunds and reconcile', async () => {
    const csv = numberedFile('huge.csv', `mch_order_no,refund_fee,note\nA,100,small\nB,100,${'x'.repeat(70_000)}\n`)
    await refusedByBoth(csv, 'line 3: field 3 is 70000 characters long; at most 65536 are read')
  })

  it('a file of junk rows stops being checked after 1000 problems, exit 2', async () => {
    const csv = numberedFile(
      'junk.csv',
      `mch_order_no,refund_fee\n${Array.from({length: 20_000}, () => ',x').join('\n')}\n`,
    )
    const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('The check stopped after 1000 problems; the rest of')
    const problems = result.json<{problems: {message: string}[]}>().problems
    expect(problems.at(-1)!.message).toBe('the check stopped here, after 1000 problems; fix these first')
  })
})

describe('every bad input has its exit code', () => {
  it('a quote inside an unquoted field: exit 2 naming the line, in refunds and reconcile', async () => {
    const csv = numberedFile('quote.csv', 'mch_order_no,refund_fee,note\nA,100,=HYPERLINK("x","y")\n')
    await refusedByBoth(csv, 'line 2: not valid CSV (a quote inside a field that does not start with one)')
  })

  it('a binary file and a file that is not UTF-8: exit 2, the second naming its line', async () => {
    const binary = numberedFile('binary.csv', Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00]))
    const latin1 = numberedFile(
      'latin1.csv',
      Buffer.concat([
        Buffer.from('mch_order_no,refund_fee,note\nA,100,ok\nB,100,caf'),
        Buffer.from([0xe9]),
        Buffer.from('\n'),
      ]),
    )
    const bin = await world.run(['reconcile', binary])
    expect(bin.code).toBe(2)
    expect(bin.stderr).toContain('is not a CSV or .xlsx file: it holds binary content')
    const notUtf8 = await world.run(['refund', 'create', '--from-csv', latin1, '--dry-run'])
    expect(notUtf8.code).toBe(2)
    expect(notUtf8.stderr).toContain('line 3: the text is not valid UTF-8')
  })
})

describe('a thousands dot in a German file', () => {
  /** A copy of the committed fixture: a run writes its plan and report beside the file. */
  const fixture = (name: string) => {
    const copy = join(machine().dir, name)
    writeFileSync(copy, readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'german', name)))
    return copy
  }

  const columns = (currency: string) => [
    '--column',
    'mch_order_no=Invoice No',
    '--column',
    `refund_amount=Refund (${currency})`,
  ]

  it("LibreOffice's German CSV (1.500 and 3.200 baht): refused before anything is sent, naming each line and both readings; 2.000 yen reads one way", async () => {
    await world.paidOrders(3, 500_000, 'GER')
    const {env} = machine()
    const before = await seen('order_refund')
    for (const flags of [['--dry-run'], ['--yes']]) {
      const run = await world.run(
        ['refund', 'create', '--from-csv', fixture('refunds-thb.libreoffice-de.csv'), ...columns('THB'), ...flags],
        {env},
      )
      expect(run.code, run.stderr).toBe(2)
      expect(run.stdout + run.stderr).toMatch(
        /line 2\b.*"1\.500" reads two ways: 1\.500 with a decimal point, or 1500 with a decimal comma/,
      )
      expect(run.stdout + run.stderr).toMatch(
        /line 3\b.*"3\.200" reads two ways: 3\.200 .* or 3200 with a decimal comma/,
      )
    }
    const yen = await world.run(
      ['refund', 'create', '--from-csv', fixture('refunds-jpy.libreoffice-de.csv'), ...columns('JPY'), '--yes'],
      {env},
    )
    // Yen have no decimals: 2.000 reads one way, 2000 yen (the order it names is not the sandbox's: refused, nothing sent).
    expect(yen.code).toBe(2)
    expect(yen.stdout + yen.stderr).not.toMatch(/"2\.000" reads two ways/)
    expect(yen.stdout + yen.stderr).toContain('line 2: No channel knows order GER-J1')
    expect(await seen('order_refund')).toBe(before)
    for (const order of ['GER-1', 'GER-2', 'GER-3']) expect(await world.refundsOf(order)).toEqual([])
  })

  it('an Excel-style ";" CSV written byte for byte (BOM, CRLF, 1.500 THB and 2.000 JPY): refused, nothing sent; yen have no decimals, so 2.000 reads one way', async () => {
    const {dir, env} = machine()
    const csv = join(dir, 'excel-de.csv')
    writeFileSync(
      csv,
      Buffer.from('\ufeffmch_order_no;refund_amount;fee_type\r\nGER-1;1.500;THB\r\nGER-J;2.000;JPY\r\n', 'utf8'),
    )
    const before = await seen('order_refund')
    const run = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(run.code).toBe(2)
    expect(run.stdout + run.stderr).toContain('"1.500" reads two ways')
    expect(run.stdout + run.stderr).not.toContain('"2.000" reads two ways')
    expect(await seen('order_refund')).toBe(before)
  })
})

describe('a trial of the above by someone who did not write it', () => {
  it('1,500 alone in its column is refused with both readings, never read as 1500', async () => {
    const {dir, env} = machine()
    const csv = join(dir, 'semi.csv')
    writeFileSync(csv, 'mch_order_no;refund_amount;fee_type\nANY-1;1,500;THB\n')
    const before = await seen('order_refund')
    const run = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'], {env})
    expect(run.code).toBe(2)
    expect(run.stdout + run.stderr).toMatch(
      /"1,500" reads two ways: 1500 with a decimal point, or 1\.500 with a decimal comma, and no amount of its column shows which mark it uses: give --decimal-mark point or --decimal-mark comma/,
    )
    expect(await seen('order_refund')).toBe(before)
  })
})

it('a 125,000-row CSV is checked and planned in a dry run: no stack overflow, every row planned', async () => {
  const orders = await world.paidOrders(50, 1_000_000, 'BIG')
  const csv = join(world.configDir, 'big.csv')
  const rows = Array.from({length: 125_000}, (_, i) => `${orders[i % 50]},${1 + (i % 7)},wechat,R${i}`)
  writeFileSync(csv, `mch_order_no,refund_fee,channel,mch_refund_no\n${rows.join('\n')}\n`)
  const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--allow-repeats', '--json'], {
    timeoutMs: 240_000,
  })
  expect(result.code, result.stderr.slice(0, 3000)).toBe(0)
  const plan = result.json<{rows: {status: string}[]}>()
  expect(plan.rows).toHaveLength(125_000)
  expect(plan.rows.every((r) => r.status === 'would_refund')).toBe(true)
})

it('125,000 rows of unknown orders: the first 20 problems on screen and how many more', async () => {
  const csv = join(world.configDir, 'unknown.csv')
  const rows = Array.from({length: 125_000}, (_, i) => `NONE-${i % 300},${1 + i}`)
  writeFileSync(csv, `mch_order_no,refund_fee\n${rows.join('\n')}\n`)
  const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--channel', 'wechat'], {
    timeoutMs: 240_000,
  })
  expect(result.code, result.stderr.slice(-2000)).toBe(2)
  expect(result.stderr.match(/^ {2}line \d+: /gm)).toHaveLength(20)
  expect(result.stderr).toMatch(/\.\.\. and \d+ more \(all are in --json and the report\)/)
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

  /** Refunds the ledger shows for the orders, as [order, refund_fee]. */
  const refunded = async (...orders: string[]) =>
    (await Promise.all(orders.map(async (o) => ((await world.ledger(o))?.refunds ?? []).map((r) => [o, r.refund_fee]))))
      .flat()
      .sort()

  const send = (path: string, ...args: string[]) =>
    world.run(['refund', 'create', '--from-csv', path, '--yes', ...args])

  beforeAll(async () => {
    world = await startWorld()
    await payShownOrders(world)
  })

  afterAll(() => world.close())

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
