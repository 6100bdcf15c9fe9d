/**
 * gw refund create --from-csv: a bulk run, every row refunded once whatever stops it (a kill, Ctrl-C, faults),
 * its journal, its locks, its resume.
 */
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {pathToFileURL} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {asPrinted, suggested} from '../../helpers/cli.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {waitFor} from '../../helpers/receiver.js'
import {removeDir, REPO_ROOT, tempDir} from '../../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../../helpers/terminal.js'
import {writeWorkbook} from '../../helpers/workbooks.js'

let world: GwWorld

/** Every refund in the ledger for these orders, by refund number. */
async function ledgerRefunds(
  orders: string[],
): Promise<Map<string, {refund_fee: number; state: string; order: string}[]>> {
  const byNumber = new Map<string, {refund_fee: number; state: string; order: string}[]>()
  const {body} = await world.sandbox.control<{
    orders: {mch_order_no: string; refunds: {mch_refund_no: string; refund_fee: number; state: string}[]}[]
  }>('GET', '/sandbox/orders')
  const wanted = new Set(orders)
  for (const order of body.orders) {
    if (!wanted.has(order.mch_order_no)) continue
    for (const refund of order.refunds)
      byNumber.set(refund.mch_refund_no, [
        ...(byNumber.get(refund.mch_refund_no) ?? []),
        {...refund, order: order.mch_order_no},
      ])
  }
  return byNumber
}

/** The batch ends with exactly one successful refund per row, with the row's amount, and the report says so. */
async function expectExactlyOnce(csv: string, rows: {order: string; fee: number}[]) {
  const refunds = await ledgerRefunds([...new Set(rows.map((r) => r.order))])
  const lines = world.reportOf(csv)
  expect(lines).toHaveLength(rows.length)
  const total = [...refunds.values()].reduce((n, list) => n + list.length, 0)
  expect(total).toBe(rows.length)
  for (const [i, row] of rows.entries()) {
    const line = lines[i]!
    expect(['refunded', 'refunded_earlier', 'already_refunded']).toContain(line.status)
    const made = refunds.get(line.mch_refund_no!)
    expect(made, `row ${i + 2}`).toEqual(
      [{order: row.order, refund_fee: row.fee, state: 'SUCCESS', mch_refund_no: line.mch_refund_no}].map((r) =>
        expect.objectContaining(r),
      ),
    )
  }
}

const refundCount = async (orders: string[]) => (await Promise.all(orders.map(world.refundsOf))).flat().length

const machine = () => world.machine()

const seen = async (operation: string) => (await world.requests())[operation] ?? 0

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('hostile files: every problem named with its line, nothing reaches the sandbox (each case: test/unit/refunds/refund-file)', () => {
  const cases: [string, string, RegExp][] = [
    ['a row problem', 'mch_order_no,refund_fee\nX,0\n', /line 2: refund_fee is zero/],
    ['a header problem', 'order,refund_fee\nX,100\n', /line 1: no order number column/],
    ['broken CSV', 'mch_order_no,refund_fee\n"X,100\nY,1\n', /line \d+: not valid CSV/],
  ]

  for (const [name, content, message] of cases) {
    it(`${name}: exit 2, nothing sent`, async () => {
      const before = await world.requests()
      const result = await world.bulk(world.csv(content))
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(message)
      expect(await world.requests()).toEqual(before)
    })
  }

  it('lists every problem of a file at once, with --json too', async () => {
    const result = await world.bulk(world.csv('mch_order_no,refund_fee\n,100\nX,0\nY,abc\n'), ['--json'])
    expect(result.code).toBe(2)
    expect(result.json<{error: {problems: {line: number}[]}}>().error.problems.map((p) => p.line)).toEqual([2, 3, 4])
  })
})

