import {writeFileSync, existsSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {asPrinted} from '../helpers/cli.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {HAS_TMUX, Terminal} from '../helpers/terminal.js'
import {writeWorkbook} from '../helpers/workbooks.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

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
      // The channel settles them (20 minutes of its time): wait until the sandbox's ledger shows it.
      const refundStates = async () => {
        const {body} = await fast.sandbox.control<{orders: {refunds: {state: string}[]}[]}>('GET', '/sandbox/orders')
        return body.orders.flatMap((o) => o.refunds.map((r) => r.state))
      }
      const deadline = Date.now() + 30_000
      while ((await refundStates()).some((state) => state !== 'SUCCESS') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
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
  }, 60_000)
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
  }, 180_000)

  it('with drop-after-commit, http-500, code-nonzero and notsure at 10% each, every row is refunded exactly once', async () => {
    const {rows, csv} = await batchOf('FAULT')
    await world.faults('drop-after-commit=0.1,http-500=0.1,code-nonzero=0.1,notsure=0.1')
    const codes: (number | null)[] = []
    try {
      for (let run = 0; run < 10; run++) {
        const result = await world.bulk(csv, ['--concurrency', '8'])
        codes.push(result.code)
        // 3: a query failed every retry; 5: some outcomes still unknown. Both resume.
        expect([0, 3, 5], result.stderr).toContain(result.code)
        if (result.code === 0) break
      }
    } finally {
      await world.faults('')
    }
    expect(codes.at(-1)).toBe(0)
    await expectExactlyOnce(csv, rows)
  }, 180_000)

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
  }, 120_000)

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
  }, 60_000)

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
    120_000,
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
    90_000,
  )
})
