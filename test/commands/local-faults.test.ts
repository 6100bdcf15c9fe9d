// Money holds when gw's own machine fails: its database held by another program after a send, a
// disk that fills after a send, a journal edited or a history emptied between runs, a history.jsonl
// that appears later, a stop while rows wait for their turn, two copies of one file at once. Each
// asserts what the sandbox's ledger shows was really refunded, gw's exit code and words, and the
// history afterwards.
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {CliOptions, CliResult} from '../helpers/cli.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {deriveRefundNumber} from '../../src/lib/refunds/bulk/refund-number.js'
import {REPO_ROOT} from '../helpers/shared.js'
import {holdDatabase} from '../helpers/sqlite-holder.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let world: GwWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

const machine = () => world.machine()
const seen = async (operation: string) => (await world.requests())[operation] ?? 0

/**
 * Runs gw with `operation`'s answers slowed to `latencyMs`, and does `act` once the sandbox has
 * seen `count` of them: while the request is in flight, before gw knows its outcome.
 */
async function whileInFlight(
  args: string[],
  options: CliOptions,
  at: {operation: string; count?: number; latencyMs?: number},
  act: () => Promise<void>,
): Promise<CliResult> {
  await world.faults(`latency=${at.latencyMs ?? 1500}ms@${at.operation}`)
  try {
    const before = await seen(at.operation)
    const running = world.spawn(args, options)
    const deadline = Date.now() + 20_000
    while ((await seen(at.operation)) - before < (at.count ?? 1)) {
      if (Date.now() > deadline || running.child.exitCode !== null) throw new Error(`gw sent no ${at.operation}`)
      await sleep(20)
    }
    await act()
    return await running.result
  } finally {
    await world.faults('')
  }
}