describe('a batch', () => {
  it('reads BOM, CRLF, quotes, Thai text and headers in any case; keeps unknown columns in the report', async () => {
    const orders = await world.paidOrders(3, 10_000, 'QUIRK')
    const csv = world.csv(
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(
          ` MCH_Order_No ,Refund_Amount,Customer Note\r\n${orders[0]},10.00,"Khun Somchai, ""VIP"""\r\n${orders[1]},"0.5","ชาเขียว\r\nสองแก้ว"\n${orders[2]},100,full\n`,
        ),
      ]),
    )
    const result = await world.bulk(csv)
    expect(result.code).toBe(0)
    const lines = world.reportOf(csv)
    expect(lines.map((l) => [l[' MCH_Order_No '], l['Customer Note'], l.status, l.refund_fee])).toEqual([
      [orders[0], 'Khun Somchai, "VIP"', 'refunded', '1000'],
      [orders[1], 'ชาเขียว\r\nสองแก้ว', 'refunded', '50'],
      [orders[2], 'full', 'refunded', '10000'],
    ])
    await expectExactlyOnce(csv, [
      {order: orders[0]!, fee: 1000},
      {order: orders[1]!, fee: 50},
      {order: orders[2]!, fee: 10_000},
    ])
  })

  it('makes only the requests it must: one order query and one refund per row on orders paid in full', async () => {
    const orders = await world.paidOrders(12, 5000, 'LEAN')
    const csv = world.csv(`mch_order_no,refund_fee,channel\n${orders.map((o) => `${o},1000,wechat`).join('\n')}\n`)
    const before = await world.requests()
    expect((await world.bulk(csv)).code).toBe(0)
    const after = await world.requests()
    const made = (operation: string) => (after[operation] ?? 0) - (before[operation] ?? 0)
    expect([made('order_query'), made('order_refund'), made('refund_query')]).toEqual([12, 12, 0])
  })

  it('derives the same refund numbers from the same file: a rerun without its journal refunds nothing twice', async () => {
    const orders = await world.paidOrders(2, 5000, 'DERIVE')
    const content = `mch_order_no,refund_fee\n${orders[0]},1000\n${orders[0]},1000\n${orders[1]},2500\n`
    const first = world.csv(content)
    expect((await world.bulk(first, ['--allow-repeats'])).code).toBe(0)
    const numbers = world.reportOf(first).map((l) => l.mch_refund_no)
    expect(new Set(numbers).size).toBe(3)
    const again = world.csv(content)
    const result = await world.bulk(again, ['--json', '--allow-repeats'])
    expect(result.code).toBe(0)
    expect(world.reportOf(again).map((l) => [l.mch_refund_no, l.status])).toEqual(
      numbers.map((n) => [n, 'already_refunded']),
    )
    await expectExactlyOnce(again, [
      {order: orders[0]!, fee: 1000},
      {order: orders[0]!, fee: 1000},
      {order: orders[1]!, fee: 2500},
    ])
  })

  it('reports rows on unpaid or closed orders and rows beyond the balance before sending: exit 2, nothing sent', async () => {
    const [paid] = await world.paidOrders(1, 1000, 'BAL')
    const wire = world.sandbox.wire()
    await wire.call('native_pay', {
      channel: 'wechat',
      mch_order_no: `UNPAID-BULK`,
      total_fee: 1000,
      fee_type: 'THB',
    })
    await wire.call('native_pay', {
      channel: 'wechat',
      mch_order_no: `CLOSED-BULK`,
      total_fee: 1000,
      fee_type: 'THB',
    })
    await wire.call('order_close', {channel: 'wechat', mch_order_no: `CLOSED-BULK`})
    const csv = world.csv(
      `mch_order_no,refund_fee\n${paid},600\n${paid},600\nUNPAID-BULK,100\nCLOSED-BULK,100\nNOPE-BULK,100\n`,
    )
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toMatch(
      /line 2: the rows of order BAL-1 add up to 12\.00 THB, more than its balance of 10\.00 THB/,
    )
    expect(dry.stderr).toMatch(/line 4: .*NOTPAY/)
    expect(dry.stderr).toMatch(/line 5: .*CLOSED/)
    expect(dry.stderr).toMatch(/line 6: No channel knows order NOPE/)
    const result = await world.bulk(csv)
    expect(result.code).toBe(2)
    expect((await ledgerRefunds([paid!])).size).toBe(0)
  })

  it('--skip-invalid sends the valid rows and reports the rest as skipped_invalid, exit 1', async () => {
    const [paid] = await world.paidOrders(1, 1000, 'SKIP')
    const csv = world.csv(
      `mch_order_no,refund_fee,note\n${paid},300,good\n${paid},0,zero\nNOPE-SKIP,100,unknown order\n`,
    )
    const result = await world.bulk(csv, ['--skip-invalid'])
    expect(result.code).toBe(1)
    expect(world.reportOf(csv).map((l) => [l.note, l.status])).toEqual([
      ['good', 'refunded'],
      ['zero', 'skipped_invalid'],
      ['unknown order', 'skipped_invalid'],
    ])
    expect(world.reportOf(csv)[1]!.err_msg).toContain('refund_fee is zero')
  })

  it('--dry-run shows the plan and sends nothing', async () => {
    const orders = await world.paidOrders(2, 1000, 'DRY')
    const csv = world.csv(`mch_order_no,refund_amount\n${orders[0]},1.50\n${orders[1]},2\n`)
    const before = (await world.requests()).order_refund
    const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('2 rows, 2 orders; to send: 2 rows, 3.50 THB')
    expect((await world.requests()).order_refund).toBe(before)
    expect(existsSync(`${csv}.journal.jsonl`)).toBe(false)
  })

  it('needs --yes without a terminal', async () => {
    const orders = await world.paidOrders(1, 1000, 'YES')
    const result = await world.run([
      'refund',
      'create',
      '--from-csv',
      world.csv(`mch_order_no,refund_fee\n${orders[0]},100\n`),
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Add --yes to confirm')
  })

  it('refuses a journal of another file or another appid', async () => {
    const orders = await world.paidOrders(1, 1000, 'JRN')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders[0]},100\n`)
    expect((await world.bulk(csv)).code).toBe(0)
    writeFileSync(csv, `mch_order_no,refund_fee\n${orders[0]},200\n`)
    const changed = await world.bulk(csv)
    expect(changed.code).toBe(2)
    expect(changed.stderr).toContain('belongs to another version of the file')
  })
})

describe('delayed refunds', () => {
  it('end processing (exit 5), and a later run of the same command settles them', async () => {
    // 20 minutes of channel delay pass in 1.2 s at this time scale.
    const fast = await startWorld({timeScale: 1000})
    try {
      const orders = await fast.paidOrders(3, 5000, 'DELAY')
      const csv = join(fast.configDir, 'delayed.csv')
      writeFileSync(csv, `mch_order_no,refund_fee\n${orders.map((o) => `${o},1000`).join('\n')}\n`)
      await fast.faults('refund-processing=1')
      const first = await fast.run(['refund', 'create', '--from-csv', csv, '--yes'])
      await fast.faults('')
      expect(first.code).toBe(5)
      expect(first.stderr).toContain('run the same command again later')
      expect(world.reportOf(csv).map((l) => l.status)).toEqual(['processing', 'processing', 'processing'])
      // The channel settles them (20 minutes of its time) once the ledger's time for it has come, as
      // the gateway shows when asked: wait for that time, however long the machine took to get here.
      const {body: held} = await fast.sandbox.control<{orders: {refunds: {settles_at?: number}[]}[]}>(
        'GET',
        '/sandbox/orders',
      )
      const settled = Math.max(...held.orders.flatMap((o) => o.refunds.map((r) => r.settles_at ?? 0)))
      await waitFor(() => Date.now() >= settled)
      const later = await fast.run(['refund', 'create', '--from-csv', csv, '--yes'])
      expect(later.code).toBe(0)
      expect(later.stderr).toMatch(/resuming: 0 done, 3 uncertain, 0 to go/)
      // The first run sent them; this one only learned they succeeded.
      expect(world.reportOf(csv).map((l) => l.status)).toEqual([
        'refunded_earlier',
        'refunded_earlier',
        'refunded_earlier',
      ])
      const {body} = await fast.sandbox.control<{orders: {refunds: unknown[]}[]}>('GET', '/sandbox/orders')
      expect(body.orders.flatMap((o) => o.refunds)).toHaveLength(3)
    } finally {
      await fast.close()
    }
  })
})

describe('crash safety and faults', () => {
  const ROWS = 300

  async function batchOf(prefix: string) {
    const orders = await world.paidOrders(ROWS / 2, 10_000, prefix)
    const rows = orders.flatMap((order, i) => [
      {order, fee: 1000 + i},
      {order, fee: 2000},
    ])
    const csv = world.csv(`mch_order_no,refund_fee\n${rows.map((r) => `${r.order},${r.fee}`).join('\n')}\n`)
    return {rows, csv}
  }

  /** Resolves once the sandbox holds at least `count` refunds of these orders. */
  async function refundsReach(orders: string[], count: number, done: Promise<unknown>): Promise<boolean> {
    let finished = false
    void done.then(() => (finished = true))
    while (!finished) {
      const made = [...(await ledgerRefunds(orders)).values()].reduce((n, list) => n + list.length, 0)
      if (made >= count) return true
      await new Promise((r) => setTimeout(r, 15))
    }
    return false
  }

  it('killed with SIGKILL at random points mid-run and resumed each time, ends with exactly one refund per row', async () => {
    const {rows, csv} = await batchOf('KILL')
    const orders = [...new Set(rows.map((r) => r.order))]
    // Kill points spread over the run, each after the sandbox has seen a given number of refunds.
    const targets = [1, 40, 90, 150, 220, 280].map((t) => t + Math.floor(Math.random() * 15))
    let midRunKills = 0
    for (const target of targets) {
      const {child, result} = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '8'])
      if (await refundsReach(orders, target, result)) child.kill('SIGKILL')
      const done = await result
      if (done.signal === 'SIGKILL') midRunKills++
      else expect(done.code, done.stderr).toBe(0)
    }
    expect(midRunKills).toBeGreaterThanOrEqual(3)
    const last = await world.bulk(csv)
    expect(last.code, last.stderr).toBe(0)
    await expectExactlyOnce(csv, rows)
    const again = await world.bulk(csv)
    expect(again.stderr).toMatch(/resuming: 300 done, 0 uncertain, 0 to go/)
  })

  it('with drop-after-commit, http-500, code-nonzero and notsure at 10% each, every row is refunded exactly once', async () => {
    const {rows, csv} = await batchOf('FAULT')
    const codes: (number | null)[] = []
    await world.underFaults('drop-after-commit=0.1,http-500=0.1,code-nonzero=0.1,notsure=0.1', async () => {
      for (let run = 0; run < 10; run++) {
        const result = await world.bulk(csv, ['--concurrency', '8'])
        codes.push(result.code)
        // 3: a query failed every retry; 5: some outcomes still unknown. Both resume.
        expect([0, 3, 5], result.stderr).toContain(result.code)
        if (result.code === 0) break
      }
    })
    expect(codes.at(-1)).toBe(0)
    await expectExactlyOnce(csv, rows)
  })

  it('Ctrl-C stops sending, records what was in flight, says how to resume; the resume finishes', async () => {
    const {rows, csv} = await batchOf('INT')
    const {child, result} = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--rate', '40'])
    expect(await refundsReach([...new Set(rows.map((r) => r.order))], 20, result)).toBe(true)
    child.kill('SIGINT')
    const stopped = await result
    expect(stopped.code).toBe(130)
    expect(stopped.stderr).toContain('Resume with the same command')
    const partial = world.reportOf(csv)
    expect(partial.filter((l) => l.status === 'pending').length).toBeGreaterThan(0)
    expect(partial.filter((l) => l.status === 'refunded').length).toBeGreaterThan(0)
    // A refund in flight at the stop is rightly uncertain: the resume settles exactly those the stop left unknown.
    const inFlight = partial.filter((l) => l.status === 'unknown').length
    const resumed = await world.bulk(csv)
    expect(resumed.code).toBe(0)
    expect(resumed.stderr).toMatch(new RegExp(`resuming: \\d+ done, ${inFlight} uncertain, \\d+ to go`))
    await expectExactlyOnce(csv, rows)
  })

  it('the resume line repeats every flag that shaped the run (sheet, columns, --skip-invalid, --rate) and, pasted as printed, finishes it', async () => {
    const orders = await world.paidOrders(6, 10_000, 'RESUME')
    const xlsx = await writeWorkbook(join(world.configDir, 'Refunds Nov.xlsx'), [
      {name: 'Notes', rows: [['nothing to refund here']]},
      {
        name: 'Refunds',
        rows: [
          ['Refunds November 2026'],
          ['Invoice No', 'Refund (THB)'],
          ...orders.map((o) => [o, 1.5]),
          ['RESUME-X', 0],
        ],
      },
    ])
    const flags = [
      '--sheet',
      'Refunds',
      '--column',
      'mch_order_no=Invoice No',
      '--column',
      'refund_amount=Refund (THB)',
    ]
    const args = ['refund', 'create', '--from-csv', xlsx, ...flags, '--skip-invalid', '--rate', '5']
    const stopped = await world.interrupted([...args, '--yes'], {operation: 'order_refund', count: 1})
    expect(stopped.code, stopped.stderr).toBe(130)
    const line = /Resume with the same command: (.+)$/m.exec(stopped.stderr)?.[1]
    expect(line).toBe(
      `gw refund create --from-csv '${xlsx}' --sheet Refunds --column 'mch_order_no=Invoice No' --column 'refund_amount=Refund (THB)' --skip-invalid --rate 5 --yes`,
    )
    const resumed = await asPrinted(line!, {env: {GW_CONFIG_DIR: world.configDir}})
    // The zero row is skipped as it was: exit 1, every other row refunded once.
    expect(resumed.code, resumed.stderr).toBe(1)
    expect(resumed.stderr).toMatch(/resuming: \d+ done, \d+ uncertain, \d+ to go/)
    for (const order of orders)
      expect((await world.ledger(order))!.refunds.map((r) => [r.refund_fee, r.state])).toEqual([[150, 'SUCCESS']])
  })

  it.skipIf(!HAS_TMUX)(
    'a closed terminal (SIGHUP) stops it as Ctrl-C does: in flight recorded, report and history written, 129',
    async () => {
      const {rows, csv} = await batchOf('HUP')
      const orders = [...new Set(rows.map((r) => r.order))]
      // Closed while it asks whether to send: nothing sent, and gw ends by the hang-up (it crashed reading the closed terminal).
      const asking = new Terminal(
        ['refund', 'create', '--from-csv', csv],
        {GW_CONFIG_DIR: world.configDir},
        join(world.configDir, 'hup-ask.json'),
      )
      try {
        await asking.waitFor(/send .* of refunds from /)
        expect(await asking.hangUp()).toEqual({code: null, signal: 'SIGHUP'})
      } finally {
        asking.close()
      }
      expect(await ledgerRefunds(orders)).toEqual(new Map())
      const exitFile = join(world.configDir, 'hup-exit.json')
      const args = ['refund', 'create', '--from-csv', csv, '--yes', '--rate', '40']
      const terminal = new Terminal(args, {GW_CONFIG_DIR: world.configDir}, exitFile)
      try {
        const ended = (async () => {
          while (!existsSync(exitFile)) await new Promise((r) => setTimeout(r, 50))
        })()
        expect(await refundsReach(orders, 20, ended)).toBe(true)
        // Its progress bar was on the terminal: writing there now fails, and the run goes on to its
        // end, then ends by the hang-up (a shell says 129), not by Node's abort on its way out.
        expect(await terminal.hangUp()).toEqual({code: null, signal: 'SIGHUP'})
      } finally {
        terminal.close()
      }
      const partial = world.reportOf(csv)
      expect(partial.filter((l) => l.status === 'pending').length).toBeGreaterThan(0)
      const refunded = partial
        .filter((l) => l.status === 'refunded')
        .map((l) => l.mch_refund_no)
        .sort()
      const made = [...(await ledgerRefunds(orders)).keys()].sort()
      expect(refunded).toEqual(made)
      // The history holds them all (what waited to be committed was, before gw ended).
      const listed = (await world.run(['refund', 'list', '--json'])).json<{refunds: {mch_refund_no: string}[]}>()
      const known = new Set(listed.refunds.map((r) => r.mch_refund_no))
      expect(made.filter((number) => !known.has(number))).toEqual([])
      const resumed = await world.bulk(csv)
      expect(resumed.code, resumed.stderr).toBe(0)
      await expectExactlyOnce(csv, rows)
    },
  )

  it.skipIf(!HAS_TMUX)(
    'a terminal whose writes fail before its hang-up reaches gw (EIO first): never a crash; the run ends, its report written, by the hang-up',
    async () => {
      const {rows, csv} = await batchOf('EIO')
      const orders = [...new Set(rows.map((r) => r.order))]
      const exitFile = join(world.configDir, 'eio-exit.json')
      const args = ['refund', 'create', '--from-csv', csv, '--yes', '--rate', '40']
      const env = {GW_CONFIG_DIR: world.configDir, EXIT_RECORDER_UNREACHED: '1'}
      const terminal = new Terminal(args, env, exitFile)
      try {
        const ended = (async () => {
          while (!existsSync(exitFile)) await new Promise((r) => setTimeout(r, 50))
        })()
        expect(await refundsReach(orders, 20, ended)).toBe(true)
        // Its progress line fails (EIO) and no SIGHUP comes: it goes on to its end, then ends by the hang-up.
        expect(await terminal.hangUp(60_000)).toEqual({code: null, signal: 'SIGHUP'})
      } finally {
        terminal.close()
      }
      expect(new Set(world.reportOf(csv).map((l) => l.status))).toEqual(new Set(['refunded']))
      for (const order of orders) expect((await world.ledger(order))!.refunds).toHaveLength(2)
    },
  )
})

describe('bulk refunds', () => {
  it('on alipay settle lost answers by sending the same numbers again: exactly once, sent but not confirmable', async () => {
    const orders = await world.paidOrders(3, 10_000, 'ONCE-BALI', 'alipay')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},500`).join('\n')}\n`)
    const first = await world.underFaults('drop-after-commit=1@order_refund', () => world.bulk(csv))
    expect(first.code).toBe(5)
    expect(world.reportOf(csv).map((r) => r.status)).toEqual(['unknown', 'unknown', 'unknown'])
    expect(readFileSync(csv.replace(/\.csv$/, '.report.csv'), 'utf8')).not.toContain('gw refund query')
    const rerun = await world.bulk(csv)
    // Not 5, "run again later": nothing a rerun does settles these; the merchant platform does.
    expect(rerun.code, rerun.stderr).toBe(6)
    expect(world.reportOf(csv).map((r) => [r.status, r.settled_by])).toEqual(
      Array(3).fill(['not_confirmable', 'resend']),
    )
    // A third run sends nothing: the channel cannot tell more. It names each refund to confirm, by its number.
    const before = (await world.requests()).order_refund ?? 0
    const third = await world.bulk(csv)
    expect(third.code, third.stderr).toBe(6)
    expect((await world.requests()).order_refund ?? 0).toBe(before)
    expect(third.stdout).toContain(
      '3 rows sent, not confirmable: the gateway holds these refund numbers but the channel has no refund query to show their amount or state; confirm these on the merchant platform; running again will not change them:',
    )
    for (const [i, row] of world.reportOf(csv).entries())
      expect(third.stdout).toContain(`line ${i + 2}: ${row.mch_refund_no} (5.00 THB) of order ${orders[i]}`)
    expect(third.stderr).toContain(
      'confirm them on the merchant platform by their refund numbers; running again will not change them',
    )
    expect(third.stderr).not.toContain('run the same command again later')
    for (const order of orders)
      expect(await world.refundsOf(order)).toEqual([expect.objectContaining({refund_fee: 500, state: 'SUCCESS'})])
  })

  it('refuses promptpay rows in the dry run and the run, exit 2, nothing sent', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-BPP', 'promptpay')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toMatch(/line 2: Order ONCE-BPP-1 is on channel promptpay; promptpay orders cannot be refunded/)
    expect((await world.bulk(csv)).code).toBe(2)
    expect(await world.refundsOf(order!)).toEqual([])
  })

  it('give the same refund written another way the same number: mch_order_no or gw_order_no, minor units or a decimal', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-WAYS')
    const gwOrderNo = (await world.ledger(order!))! as unknown as {gw_order_no: string}
    expect((await world.bulk(world.csv(`mch_order_no,refund_fee\n${order},100\n`))).code).toBe(0)
    const other = world.csv(`gw_order_no,refund_amount\n${gwOrderNo.gw_order_no},1.00\n`)
    const again = await world.bulk(other)
    expect(again.code, again.stderr).toBe(0)
    expect(world.reportOf(other)[0]!.status).toBe('already_refunded')
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('say when and as which refund a later file was already refunded; --batch-id makes an intentional second round', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-LATER')
    const content = `mch_order_no,refund_fee\n${order},250\n`
    const firstFile = world.csv(content)
    expect((await world.bulk(firstFile)).code).toBe(0)
    const later = world.csv(content)
    const dry = await world.run(['refund', 'create', '--from-csv', later, '--dry-run'])
    expect(dry.stdout).toMatch(/1 row already refunded, not sent again \(use --batch-id/)
    expect(dry.stdout).toMatch(
      /line 2: RF\w+ \(2\.50 THB\) was refunded at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d as 910\d+ \(by refunds-\d+\.csv\)/,
    )
    const result = await world.bulk(later)
    expect(result.code).toBe(0)
    expect(world.reportOf(later)[0]).toMatchObject({
      status: 'already_refunded',
      refund_time: expect.stringMatching(/^\d{4}-/),
      gw_refund_no: expect.stringMatching(/^910/),
    })
    expect(await world.refundsOf(order!)).toHaveLength(1)
    const second = await world.bulk(world.csv(content), ['--batch-id', 'second-round'])
    expect(second.code, second.stderr).toBe(0)
    expect(await world.refundsOf(order!)).toHaveLength(2)
  })

  it('refuse rows repeating the same order and amount, even in the dry run, unless --allow-repeats', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-REP')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},200\n${order},200\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toContain(
      'line 3: repeats the refund of line 2 (the same order, 2.00 THB); add --allow-repeats if both are meant',
    )
    expect((await world.bulk(csv)).code).toBe(2)
    expect(await world.refundsOf(order!)).toEqual([])
    expect((await world.bulk(csv, ['--allow-repeats'])).code).toBe(0)
    expect(await world.refundsOf(order!)).toHaveLength(2)
  })

  it('take a lock: a second run of the same batch is refused naming the holder; one run sends each row once', async () => {
    const orders = await world.paidOrders(30, 10_000, 'ONCE-LOCK')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},100`).join('\n')}\n`)
    const lock = `${csv}.journal.jsonl.lock`
    const slow = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--rate', '10'])
    // Its note, written once it holds the lock: what the refusal names it by.
    while (!existsSync(`${lock}.holder`)) await new Promise((r) => setTimeout(r, 20))
    const second = await world.bulk(csv)
    expect(second.code).toBe(2)
    expect(second.stderr).toMatch(new RegExp(`This batch is being run by process ${slow.child.pid} on `))
    expect((await slow.result).code).toBe(0)
    expect(existsSync(lock)).toBe(false)
    expect(await refundCount(orders)).toBe(30)
    const headers = readFileSync(`${csv}.journal.jsonl`, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"header"'))
    expect(headers).toHaveLength(1)
  })

  it('a lock file left or planted (naming a pid, even one that runs) blocks nothing: what it says is a note, said', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-STALE')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    // As an earlier gw wrote its lock: pid 1 runs on every machine (its init), so a pid proves nothing.
    writeFileSync(
      `${csv}.journal.jsonl.lock`,
      JSON.stringify({pid: 1, host: hostname(), started_at: '2026-01-01T00:00:00.000Z'}),
    )
    const result = await world.bulk(csv)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(
      `the run before, process 1 on ${hostname()} (since 2026-01-01T00:00:00.000Z), ended without letting go of the lock; the system let go for it`,
    )
    expect(await world.refundsOf(order!)).toHaveLength(1)
    expect(existsSync(`${csv}.journal.jsonl.lock`)).toBe(false)
  })

  it('check the report and journal paths before sending: not the input, in a folder that exists', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-OUT')
    const content = `mch_order_no,refund_fee\n${order},100\n`
    const csv = world.csv(content)
    const folder = join(world.configDir, 'a-folder.csv')
    mkdirSync(folder, {recursive: true})
    for (const [args, message] of [
      [
        ['--out', '/nonexistent-gw-dir/report.csv'],
        /--out \/nonexistent-gw-dir\/report\.csv: the folder \/nonexistent-gw-dir does not exist/,
      ],
      [['--out', csv], /--out .* is the input file/],
      [['--journal', csv], /--journal .* is the input file/],
      [['--out', folder], /--out .* is a folder/],
      [['--out', '/dev/null'], /gw writes \.xlsx workbooks and CSV files\./],
    ] as const) {
      const result = await world.bulk(csv, [...args])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toMatch(message)
    }
    expect(readFileSync(csv, 'utf8')).toBe(content)
    expect(await world.refundsOf(order!)).toEqual([])
  })

  it('never write through a symlink planted at the report path', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-LINK')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    const victim = join(world.configDir, 'victim.txt')
    writeFileSync(victim, 'victim')
    symlinkSync(victim, csv.replace(/\.csv$/, '.report.csv'))
    expect((await world.bulk(csv)).code).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('victim')
    expect(lstatSync(csv.replace(/\.csv$/, '.report.csv')).isSymbolicLink()).toBe(false)
    expect(world.reportOf(csv)[0]!.status).toBe('refunded')
  })
})

describe('the journal', () => {
  const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

  const header = (csv: string) =>
    `${JSON.stringify({type: 'header', version: 1, csv_file: csv.split('/').pop(), csv_sha256: sha(csv), appid: world.sandbox.info.merchants[0]!.appid, created_at: 'then'})}\n`

  it('with a last line cut short by a crash: the line is cut off, the next records stay readable, each row refunded once', async () => {
    const orders = await world.paidOrders(2, 10_000, 'ONCE-TORN')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},100`).join('\n')}\n`)
    const plan = (await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])).json<{
      rows: {mch_refund_no: string}[]
    }>()
    const journal = `${csv}.journal.jsonl`
    const intent = {
      type: 'intent',
      line: 2,
      mch_refund_no: plan.rows[0]!.mch_refund_no,
      mch_order_no: orders[0],
      refund_fee: 100,
      fee_type: 'THB',
      at: 'then',
    }
    writeFileSync(journal, `${header(csv)}${JSON.stringify(intent)}\n{"type":"outcome","line":2,"mch_ref`)
    const result = await world.bulk(csv)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain("the journal's last line was cut short by a crash")
    for (const line of readFileSync(journal, 'utf8').trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
    for (const order of orders) expect(await world.refundsOf(order)).toHaveLength(1)
  })

  it('with an outcome but no intent, in a journal of the name earlier versions gave: resumed, not trusted, the row is looked up and refunded', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-FAKE')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    const fake = {
      type: 'outcome',
      line: 2,
      mch_refund_no: 'RFFAKE',
      status: 'refunded',
      gw_refund_no: 'FAKE',
      at: 'then',
    }
    writeFileSync(csv.replace(/\.csv$/, '.journal.jsonl'), `${header(csv)}${JSON.stringify(fake)}\n`)
    const result = await world.bulk(csv)
    expect(result.code, result.stderr).toBe(0)
    expect(world.reportOf(csv)[0]).toMatchObject({status: 'refunded', gw_refund_no: expect.stringMatching(/^910/)})
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('with times edited into words ("then"): resumed, the rows kept in the history at the time they are recorded, exit 0', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-THEN')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    const first = await world.bulk(csv)
    expect(first.code, first.stderr).toBe(0)
    const journal = `${csv}.journal.jsonl`
    writeFileSync(journal, readFileSync(journal, 'utf8').replace(/"at":"[^"]+"/g, '"at":"then"'))
    rmSync(join(world.configDir, 'history.db'), {force: true})
    const again = await world.bulk(csv)
    expect(again.code, again.stderr).toBe(0)
    expect(world.reportOf(csv)[0]).toMatchObject({status: 'refunded_earlier'})
    const listed = await world.run(['refund', 'list', '--json'])
    expect(listed.json<{refunds: {mch_order_no: string}[]}>().refunds.map((r) => r.mch_order_no)).toContain(order)
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('resumed: rows settled before sending keep their amount in the report', async () => {
    const orders = await world.paidOrders(2, 10_000, 'ONCE-AMT')
    const csv = world.csv(`mch_order_no,refund_amount\n${orders.map((o) => `${o},1.25`).join('\n')}\n`)
    await world.underFaults('drop-after-commit=1@order_refund,http-500=1@refund_query', async () => {
      expect((await world.bulk(csv)).code).toBe(5)
    })
    const resumed = await world.bulk(csv)
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toMatch(/the uncertain rows, asked of the gateway: 2 refunded/)
    expect(world.reportOf(csv).map((r) => [r.status, r.refund_fee])).toEqual([
      ['refunded_earlier', '125'],
      ['refunded_earlier', '125'],
    ])
  })
})

