/**
 * gw refund create --from-csv on finance's real files: what the sheet shows is what is refunded (workbooks
 * of every producer, encodings, separators, thousands marks), large and hostile files refused by line.
 */
import {copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {REPO_ROOT, untab} from '../../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../../helpers/terminal.js'
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
    expect(result.stdout.match(/THB\twould_refund$/gm)).toHaveLength(19)
    expect(result.stdout).toMatch(new RegExp(`^4\t${orders[0]}\t\t-\tskipped_invalid$`, 'm'))
    expect(result.stdout).toContain('\nline\torder\trefund number\tamount\tstatus\n')
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