describe('the history held by another program from the start', () => {
  it('a bulk run takes no claim, and still refunds every row once (the journal holds them); exit 5 naming the holder', async () => {
    const orders = await world.paidOrders(2, 10_000, 'HELD-START')
    const {dir, env} = machine()
    const csv = join(dir, 'held-start.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    expect((await world.run(['history'], {env})).code).toBe(0)
    const database = join(dir, 'history.db')
    const holder = await holdDatabase(database)
    try {
      const run = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
      expect(run.code, run.stderr).toBe(5)
      expect(run.stderr).toContain(`history.db is held by process ${holder.pid} (sqlite3 ${database})`)
      expect(world.reportOf(csv).map((row) => row.status)).toEqual(['refunded', 'refunded'])
    } finally {
      await holder.release()
    }
    expect((await Promise.all(orders.map(world.refundsOf))).flat().map((r) => r.refund_fee)).toEqual([100, 100])
  }, 60_000)
})

describe('the history held by another program after a refund was sent', () => {
  it('a single refund: said refunded as the gateway showed, its outcome kept in history.jsonl, exit 5; never "nothing was sent"; the next command merges it', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HELD-ONE')
    const {dir, env} = machine()
    expect((await world.run(['history'], {env})).code).toBe(0)
    const database = join(dir, 'history.db')
    let holder: Awaited<ReturnType<typeof holdDatabase>> | undefined
    const refund = ['refund', 'create', order!, '--amount', '10.00', '--json']
    try {
      const held = await whileInFlight(refund, {env}, {operation: 'order_refund'}, async () => {
        holder = await holdDatabase(database)
      })
      expect(held.code, held.stderr).toBe(5)
      expect(held.stderr).not.toMatch(/nothing was sent/i)
      expect(held.stderr).toContain(
        `history.db is held by process ${holder!.pid} (sqlite3 ${database}); gw waited 5 s.`,
      )
      expect(held.stderr).toMatch(
        /its outcome went to .*history\.jsonl, added to the history the next time gw opens it/,
      )
      const result = held.json<{status: string; not_recorded: {where: string}; mch_refund_no: string}>()
      expect(result).toMatchObject({status: 'refunded', not_recorded: {where: 'later'}})
      expect(await world.refundsOf(order!)).toEqual([
        expect.objectContaining({mch_refund_no: result.mch_refund_no, refund_fee: 1000, state: 'SUCCESS'}),
      ])
      const kept = readFileSync(join(dir, 'history.jsonl'), 'utf8')
      expect(JSON.parse(kept.trim())).toMatchObject({mch_refund_no: result.mch_refund_no, status: 'refunded'})
    } finally {
      await holder?.release()
    }
    // Free again: the next command merges what waited, and the refund is known as refunded.
    const listed = await world.run(['refund', 'list', '--json'], {env})
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json<{refunds: {mch_order_no: string; status: string}[]}>().refunds).toEqual([
      expect.objectContaining({mch_order_no: order, status: 'refunded'}),
    ])
    expect(existsSync(join(dir, 'history.jsonl'))).toBe(false)
    expect(existsSync(join(dir, 'history.jsonl.imported'))).toBe(true)
    // The same refund asked again is pointed out, never sent on a guess.
    const again = await world.run(refund.slice(0, -1), {env})
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('Add --again to confirm')
    expect(await world.refundsOf(order!)).toHaveLength(1)
  }, 60_000)

  it('a bulk run past the history grouping: every row refunded, none failed, the run not slowed; exit 5 naming the holder; a rerun settles to exit 0, each refund once', async () => {
    const orders = await world.paidOrders(600, 10_000, 'HELD-BULK')
    const {dir, env} = machine()
    const csv = join(dir, 'held.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    const database = join(dir, 'history.db')
    expect((await world.run(['history'], {env})).code).toBe(0)
    let holder: Awaited<ReturnType<typeof holdDatabase>> | undefined
    const started = Date.now()
    try {
      const run = await whileInFlight(
        ['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '8'],
        {env},
        {operation: 'order_refund', count: 8, latencyMs: 200},
        async () => {
          holder = await holdDatabase(database)
        },
      )
      expect(run.code, run.stderr).toBe(5)
      expect(run.stderr).toContain(`history.db is held by process ${holder!.pid} (sqlite3 ${database})`)
      expect(run.stderr).toMatch(
        /600 records went to .*history\.jsonl instead, merged the next time gw opens the history/,
      )
      expect(run.stderr).not.toMatch(/nothing was sent/i)
      const statuses = world.reportOf(csv).map((row) => row.status)
      expect(statuses.filter((status) => status !== 'refunded')).toEqual([])
      // Not slowed by waiting for the database while answers came in: a wait per row (5 s each) would take 50
      // minutes (it took over 6 when the rows waited in groups); the bound holds on a busy machine too.
      expect(Date.now() - started).toBeLessThan(180_000)
    } finally {
      await holder?.release()
    }
    const rerun = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(new Set(world.reportOf(csv).map((row) => row.status))).toEqual(new Set(['refunded_earlier']))
    const made = (await Promise.all(orders.map(world.refundsOf))).flat()
    expect(made).toHaveLength(600)
    const listed = await world.run(['refund', 'list', '--json'], {env})
    const refunds = listed.json<{refunds: {status: string; source: string}[]}>().refunds
    expect(refunds).toHaveLength(600)
    expect(new Set(refunds.map((r) => `${r.status} ${r.source}`))).toEqual(new Set(['refunded held.csv']))
  }, 400_000)
})

describe('a disk that fills after a refund was sent', () => {
  it('a single refund: exit 5 saying where its outcome is (nowhere on this machine), never "unexpected failure"; the next run settles it once', async (context) => {
    const {dir, env} = machine()
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', dir], {stdio: 'ignore'})
    } catch {
      context.skip('this machine cannot mount a small filesystem')
    }
    try {
      const [order] = await world.paidOrders(1, 10_000, 'FULL-ONE')
      expect((await world.run(['history'], {env})).code).toBe(0)
      const refund = ['refund', 'create', order!, '--amount', '10.00']
      const full = await whileInFlight(refund, {env}, {operation: 'order_refund'}, async () => {
        // Fills what is left of the disk, as another program's writes would.
        try {
          execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=64k'], {stdio: 'ignore'})
        } catch {
          // dd ends with "No space left on device": the disk is full.
        }
      })
      expect(full.code, full.stderr).toBe(5)
      expect(full.stderr).not.toContain('unexpected failure')
      expect(full.stderr).not.toMatch(/nothing was sent/i)
      expect(full.stderr).toMatch(/the disk is full/)
      expect(full.stderr).toMatch(
        /could not be kept anywhere on this machine; the next refund of the order looks it up first/,
      )
      expect(await world.refundsOf(order!)).toHaveLength(1)
      rmSync(join(dir, 'filler'))
      const settled = await world.run(refund, {env})
      expect(settled.code, settled.stderr).toBe(0)
      expect(settled.stderr).toContain('it is settled now (refunded). Nothing new was sent.')
      expect(await world.refundsOf(order!)).toEqual([expect.objectContaining({refund_fee: 1000, state: 'SUCCESS'})])
    } finally {
      execFileSync('umount', [dir])
    }
  }, 60_000)
})