describe('a full disk', () => {
  /** A 48 KiB filesystem where the machine allows mounting one; else writes fail through an injected hook. */
  function smallDisk(): {dir: string; env: Record<string, string>; grow(): void; close(): void} {
    const dir = tempDir('gw-full-disk-')
    try {
      // GW_TEST_NO_MOUNT=1 tries the fallback on a machine that could mount.
      if (process.env.GW_TEST_NO_MOUNT) throw new Error('not mounting')
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48k,mode=0700', 'tmpfs', dir], {stdio: 'ignore'})
      return {
        dir,
        env: {},
        grow: () => execFileSync('mount', ['-o', 'remount,size=4m', dir]),
        close: () => {
          execFileSync('umount', [dir])
          removeDir(dir)
        },
      }
    } catch {
      const hook = pathToFileURL(join(REPO_ROOT, 'test', 'helpers', 'full-disk.mjs')).href
      const disk: ReturnType<typeof smallDisk> = {
        dir,
        env: {NODE_OPTIONS: `--import=${hook}`, GW_TEST_DISK_BYTES: String(48 * 1024)},
        grow: () => void (disk.env = {}),
        close: () => removeDir(dir),
      }
      return disk
    }
  }

  it('stops sending before the next refund, ends with the summary and exit 5 naming the journal, and a rerun settles exactly once', async () => {
    const orders = await world.paidOrders(200, 10_000, 'ONCE-DISK')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},100`).join('\n')}\n`)
    const disk = smallDisk()
    try {
      mkdirSync(join(disk.dir, 'run'), {recursive: true})
      const paths = [
        '--journal',
        join(disk.dir, 'run', 'refunds.journal.jsonl'),
        '--out',
        join(disk.dir, 'run', 'report.csv'),
      ]
      const full = await world.bulk(csv, [...paths, '--concurrency', '4'], {
        env: disk.env,
      })
      expect(full.code, full.stderr).toBe(5)
      expect(full.stderr).toMatch(/The journal .*refunds\.journal\.jsonl could not be written \(ENOSPC/)
      expect(full.stderr).not.toMatch(/^\s+at /m)
      expect(full.stdout).toMatch(/^status\tcurrency\trows\tamount$/m)
      // Every refund the gateway made has its intent, whole, in the journal.
      const intents = new Set(
        readFileSync(join(disk.dir, 'run', 'refunds.journal.jsonl'), 'utf8')
          .split('\n')
          .flatMap((line) => {
            try {
              const record = JSON.parse(line) as {type: string; mch_refund_no: string}
              return record.type === 'intent' ? [record.mch_refund_no] : []
            } catch {
              return []
            }
          }),
      )
      const made = (await Promise.all(orders.map(world.refundsOf))).flat()
      expect(made.length).toBeGreaterThan(0)
      expect(made.length).toBeLessThan(200)
      for (const refund of made) expect(intents.has(refund.mch_refund_no), refund.mch_refund_no).toBe(true)
      disk.grow()
      const rerun = await world.bulk(csv, paths, {env: disk.env})
      expect(rerun.code, rerun.stderr).toBe(0)
      expect(await refundCount(orders)).toBe(200)
      for (const order of orders) expect(await world.refundsOf(order)).toHaveLength(1)
    } finally {
      disk.close()
    }
  })
})

describe('one order, whatever number names it', () => {
  it('rows naming it by merchant, gateway and channel numbers are one order for the plan and its balance', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-3WAYS')
    const record = (await world.run(['order', 'query', order!, '--json'])).json<{
      record: {gw_order_no: string; channel_order_no: string}
    }>().record
    const csv = world.csv(
      'mch_order_no,gw_order_no,channel_order_no,refund_amount\n' +
        `${order},,,60.00\n,${record.gw_order_no},,30.00\n,,${record.channel_order_no},20.00\n`,
    )
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])
    expect(dry.code).toBe(2)
    const plan = dry.json<{orders: number; problems: {line: number; message: string}[]; orders_with_several_rows: []}>()
    expect(plan.orders).toBe(1)
    // Amounts in minor units are named *_fee in --json, as everywhere.
    expect(plan.orders_with_several_rows).toEqual([
      expect.objectContaining({lines: [2, 3, 4], to_send_fee: 11_000, balance_fee: 10_000, currency: 'THB'}),
    ])
    expect(plan.problems.map((p) => p.line)).toEqual([2, 3, 4])
    expect(plan.problems[0]!.message).toContain('add up to 110.00 THB, more than its balance of 100.00 THB')
    expect(await world.refundsOf(order!)).toEqual([])
  })

  it('a row naming the wrong channel for an order that exists on another says so, in bulk refunds and reconcile', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-CHAN', 'alipay')
    const csv = world.csv(`mch_order_no,refund_amount,channel\n${order},1.00,wechat\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toContain('Order PRV-CHAN-1 is not on channel wechat: the gateway knows it on alipay')
    const recon = world.csv(`mch_order_no,amount,channel\n${order},100.00,wechat\n`)
    const reconciled = await world.run(['reconcile', recon, '--json'])
    expect(reconciled.json<{results: {classification: string; detail: string}[]}>().results).toEqual([
      expect.objectContaining({classification: 'invalid_row', detail: expect.stringContaining('knows it on alipay')}),
    ])
    const query = await world.run(['order', 'query', order!, '--channel', 'wechat'])
    expect(query.code).toBe(2)
    expect(query.stderr).toContain('--channel alipay')
  })
})

describe('the smaller ones', () => {
  it('a file name with escape sequences is shown with them made visible, in the plan and in "written to"', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-ESC')
    const csv = join(world.configDir, 'refunds\u001b[31mred.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${order},1.00\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    const recon = await world.run(['reconcile', csv.replace('red.csv', 'red.txt'), '--existence-only'])
    for (const output of [dry.stdout, dry.stderr, recon.stdout, recon.stderr]) expect(output).not.toContain('\u001b')
    expect(dry.stdout).toContain('Plan for ')
    expect(dry.stdout).toContain('refunds\\x1B[31mred.csv')
  })

  it('a bulk run whose report could not be written does not end 0; the journal holds every refund', async () => {
    const orders = await world.paidOrders(3, 10_000, 'PRV-NOREPORT')
    const dir = join(world.configDir, 'reports-gone')
    mkdirSync(dir)
    const csv = world.csv(`mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    const result = await world.underFaults('latency=600-600ms@order_refund', async () => {
      const running = world.spawn([
        'refund',
        'create',
        '--from-csv',
        csv,
        '--yes',
        '--concurrency',
        '1',
        '--out',
        join(dir, 'r.csv'),
      ])
      await waitFor(async () => (await world.refundsOf(orders[0]!)).length > 0)
      rmSync(dir, {recursive: true})
      return running.result
    })
    expect(result.code, result.stderr).toBe(5)
    expect(result.stderr).toContain('The report could not be written')
    for (const order of orders) expect((await world.refundsOf(order)).map((r) => r.refund_fee)).toEqual([100])
  })

  it('a file changed while the run sends gets no report paired with the plan: exit 5, every refund made once and in the journal', async () => {
    const orders = await world.paidOrders(3, 10_000, 'PRV-CHANGED')
    const csv = world.csv(`mch_order_no,refund_amount,note\n${orders.map((o) => `${o},1.00,as planned`).join('\n')}\n`)
    const result = await world.underFaults('latency=600-600ms@order_refund', async () => {
      const running = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '1'])
      await waitFor(async () => (await world.refundsOf(orders[0]!)).length > 0)
      // Finance saves the sheet again, another amount on a row, while the refunds go out.
      writeFileSync(csv, `mch_order_no,refund_amount,note\n${orders.map((o) => `${o},9.00,edited`).join('\n')}\n`)
      return running.result
    })
    expect(result.code, result.stderr).toBe(5)
    expect(result.stderr).toMatch(
      /The report could not be written \(.*changed while gw was running: .*put the file back as it was planned \(SHA-256 [0-9a-f]{64}\) and run the same command/s,
    )
    expect(
      readdirSync(join(world.configDir)).filter((f) =>
        f.startsWith(
          csv
            .split('/')
            .pop()!
            .replace(/\.csv$/, '.report'),
        ),
      ),
    ).toEqual([])
    for (const order of orders) expect((await world.refundsOf(order)).map((r) => r.refund_fee)).toEqual([100])
    const journal = readFileSync(`${csv}.journal.jsonl`, 'utf8')
    expect(journal.match(/"type":"outcome"/g)).toHaveLength(3)
  })

  it('a bulk run stopped by SIGTERM ends 143, by its own signal', async () => {
    const orders = await world.paidOrders(3, 10_000, 'PRV-BTERM')
    const csv = world.csv(`mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    const result = await world.underFaults('latency=700-700ms@order_refund', async () => {
      const running = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '1'])
      await waitFor(async () => (await world.refundsOf(orders[0]!)).length > 0)
      running.child.kill('SIGTERM')
      return running.result
    })
    expect(result.code, result.stderr).toBe(143)
    expect(result.stderr).toContain('Resume with the same command')
  })

  it('the sending progress counts rows not refunded as such, never unknown ones as failed', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-PROGRESS')
    const csv = world.csv(`mch_order_no,refund_amount\n${order},1.00\n`)
    const run = await world.underFaults('drop-after-commit=1@order_refund,code-nonzero=1@refund_query', () =>
      world.bulk(csv),
    )
    expect(run.code).toBe(5)
    expect(run.stderr).toMatch(/refunds: 1\/1 done, 1 not refunded/)
    expect(run.stderr).not.toMatch(/\d failed/)
    expect(world.reportOf(csv).map((r) => r.status)).toEqual(['unknown'])
  })
})

describe('a stop while rows wait for their turn', () => {
  it('Ctrl-C under --rate 1: no refund request leaves after the stop; the rows waiting are pending, not sent', async () => {
    const orders = await world.paidOrders(8, 10_000, 'RATE-STOP')
    const {dir, env} = machine()
    const csv = join(dir, 'slow.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    const before = await seen('order_refund')
    const running = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--rate', '1', '--concurrency', '4'], {
      env,
    })
    while ((await seen('order_refund')) - before < 2) await sleep(20)
    running.child.kill('SIGINT')
    const atStop = await seen('order_refund')
    const ended = await running.result
    await sleep(2000)
    expect(ended.code, ended.stderr).toBe(130)
    expect(await seen('order_refund')).toBe(atStop)
    const statuses = world.reportOf(csv).map((row) => row.status)
    expect(statuses.filter((s) => s === 'refunded')).toHaveLength(atStop - before)
    expect(statuses.filter((s) => s === 'pending')).toHaveLength(8 - (atStop - before))
    expect((await Promise.all(orders.map(world.refundsOf))).flat()).toHaveLength(atStop - before)
  })
})

describe('two copies of one file run at once', () => {
  it('the copy holds its rows while the first sends (one refund of an order at a time); each refund made once, credited to the file that sent it', async () => {
    const orders = [
      ...(await world.paidOrders(3, 10_000, 'TWICE-W', 'wechat')),
      ...(await world.paidOrders(3, 10_000, 'TWICE-A', 'alipay')),
    ]
    const {dir, env} = machine()
    const slow = join(dir, 'batch.csv')
    const copy = join(dir, 'batch (1).csv')
    const content = `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`
    writeFileSync(slow, content)
    writeFileSync(copy, content)
    const before = await seen('order_refund')
    const first = world.spawn(['refund', 'create', '--from-csv', slow, '--yes', '--rate', '1', '--concurrency', '1'], {
      env,
    })
    while ((await seen('order_refund')) - before < 1) await sleep(20)
    const second = await world.bulk(copy, [], {env})
    // The first run holds its orders' claims: the copy sends nothing, and says who is refunding them.
    expect(second.code, second.stderr).toBe(5)
    expect(second.stderr).toMatch(/line 2: Order TWICE-W-1 is being refunded by process \d+/)
    expect(world.reportOf(copy).map((row) => row.status)).toEqual(orders.map(() => 'held'))
    const slowEnded = await first.result
    expect(slowEnded.code, slowEnded.stderr).toBe(0)
    expect((await Promise.all(orders.map(world.refundsOf))).flat()).toHaveLength(6)
    const listed = await world.run(['refund', 'list', '--json'], {env})
    const refunds = listed.json<{refunds: {mch_order_no: string; status: string; source: string}[]}>().refunds
    const byOrder = new Map(refunds.map((r) => [r.mch_order_no, r]))
    expect(world.reportOf(slow).map((row) => row.status)).toEqual(orders.map(() => 'refunded'))
    for (const order of orders)
      expect(byOrder.get(order), order).toMatchObject({status: 'refunded', source: 'batch.csv'})
    // An alipay refund the other run saw succeed is refunded on every later run, never not confirmable
    // (a run meeting it before the other had recorded it says not confirmable once, and no more).
    for (const file of [slow, copy]) {
      const rerun = await world.bulk(file, [], {env})
      expect(rerun.code, rerun.stderr).toBe(0)
      for (const row of world.reportOf(file)) expect(['refunded_earlier', 'already_refunded']).toContain(row.status)
    }
    expect((await Promise.all(orders.map(world.refundsOf))).flat()).toHaveLength(6)
  })
})

describe('a bulk run stopped part way', () => {
  it('says the command that resumes it, every flag kept, and that command finishes the run', async () => {
    const orders = await world.paidOrders(3, 10_000, 'ADV-RESUME')
    const csv = join(world.configDir, 'resume.csv')
    writeFileSync(csv, `Invoice No,Refund\n${orders.map((o) => `${o},3.00`).join('\n')}\n`)
    const args = ['refund', 'create', '--from-csv', csv, '--column', 'mch_order_no=Invoice No', '--yes']
    const stopped = await world.interrupted([...args, '--column', 'refund_amount=Refund', '--concurrency', '1'], {
      operation: 'order_refund',
      count: 1,
    })
    expect(stopped.code, stopped.stderr).toBe(130)
    const resume = suggested(stopped.stderr, 'Resume with the same command: ')
    expect(resume).toContain("--column 'mch_order_no=Invoice No'")
    const resumed = await world.asPrinted(resume)
    expect(resumed.code, resumed.stderr).toBe(0)
    for (const order of orders)
      expect(
        (await world.ledger(order))!.refunds.map((r) => r.refund_fee),
        order,
      ).toEqual([300])
  })
})