describe('a journal edited between runs', () => {
  /** A bulk run of one 1.00 row per order, then the journal's lines for `edit` changed as `change` says. */
  async function runThenEdit(prefix: string, channel: string) {
    const orders = await world.paidOrders(3, 10_000, prefix, channel)
    const {dir, env} = machine()
    const csv = join(dir, 'refunds.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    const first = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(first.code, first.stderr).toBe(0)
    const journal = `${csv}.journal.jsonl`
    const records = readFileSync(journal, 'utf8').trim().split('\n')
    return {orders, env, csv, journal, records}
  }
  const rewrite = (path: string, records: string[]) => writeFileSync(path, `${records.join('\n')}\n`)

  it('an intent given another refund number and its outcome deleted: the row is looked up under its own number, never sent again (3.00 refunded for a 3.00 file)', async () => {
    const {orders, env, csv, journal, records} = await runThenEdit('EDIT-NO', 'wechat')
    const edited = records
      .filter((r) => !(JSON.parse(r).type === 'outcome' && JSON.parse(r).line === 3))
      .map((r) =>
        JSON.parse(r).type === 'intent' && JSON.parse(r).line === 3 ? r.replace(/"RF[0-9A-F]+"/, '"RF-EDITED"') : r,
      )
    rewrite(journal, edited)
    const rerun = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(world.reportOf(csv).map((row) => row.status)).toEqual([
      'refunded_earlier',
      'already_refunded',
      'refunded_earlier',
    ])
    const made = (await Promise.all(orders.map(world.refundsOf))).flat()
    expect(made.map((r) => r.refund_fee)).toEqual([100, 100, 100])
  })

  it('on a channel without a refund query (alipay) the edited row is a problem naming the journal line: nothing is sent', async () => {
    const {orders, env, csv, journal, records} = await runThenEdit('EDIT-ALI', 'alipay')
    const at = records.findIndex((r) => JSON.parse(r).type === 'intent' && JSON.parse(r).line === 3)
    const edited = records
      .filter((r) => !(JSON.parse(r).type === 'outcome' && JSON.parse(r).line === 3))
      .map((r, i) => (i === at ? r.replace(/"RF[0-9A-F]+"/, '"RF-EDITED"') : r))
    rewrite(journal, edited)
    const before = await seen('order_refund')
    const rerun = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(rerun.code).toBe(2)
    expect(rerun.stderr).toContain(`the journal's line ${at + 1} records refund "RF-EDITED" for line 3`)
    expect(rerun.stderr).toContain('nothing is sent for this row')
    expect(await seen('order_refund')).toBe(before)
    expect((await Promise.all(orders.map(world.refundsOf))).flat()).toHaveLength(3)
  })

  it('an outcome edited to failed is looked up before it is said: refunded_earlier, as the gateway shows', async () => {
    const {env, csv, journal, records} = await runThenEdit('EDIT-FAIL', 'wechat')
    rewrite(
      journal,
      records.map((r) =>
        JSON.parse(r).type === 'outcome' && JSON.parse(r).line === 2 ? r.replace('"refunded"', '"failed"') : r,
      ),
    )
    const rerun = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(world.reportOf(csv)[0]!.status).toBe('refunded_earlier')
  })

  it('an intent edited to another amount makes the row edited: looked up, never sent at the edited amount', async () => {
    const {orders, env, csv, journal, records} = await runThenEdit('EDIT-AMT', 'wechat')
    rewrite(
      journal,
      records
        .filter((r) => !(JSON.parse(r).type === 'outcome' && JSON.parse(r).line === 4))
        .map((r) =>
          JSON.parse(r).type === 'intent' && JSON.parse(r).line === 4
            ? r.replace('"refund_fee":100', '"refund_fee":400')
            : r,
        ),
    )
    const rerun = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(world.reportOf(csv)[2]!.status).toBe('already_refunded')
    expect((await Promise.all(orders.map(world.refundsOf))).flat().map((r) => r.refund_fee)).toEqual([100, 100, 100])
  })
})

describe('a journal line copied to another row', () => {
  it("one row's refund given to a row never sent: caught (one gateway refund for two rows), looked up, never claimed refunded", async () => {
    const [paid] = await world.paidOrders(1, 10_000, 'COPY-PAID')
    const unpaid = `COPY-LATER-${process.pid}`
    const created = await world.sandbox
      .wire()
      .call('native_pay', {channel: 'wechat', mch_order_no: unpaid, total_fee: 10_000, fee_type: 'THB'})
    expect(created.data.result).toBe('SUCCESS')
    const {dir, env} = machine()
    const csv = join(dir, 'refunds.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${paid},1.00\n${unpaid},1.00\n`)
    // The unpaid order's row is skipped; the other is refunded.
    const first = await world.run(['refund', 'create', '--from-csv', csv, '--yes', '--skip-invalid'], {env})
    expect(first.code, first.stderr).toBe(1)
    expect((await world.sandbox.controls.pay(unpaid)).status).toBe(200)
    const plan = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'], {env})
    const number = plan.json<{rows: {mch_refund_no: string}[]}>().rows[1]!.mch_refund_no
    // Line 2's intent and outcome copied as line 3's: its order and refund number put in, the gateway's numbers kept.
    const journal = `${csv}.journal.jsonl`
    const lines = readFileSync(journal, 'utf8').trim().split('\n')
    const copied = lines
      .filter((l) => JSON.parse(l).line === 2)
      .map((l) => JSON.stringify({...JSON.parse(l), line: 3, mch_order_no: unpaid, mch_refund_no: number}))
    writeFileSync(journal, `${[...lines, ...copied].join('\n')}\n`)
    const rerun = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(rerun.code, rerun.stderr).toBe(2)
    expect(rerun.stderr).toMatch(/the journal's lines \d+ and \d+ give gateway refund "\d+" to lines 2 and 3: edited/)
    expect(rerun.stderr).toContain('nothing is sent for this row')
    expect(world.reportOf(csv).map((row) => row.status)).not.toContain('refunded_earlier')
    expect(await world.refundsOf(unpaid)).toEqual([])
    // A journal of its own, as the advice says: the row is refunded once, the other found made.
    const fresh = await world.run(
      ['refund', 'create', '--from-csv', csv, '--yes', '--journal', join(dir, 'new.jsonl')],
      {
        env,
      },
    )
    expect(fresh.code, fresh.stderr).toBe(0)
    expect(world.reportOf(csv).map((row) => row.status)).toEqual(['already_refunded', 'refunded'])
    expect((await world.refundsOf(unpaid)).map((r) => r.refund_fee)).toEqual([100])
    expect((await world.refundsOf(paid!)).map((r) => r.refund_fee)).toEqual([100])
  })
})

describe('a history that is emptied or appears later', () => {
  it('a 0-byte history.db is damage, refused like any other: the unsettled refund is not forgotten, nothing is sent twice', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ZERO')
    const {dir, env} = machine()
    const refund = ['refund', 'create', order!, '--amount', '10.00']
    // Sent, and stopped before its answer: its intent is in the history, its outcome unknown.
    const stopped = await world.during(refund, {operation: 'order_refund', count: 1}, (child) => child.kill('SIGINT'), {
      env,
    })
    expect(stopped.code).toBe(130)
    for (const file of readdirSync(dir).filter((name) => name.startsWith('history.db'))) rmSync(join(dir, file))
    writeFileSync(join(dir, 'history.db'), '')
    // Made or not (the stop may reach the sandbox before it does it): the refused run adds nothing.
    await sleep(1000)
    const before = (await world.refundsOf(order!)).length
    const refused = await world.run(refund, {env})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`${join(dir, 'history.db')} is not a readable gw database: it is empty (0 bytes).`)
    expect(refused.stderr).toContain('Move it aside')
    expect(refused.stderr).toContain('Nothing was sent.')
    expect(await world.refundsOf(order!)).toHaveLength(before)
  })

  it('a history.jsonl that appears after the first import (an older gw, a backup) is merged: its unsettled refund is settled, never sent again', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'LATER')
    const older = machine()
    // An older gw on the same machine made a refund and recorded only its intent.
    const made = await world.run(['refund', 'create', order!, '--amount', '10.00', '--json'], {env: older.env})
    expect(made.code, made.stderr).toBe(0)
    const planned = made.json<{mch_refund_no: string; channel: string; gw_order_no: string}>()
    const {dir, env} = machine()
    expect((await world.run(['history'], {env})).code).toBe(0)
    const appid = world.sandbox.info.merchants[0]!.appid
    const intent = {
      type: 'refund',
      appid,
      mch_order_no: order,
      gw_order_no: planned.gw_order_no,
      channel: planned.channel,
      mch_refund_no: planned.mch_refund_no,
      refund_fee: 1000,
      fee_type: 'THB',
      status: 'intent',
      source: 'refund create',
      at: new Date().toISOString(),
    }
    writeFileSync(join(dir, 'history.jsonl'), `${JSON.stringify(intent)}\n`)
    const again = await world.run(['refund', 'create', order!, '--amount', '10.00'], {env})
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(`Refund ${planned.mch_refund_no} was sent by an earlier run`)
    expect(again.stderr).toContain('Nothing new was sent.')
    expect(await world.refundsOf(order!)).toHaveLength(1)
    expect(readdirSync(dir)).toContain('history.jsonl.imported')
  })

  it('a history.jsonl with a 64 MiB line: the line is named and skipped, the records around it merged, in bounded memory', async () => {
    const {dir, env} = machine()
    expect((await world.run(['history'], {env})).code).toBe(0)
    const appid = world.sandbox.info.merchants[0]!.appid
    const order = (no: string) =>
      JSON.stringify({
        type: 'order',
        appid,
        mch_order_no: no,
        channel: 'wechat',
        total_fee: 100,
        fee_type: 'THB',
        at: '2026-11-01T00:00:00Z',
      })
    writeFileSync(join(dir, 'history.jsonl'), `${order('BEFORE')}\n${'x'.repeat(64 << 20)}\n${order('AFTER')}\n`)
    // gw as a user runs it, its peak memory reported by the benchmarks' hook on a fourth descriptor.
    const listed = spawnSync(
      process.execPath,
      [
        '--import',
        pathToFileURL(join(REPO_ROOT, 'bench', 'maxrss-hook.mjs')).href,
        join(REPO_ROOT, 'bin', 'run.js'),
        'order',
        'list',
        '--json',
      ],
      {env: {...process.env, ...env, NO_COLOR: '1'}, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'pipe']},
    )
    expect(listed.status, listed.stderr).toBe(0)
    expect(listed.stderr).toContain('line 2 is not a record of an order or refund')
    expect(
      (JSON.parse(listed.stdout) as {orders: {mch_order_no: string}[]}).orders.map((o) => o.mch_order_no).sort(),
    ).toEqual(['AFTER', 'BEFORE'])
    // Peak memory in KiB: the line was never held whole.
    expect(Number(listed.output[3]) / 1024).toBeLessThan(250)
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
  }, 60_000)
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

  it("LibreOffice's German CSV (1.500 and 3.200 baht, 2.000 yen): refused before anything is sent, naming each line and both readings of the baht", async () => {
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
    // "Refund (JPY)": yen have no decimals, so 2.000 reads one way (2000); the run is refused all the same.
    expect(yen.code).toBe(2)
    expect(yen.stdout + yen.stderr).not.toContain('"2.000" reads two ways')
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
    const second = await world.run(['refund', 'create', '--from-csv', copy, '--yes'], {env})
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
      const rerun = await world.run(['refund', 'create', '--from-csv', file, '--yes'], {env})
      expect(rerun.code, rerun.stderr).toBe(0)
      for (const row of world.reportOf(file)) expect(['refunded_earlier', 'already_refunded']).toContain(row.status)
    }
    expect((await Promise.all(orders.map(world.refundsOf))).flat()).toHaveLength(6)
  }, 60_000)
})

describe('a trial of the above by someone who did not write it', () => {
  const appid = () => world.sandbox.info.merchants[0]!.appid

  it("an intent edited to the number gw derives for another occurrence of the same refund: looked up under the row's own, never sent twice", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TRIAL-OCC')
    const {dir, env} = machine()
    const csv = join(dir, 'one.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${order},3.00\n`)
    expect((await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})).code).toBe(0)
    const journal = `${csv}.journal.jsonl`
    const records = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((r) => JSON.parse(r) as Record<string, unknown>)
    const intent = records.find((r) => r.type === 'intent')!
    const second = deriveRefundNumber({
      appid: appid(),
      gwOrderNo: intent.gw_order_no as string,
      refundFee: 300,
      occurrence: 2,
    })
    const edited = records
      .filter((r) => r.type !== 'outcome')
      .map((r) => (r === intent ? {...r, mch_refund_no: second} : r))
    writeFileSync(journal, `${edited.map((r) => JSON.stringify(r)).join('\n')}\n`)
    const rerun = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(world.reportOf(csv)[0]!.status).toBe('already_refunded')
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('a history.db linked to an empty file, or to nothing, is damage: refused, never a new history', async () => {
    const {dir, env} = machine()
    const empty = join(dir, 'elsewhere.db')
    writeFileSync(empty, '')
    symlinkSync(empty, join(dir, 'history.db'))
    const linked = await world.run(['order', 'list'], {env})
    expect(linked.code).toBe(2)
    expect(linked.stderr).toContain('is not a readable gw database: it is empty (0 bytes)')
    rmSync(empty)
    const dangling = await world.run(['order', 'list'], {env})
    expect(dangling.code).toBe(2)
    expect(dangling.stderr).toContain('is not a readable gw database: it is a link to a file that does not exist')
    expect(existsSync(empty)).toBe(false)
  })

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

  it('a history.jsonl claiming a refund made that the gateway does not know: looked up, never said refunded; made once when confirmed', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TRIAL-CLAIM')
    const {dir, env} = machine()
    expect((await world.run(['order', 'query', order!], {env})).code).toBe(0)
    const claim = {
      type: 'refund',
      appid: appid(),
      mch_order_no: order,
      channel: 'wechat',
      mch_refund_no: 'CLAIMED-1',
      refund_fee: 500,
      fee_type: 'THB',
      status: 'refunded',
      gw_refund_no: '91000000000000000000001',
      at: new Date().toISOString(),
    }
    writeFileSync(join(dir, 'history.jsonl'), `${JSON.stringify(claim)}\n`)
    const refund = [
      'refund',
      'create',
      order!,
      '--amount',
      '5.00',
      '--mch-refund-no',
      'CLAIMED-1',
      '--channel',
      'wechat',
    ]
    // Never "already refunded" on the history's word: the gateway is asked, and the claim is only worth a question.
    const asked = await world.run(refund, {env})
    expect(asked.code, asked.stderr).toBe(2)
    expect(asked.stderr + asked.stdout).not.toContain('already refunded')
    expect(asked.stderr).toContain('--again')
    expect(await world.refundsOf(order!)).toEqual([])
    const made = await world.run([...refund, '--again'], {env})
    expect(made.code, made.stderr).toBe(0)
    expect(await world.refundsOf(order!)).toEqual([
      expect.objectContaining({mch_refund_no: 'CLAIMED-1', refund_fee: 500}),
    ])
  })

  it('an earlier refund left unknown is looked up, never sent by a refund of another amount, which is then made or refused on its own', async () => {
    const [order] = await world.paidOrders(1, 1000, 'TRIAL-RESENT')
    const {dir, env} = machine()
    expect((await world.run(['order', 'query', order!], {env})).code).toBe(0)
    // An earlier run recorded its intent and died before sending (the gateway does not know it).
    const intent = {
      type: 'refund',
      appid: appid(),
      mch_order_no: order,
      channel: 'wechat',
      mch_refund_no: 'R-EARLIER',
      refund_fee: 300,
      fee_type: 'THB',
      status: 'intent',
      source: 'refund create',
      at: new Date().toISOString(),
    }
    writeFileSync(join(dir, 'history.jsonl'), `${JSON.stringify(intent)}\n`)
    // The earlier refund is looked up (never sent: this command asked for 9.00), said absent: the 9.00 fits the balance.
    const made = await world.run(['refund', 'create', order!, '--amount', '9.00'], {env})
    expect(made.code, made.stderr).toBe(0)
    expect(made.stderr).toContain(
      'Refund R-EARLIER of 3.00 THB, sent earlier without a known outcome, never reached the gateway: nothing was refunded under it.',
    )
    expect(await world.refundsOf(order!)).toEqual([expect.objectContaining({refund_fee: 900})])
    // A refund beyond what is left now is refused before sending: nothing was sent.
    const refused = await world.run(['refund', 'create', order!, '--amount', '3.00'], {env})
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.stderr).toContain('Nothing was sent.')
    expect(await world.refundsOf(order!)).toEqual([expect.objectContaining({refund_fee: 900})])
  })

  it("a database that refuses gw's writes in a way gw does not know (a trigger): after a send, exit 5 and where the outcome went, no stack trace", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TRIAL-TRIGGER')
    const {dir, env} = machine()
    expect((await world.run(['order', 'query', order!], {env})).code).toBe(0)
    execFileSync('sqlite3', [
      join(dir, 'history.db'),
      "CREATE TRIGGER no_outcome BEFORE UPDATE ON refunds BEGIN SELECT RAISE(ABORT, 'no'); END;",
    ])
    const made = await world.run(['refund', 'create', order!, '--amount', '1.00'], {env})
    expect(made.code, made.stderr).toBe(5)
    expect(made.stderr).not.toContain('unexpected failure')
    expect(made.stderr).toMatch(/its outcome went to .*history\.jsonl/)
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('odd files where the history keeps its own: a history.jsonl linked to /dev/zero is not read, a folder named like a merge is passed by, a database of other tables is damage', async () => {
    const {dir, env} = machine()
    expect((await world.run(['history'], {env})).code).toBe(0)
    symlinkSync('/dev/zero', join(dir, 'history.jsonl'))
    mkdirSync(join(dir, 'history.jsonl.1-2.merging'))
    const listed = await world.run(['order', 'list'], {env, timeoutMs: 20_000})
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stderr).toContain(
      'history.jsonl is not merged into the history: it is not a file gw wrote (a link, a pipe or a folder)',
    )
    const other = machine()
    execFileSync('sqlite3', [join(other.dir, 'history.db'), 'CREATE TABLE x (y); PRAGMA user_version = 2;'])
    const swapped = await world.run(['order', 'list'], {env: other.env})
    expect(swapped.code).toBe(2)
    expect(swapped.stderr).toContain("is not a readable gw database: its tables are not gw's")
  })

  it("journal lines that are JSON but not gw's records (null, an intent with an object for its currency): no crash; the row is edited, nothing sent", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TRIAL-JSON')
    const {dir, env} = machine()
    const csv = join(dir, 'odd.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${order},1.00\n`)
    expect((await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'], {env})).code).toBe(0)
    const {createHash} = await import('node:crypto')
    const header = {
      type: 'header',
      version: 1,
      csv_file: 'odd.csv',
      csv_sha256: createHash('sha256').update(readFileSync(csv)).digest('hex'),
      appid: appid(),
      created_at: new Date().toISOString(),
    }
    const odd = {
      type: 'intent',
      line: 2,
      mch_refund_no: 'X',
      mch_order_no: order,
      refund_fee: 100,
      fee_type: {a: 1},
      at: 'now',
    }
    writeFileSync(`${csv}.journal.jsonl`, `${JSON.stringify(header)}\nnull\n${JSON.stringify(odd)}\n`)
    const before = await seen('order_refund')
    const run = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).not.toContain('unexpected failure')
    expect(run.stderr).toContain("the journal's line 3 records refund")
    expect(await seen('order_refund')).toBe(before)
  })
})
