/**
 * gw refund create against what this machine's records say: the history held, full or damaged, journals
 * edited, earlier refunds left unknown, a test and a live gateway of one appid. Each asserts the ledger.
 */
import {execFileSync} from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {deriveRefundNumber} from '../../../src/lib/refunds/bulk/refund-number.js'
import type {CliOptions, CliResult} from '../../helpers/cli.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {waitFor} from '../../helpers/receiver.js'
import {startTestSandbox, type TestSandbox} from '../../helpers/sandbox.js'
import {tempDir} from '../../helpers/shared.js'
import {holdDatabase} from '../../helpers/sqlite-holder.js'

let world: GwWorld

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
  return world.underFaults(`latency=${at.latencyMs ?? 1500}ms@${at.operation}`, async () => {
    const before = await seen(at.operation)
    const running = world.spawn(args, options)
    try {
      await waitFor(async () => {
        if (running.child.exitCode !== null) throw new Error(`gw ended before it sent ${at.operation}`)
        return (await seen(at.operation)) - before >= (at.count ?? 1)
      })
    } catch (error) {
      // A run left going would send into the next case's counts.
      running.child.kill('SIGKILL')
      await running.result
      throw error
    }
    await act()
    return await running.result
  })
}

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

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
      const run = await world.bulk(csv, [], {env})
      expect(run.code, run.stderr).toBe(5)
      expect(run.stderr).toContain(`history.db is held by process ${holder.pid} (sqlite3 ${database})`)
      expect(world.reportOf(csv).map((row) => row.status)).toEqual(['refunded', 'refunded'])
    } finally {
      await holder.release()
    }
    expect((await Promise.all(orders.map(world.refundsOf))).flat().map((r) => r.refund_fee)).toEqual([100, 100])
  })
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
  })

  it('a bulk run past the history grouping: every row refunded, none failed, the run not slowed; exit 5 naming the holder; a rerun settles to exit 0, each refund once', async () => {
    const orders = await world.paidOrders(600, 10_000, 'HELD-BULK')
    const {dir, env} = machine()
    const csv = join(dir, 'held.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    const database = join(dir, 'history.db')
    expect((await world.run(['history'], {env})).code).toBe(0)
    let holder: Awaited<ReturnType<typeof holdDatabase>> | undefined
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
      // minutes, past this case's own bound (how fast it runs is bench/'s to measure, not a test's).
    } finally {
      await holder?.release()
    }
    const rerun = await world.bulk(csv, [], {env})
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(new Set(world.reportOf(csv).map((row) => row.status))).toEqual(new Set(['refunded_earlier']))
    const made = (await Promise.all(orders.map(world.refundsOf))).flat()
    expect(made).toHaveLength(600)
    const listed = await world.run(['refund', 'list', '--json'], {env})
    const refunds = listed.json<{refunds: {status: string; source: string}[]}>().refunds
    expect(refunds).toHaveLength(600)
    expect(new Set(refunds.map((r) => `${r.status} ${r.source}`))).toEqual(new Set(['refunded held.csv']))
  })
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
  })
})

describe('a journal edited between runs', () => {
  /** A bulk run of one 1.00 row per order, then the journal's lines for `edit` changed as `change` says. */
  async function runThenEdit(prefix: string, channel: string) {
    const orders = await world.paidOrders(3, 10_000, prefix, channel)
    const {dir, env} = machine()
    const csv = join(dir, 'refunds.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    const first = await world.bulk(csv, [], {env})
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
    const rerun = await world.bulk(csv, [], {env})
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
    const rerun = await world.bulk(csv, [], {env})
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
    const rerun = await world.bulk(csv, [], {env})
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
    const rerun = await world.bulk(csv, [], {env})
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
    const first = await world.bulk(csv, ['--skip-invalid'], {env})
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
    const rerun = await world.bulk(csv, [], {env})
    expect(rerun.code, rerun.stderr).toBe(2)
    expect(rerun.stderr).toMatch(/the journal's lines \d+ and \d+ give gateway refund "\d+" to lines 2 and 3: edited/)
    expect(rerun.stderr).toContain('nothing is sent for this row')
    expect(world.reportOf(csv).map((row) => row.status)).not.toContain('refunded_earlier')
    expect(await world.refundsOf(unpaid)).toEqual([])
    // A journal of its own, as the advice says: the row is refunded once, the other found made.
    const fresh = await world.bulk(csv, ['--journal', join(dir, 'new.jsonl')], {
      env,
    })
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
    const {gw_order_no, channel} = planned
    const intent = world.refundIntent(order!, planned.mch_refund_no, 1000, {gw_order_no, channel})
    writeFileSync(join(dir, 'history.jsonl'), `${intent}\n`)
    const again = await world.run(['refund', 'create', order!, '--amount', '10.00'], {env})
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(`Refund ${planned.mch_refund_no} was sent by an earlier run`)
    expect(again.stderr).toContain('Nothing new was sent.')
    expect(await world.refundsOf(order!)).toHaveLength(1)
    expect(readdirSync(dir)).toContain('history.jsonl.imported')
  })
})

describe('a trial of the above by someone who did not write it', () => {
  const appid = () => world.sandbox.info.merchants[0]!.appid

  /** A paid order of 100.00 THB, a machine of its own, and in its folder a file `name` refunding `amount` of it. */
  async function refundFileOf(prefix: string, name: string, amount: string) {
    const [order] = await world.paidOrders(1, 10_000, prefix)
    const {dir, env} = machine()
    const csv = join(dir, name)
    writeFileSync(csv, `mch_order_no,refund_amount\n${order},${amount}\n`)
    return {order, env, csv}
  }

  it("an intent edited to the number gw derives for another occurrence of the same refund: looked up under the row's own, never sent twice", async () => {
    const {order, env, csv} = await refundFileOf('TRIAL-OCC', 'one.csv', '3.00')
    expect((await world.bulk(csv, [], {env})).code).toBe(0)
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
    const rerun = await world.bulk(csv, [], {env})
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(world.reportOf(csv)[0]!.status).toBe('already_refunded')
    expect(await world.refundsOf(order!)).toHaveLength(1)
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
    writeFileSync(join(dir, 'history.jsonl'), `${world.refundIntent(order!, 'R-EARLIER', 300)}\n`)
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

  it("journal lines that are JSON but not gw's records (null, an intent with an object for its currency): no crash; the row is edited, nothing sent", async () => {
    const {order, env, csv} = await refundFileOf('TRIAL-JSON', 'odd.csv', '1.00')
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
    const run = await world.bulk(csv, [], {env})
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).not.toContain('unexpected failure')
    expect(run.stderr).toContain("the journal's line 3 records refund")
    expect(await seen('order_refund')).toBe(before)
  })
})

describe('the database', () => {
  it('held by another program: a refund waits a bounded time, then names the program that holds it; nothing is sent', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HELD')
    const {dir, env} = world.machine([])
    expect((await world.run(['history'], {env})).code).toBe(0)
    const database = join(dir, 'history.db')
    // A gw that wrote last and has ended since: never the one named.
    writeFileSync(
      `${database}.writer`,
      JSON.stringify({pid: 999_999, host: hostname(), since: 'then', command: 'refund create'}),
    )
    const holder = await holdDatabase(database)
    try {
      const before = (await world.requests()).order_refund ?? 0
      const refused = await world.run(['refund', 'create', order!, '--amount', '1.00', '--channel', 'wechat'], {env})
      expect(refused.code, refused.stderr).toBe(2)
      expect(refused.stderr).toContain(
        `history.db is held by process ${holder.pid} (sqlite3 ${database}); gw waited 5 s`,
      )
      expect(refused.stderr).not.toContain('999999')
      expect(refused.stderr).toContain('Nothing was sent.')
      expect((await world.requests()).order_refund ?? 0).toBe(before)
      expect((await world.ledger(order!))!.refunds).toEqual([])
    } finally {
      await holder.release()
    }
  })
})

describe('beside a live gateway of the same appid', () => {
  const APPID = 'mch77001'

  let world: GwWorld

  /** The live gateway of the same appid; the world's own sandbox is the test one (profile "sandbox"). */
  let live: TestSandbox

  /** A paid order of 100.00 THB made straight through a sandbox (not gw). */
  async function paidOn(sandbox: TestSandbox, mch: string, channel = 'wechat'): Promise<void> {
    const created = await sandbox
      .wire()
      .call('native_pay', {channel, mch_order_no: mch, total_fee: 10_000, fee_type: 'THB'})
    expect(created.data.result).toBe('SUCCESS')
    expect((await sandbox.controls.pay(mch)).status).toBe(200)
  }

  const refundsOn = async (sandbox: TestSandbox, mch: string) =>
    ((await sandbox.controls.orders(mch))[0]?.refunds ?? []).map((r) => ({no: r.mch_refund_no, fee: r.refund_fee}))

  /** gw as the live profile: asked to confirm what moves money, it is confirmed (--yes). */
  const shop = (args: string[]) => world.run([...args, '--profile', 'shop', ...(args[1] === 'create' ? ['--yes'] : [])])

  type Refunded = {status: string; mch_refund_no: string; refund_fee: number; settled_earlier?: unknown[]}

  /** A refund file of `rows` (order, amount) in the config folder. */
  const fileOf = (name: string, rows: string[]) => {
    const csv = join(world.configDir, name)
    writeFileSync(csv, `mch_order_no,refund_amount\n${rows.join('\n')}\n`)
    return csv
  }

  beforeAll(async () => {
    world = await startWorld({spawned: false, merchants: [{appid: APPID}]})
    live = await startTestSandbox({merchants: [{appid: APPID}]})
    const shop = live.info.merchants[0]!
    const added = await world.run([
      'profile',
      'add',
      'shop',
      '--appid',
      APPID,
      '--base-url',
      live.info.base_url,
      '--private-key',
      shop.private_key_file!,
      '--gateway-public-key',
      live.info.gateway_public_key_file,
      '--gateway-zone',
      live.info.gateway_zone,
      '--live',
    ])
    expect(added.code, added.stderr).toBe(0)
  })

  afterAll(async () => {
    await live.close()
    await world.close()
  })

  describe('a test and a live gateway of one appid', () => {
    it('a refund left unknown on the test gateway is never sent, listed, counted or guarded on the live one', async () => {
      const order = 'INV-TL-1'
      await paidOn(world.sandbox, order)
      await paidOn(live, order)
      // On the test gateway, 60.00 is made but its answer and every lookup are lost: outcome unknown.
      const unknown = await world.underFaults('drop-after-commit=1@order_refund,http-500=1@refund_query', () =>
        world.run(['refund', 'create', order, '--amount', '60.00', '--json', '--timeout', '2']),
      )
      expect(unknown.code, unknown.stderr).toBe(5)
      const testNumber = unknown.json<{mch_refund_no: string}>().mch_refund_no

      // The live customer is refunded 10.00: that and nothing else reaches the live gateway.
      const refunded = await shop(['refund', 'create', order, '--amount', '10.00', '--json'])
      expect(refunded.code, refunded.stderr).toBe(0)
      expect(refunded.json<Refunded>()).toMatchObject({status: 'refunded', refund_fee: 1000})
      expect(refunded.json<Refunded>().settled_earlier).toBeUndefined()
      expect(refunded.stderr).not.toContain(testNumber)
      expect(await refundsOn(live, order)).toEqual([{no: refunded.json<Refunded>().mch_refund_no, fee: 1000}])

      // The live lists and story know nothing of the test refund; a live 60.00 is no "identical refund".
      const list = await shop(['refund', 'list', '--json'])
      expect(list.json<{refunds: {mch_refund_no: string}[]}>().refunds.map((r) => r.mch_refund_no)).not.toContain(
        testNumber,
      )
      expect((await shop(['order', 'timeline', order])).stdout).not.toContain(testNumber)
      const sixty = await shop(['refund', 'create', order, '--amount', '60.00', '--json'])
      expect(sixty.code, sixty.stderr).toBe(0)
      // Under the test refund's number the live gateway is asked, never answered from the test's record.
      await paidOn(live, 'INV-TL-2')
      const sameNumber = await shop([
        'refund',
        'create',
        'INV-TL-2',
        '--amount',
        '60.00',
        '--mch-refund-no',
        testNumber,
      ])
      expect(sameNumber.code, sameNumber.stderr).toBe(0)
      expect(await refundsOn(live, 'INV-TL-2')).toEqual([{no: testNumber, fee: 6000}])

      // The test gateway's own refund is settled on the test gateway, by a lookup: made, once.
      const settled = await world.run(['refund', 'create', order, '--amount', '60.00'])
      expect(settled.code, settled.stderr).toBe(0)
      expect(settled.stderr).toContain('it is settled now (refunded). Nothing new was sent.')
      expect(await refundsOn(world.sandbox, order)).toEqual([{no: testNumber, fee: 6000}])
    })

    it("a file run on the test gateway, then on the live one: the test run's journal is refused, naming both, and nothing is sent", async () => {
      for (const order of ['INV-TLB-1', 'INV-TLB-2']) {
        await paidOn(world.sandbox, order)
        await paidOn(live, order)
      }
      const csv = world.file('tl-batch.csv', 'mch_order_no,refund_amount\nINV-TLB-1,5.00\nINV-TLB-2,7.00\n')
      const tried = await world.bulk(csv)
      expect(tried.code, tried.stderr).toBe(0)
      const onLive = await shop(['refund', 'create', '--from-csv', csv])
      expect(onLive.code).toBe(2)
      expect(onLive.stderr).toContain(`was written against appid ${APPID} at ${world.sandbox.info.base_url}`)
      expect(onLive.stderr).toContain(`this run sends to appid ${APPID} at ${live.info.base_url}`)
      expect(await refundsOn(live, 'INV-TLB-1')).toEqual([])
      // The way out it names: a journal of the live run's own; every row is then refunded on live, once.
      const journal = /add --journal (\S+)/.exec(onLive.stderr)![1]!
      const again = await shop(['refund', 'create', '--from-csv', csv, '--journal', journal])
      expect(again.code, again.stderr).toBe(0)
      expect(world.reportOf(csv).map((r) => r.status)).toEqual(['refunded', 'refunded'])
      expect((await refundsOn(live, 'INV-TLB-1')).map((r) => r.fee)).toEqual([500])
      expect((await refundsOn(live, 'INV-TLB-2')).map((r) => r.fee)).toEqual([700])
    })
  })

  describe('one gateway under another name: its key rotated, its address respelled', () => {
    /** A gateway of its own for these cases, on a port that stays when it restarts; "rotating" its profile. */
    let gateway: TestSandbox

    const rotating = (args: string[]) => world.run([...args, '--profile', 'rotating', '--yes'])

    async function restart(newKey: boolean): Promise<void> {
      const {dataDir, info} = gateway
      await gateway.close()
      if (newKey)
        for (const file of ['gateway.private.pem', 'gateway.public.pem', 'gateway.public.pkcs1.pem'])
          rmSync(join(dataDir, 'keys', file))
      gateway = await startTestSandbox({dataDir, port: Number(new URL(info.base_url).port)})
    }

    const profile = (baseUrl: string) => [
      '--appid',
      APPID,
      '--base-url',
      baseUrl,
      '--private-key',
      gateway.info.merchants[0]!.private_key_file!,
      '--gateway-public-key',
      gateway.info.gateway_public_key_file,
      '--gateway-zone',
      gateway.info.gateway_zone,
    ]

    beforeAll(async () => {
      gateway = await startTestSandbox({merchants: [{appid: APPID}]})
      const added = await world.run(['profile', 'add', 'rotating', ...profile(gateway.info.base_url)])
      expect(added.code, added.stderr).toBe(0)
    })

    afterAll(() => gateway.close())

    /** A refund of 30.00 made on the gateway whose answer and lookups were lost: its number. */
    async function leftUnknown(order: string): Promise<string> {
      await paidOn(gateway, order)
      await gateway.controls.faults('drop-after-commit=1@order_refund,http-500=1@refund_query')
      const unknown = await rotating(['refund', 'create', order, '--amount', '30.00', '--json', '--timeout', '2'])
      await gateway.controls.faults('')
      expect(unknown.code, unknown.stderr).toBe(5)
      return unknown.json<{mch_refund_no: string}>().mch_refund_no
    }

    it('a key rotated at the same address (typed another way): the refund left unknown is looked up there, never lost', async () => {
      const order = 'INV-ROT-1'
      const number = await leftUnknown(order)
      await restart(true)
      const respelled = gateway.info.base_url.replace('http://', 'HTTP://').replace(/\/?$/, '/')
      const set = await world.run(['profile', 'add', 'rotating', ...profile(respelled)])
      expect(set.code, set.stderr).toBe(0)
      const refunded = await rotating(['refund', 'create', order, '--amount', '10.00', '--json'])
      expect(refunded.code, refunded.stderr).toBe(0)
      expect(refunded.json<Refunded>().settled_earlier).toEqual([
        expect.objectContaining({mch_refund_no: number, status: 'refunded'}),
      ])
      expect(await refundsOn(gateway, order)).toEqual([
        {no: number, fee: 3000},
        {no: refunded.json<Refunded>().mch_refund_no, fee: 1000},
      ])
    })

    it('its key at another address (localhost for 127.0.0.1): the same gateway, said once; the refund left unknown is settled there, never sent again', async () => {
      const order = 'INV-ROT-2'
      const number = await leftUnknown(order)
      const elsewhere = gateway.info.base_url.replace('127.0.0.1', 'localhost')
      const set = await world.run(['profile', 'add', 'rotating', ...profile(elsewhere)])
      expect(set.code, set.stderr).toBe(0)
      const refunded = await rotating(['refund', 'create', order, '--amount', '10.00', '--json'])
      expect(refunded.code, refunded.stderr).toBe(0)
      expect(refunded.stderr).toContain(
        `appid ${APPID} at ${elsewhere} (gateway key ${refunded.stderr.match(/gateway key (\S+)…/)?.[1]}…) is the gateway this machine knew as appid ${APPID} at ${gateway.info.base_url}`,
      )
      expect(refunded.json<Refunded>().settled_earlier).toEqual([
        expect.objectContaining({mch_refund_no: number, status: 'refunded'}),
      ])
      expect(await refundsOn(gateway, order)).toEqual([
        {no: number, fee: 3000},
        {no: refunded.json<Refunded>().mch_refund_no, fee: 1000},
      ])
      // Said once: the next command under that spelling says nothing of it.
      const listed = await rotating(['refund', 'list'])
      expect(listed.stderr).not.toContain('is the gateway this machine knew as')
    })
  })

  describe("one gateway, however its address is spelled (127.0.0.1 and localhost: two colleagues' profiles)", () => {
    /** The world's sandbox under its other name, as profile "local" (same appid, same keys). */
    const local = (args: string[]) => world.run([...args, '--profile', 'local'])

    beforeAll(async () => {
      const merchant = world.sandbox.info.merchants[0]!
      const added = await world.run([
        'profile',
        'add',
        'local',
        '--appid',
        APPID,
        '--base-url',
        world.sandbox.info.base_url.replace('127.0.0.1', 'localhost'),
        '--private-key',
        merchant.private_key_file!,
        '--gateway-public-key',
        world.sandbox.info.gateway_public_key_file,
        '--gateway-zone',
        world.sandbox.info.gateway_zone,
      ])
      expect(added.code, added.stderr).toBe(0)
    })

    it('holds one claim of an order across spellings: a refund under way under one refuses the other; one refund', async () => {
      const order = 'INV-SPELL-1'
      await paidOn(world.sandbox, order)
      await world.underFaults('latency=2000-2000ms@order_refund', async () => {
        const before = (await world.requests()).order_refund ?? 0
        const first = world.spawn(['refund', 'create', order, '--amount', '10.00'])
        while (((await world.requests()).order_refund ?? 0) === before)
          await new Promise((resolve) => setTimeout(resolve, 50))
        const second = await local(['refund', 'create', order, '--amount', '12.00'])
        expect(second.code, second.stderr).toBe(2)
        expect(second.stderr).toContain(`Order ${order} is being refunded by process ${first.child.pid} on `)
        expect((await first.result).code).toBe(0)
      })
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
    })

    it('asks "again?" across spellings: an alipay repeat of the same amount is refused unless --again', async () => {
      const order = 'INV-SPELL-2'
      await paidOn(world.sandbox, order, 'alipay')
      expect((await world.run(['refund', 'create', order, '--amount', '10.00'])).code).toBe(0)
      const repeat = await local(['refund', 'create', order, '--amount', '10.00'])
      expect(repeat.code, repeat.stderr).toBe(2)
      expect(repeat.stderr).toContain('Add --again to confirm')
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
      const meant = await local(['refund', 'create', order, '--amount', '10.00', '--again'])
      expect(meant.code, meant.stderr).toBe(0)
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000, 1000])
    })

    it("resumes a file's journal under the other spelling: nothing refused as another gateway's, nothing sent twice", async () => {
      const order = 'INV-SPELL-4'
      await paidOn(world.sandbox, order)
      const csv = fileOf('spelled.csv', [`${order},10.00`])
      expect((await world.bulk(csv)).code).toBe(0)
      const again = await local(['refund', 'create', '--from-csv', csv, '--yes'])
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toContain('resuming: 1 done')
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
    })

    it('lists and tells one history: what was refunded under one spelling is listed and in the timeline under the other', async () => {
      const order = 'INV-SPELL-3'
      await paidOn(world.sandbox, order)
      const made = await world.run(['refund', 'create', order, '--amount', '10.00', '--json'])
      expect(made.code, made.stderr).toBe(0)
      const number = made.json<Refunded>().mch_refund_no
      const listed = await local(['refund', 'list', '--json'])
      expect(listed.json<{refunds: {mch_refund_no: string}[]}>().refunds.map((r) => r.mch_refund_no)).toContain(number)
      expect((await local(['order', 'timeline', order])).stdout).toContain(number)
    })
  })

  describe('a refund an earlier run left unknown', () => {
    /** A refund of `amount` that never reached the gateway (every attempt answered HTTP 500): exit 5, its number. */
    async function neverMade(order: string, amount: string): Promise<string> {
      const sent = await world.underFaults('http-500=1@order_refund', () =>
        world.run(['refund', 'create', order, '--amount', amount, '--json', '--timeout', '2']),
      )
      expect(sent.code, sent.stderr).toBe(5)
      expect(await refundsOn(world.sandbox, order)).toEqual([])
      return sent.json<{mch_refund_no: string}>().mch_refund_no
    }

    it('is looked up, never sent, by a refund of another amount: said absent, in the text and --json', async () => {
      const order = 'INV-ASK-1'
      await paidOn(world.sandbox, order)
      const earlier = await neverMade(order, '90.00')
      const refunded = await world.run(['refund', 'create', order, '--amount', '10.00', '--json'])
      expect(refunded.code, refunded.stderr).toBe(0)
      expect(refunded.json<Refunded>().settled_earlier).toEqual([
        expect.objectContaining({mch_refund_no: earlier, refund_fee: 9000, status: 'absent'}),
      ])
      expect(refunded.stderr).toContain(
        `Refund ${earlier} of 90.00 THB, sent earlier without a known outcome, never reached the gateway: nothing was refunded under it.`,
      )
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
      const list = await world.run(['refund', 'list', '--json'])
      const listed = list.json<{refunds: {mch_refund_no: string; status: string}[]}>().refunds
      expect(listed.find((r) => r.mch_refund_no === earlier)?.status).toBe('absent')
    })

    it('is sent again under its number when the same refund is asked for, and said so', async () => {
      const order = 'INV-ASK-2'
      await paidOn(world.sandbox, order)
      const earlier = await neverMade(order, '90.00')
      const again = await world.run(['refund', 'create', order, '--amount', '90.00', '--json'])
      expect(again.code, again.stderr).toBe(0)
      expect(again.json()).toMatchObject({status: 'refunded', mch_refund_no: earlier, sent_again: true})
      expect(again.stderr).toContain('as the same refund was asked for, it was sent again under its number')
      expect(await refundsOn(world.sandbox, order)).toEqual([{no: earlier, fee: 9000}])
    })

    it('settled, then the command stops at a question: the earlier refund is said with the error, in the text and --json', async () => {
      const order = 'INV-ASK-4'
      await paidOn(world.sandbox, order)
      const first = await world.run(['refund', 'create', order, '--amount', '30.00', '--json'])
      expect(first.code, first.stderr).toBe(0)
      for (const json of [[], ['--json']]) {
        const lost = await world.underFaults('http-500=1@order_refund', () =>
          world.run(['refund', 'create', order, '--amount', '20.00', '--json', '--timeout', '2']),
        )
        expect(lost.code, lost.stderr).toBe(5)
        const earlier = lost.json<Refunded>().mch_refund_no
        // The same 30.00 again: the lost 20.00 is looked up (absent), then "again?" has no terminal to ask on.
        const asked = await world.run(['refund', 'create', order, '--amount', '30.00', ...json])
        expect(asked.code, asked.stderr).toBe(2)
        expect(asked.stderr).toContain('Add --again to confirm')
        const said = `Refund ${earlier} of 20.00 THB, sent earlier without a known outcome, never reached the gateway: nothing was refunded under it.`
        if (!json.length) expect(asked.stderr).toContain(said)
        else
          expect(asked.json<{error: Refunded & {message: string}}>().error).toMatchObject({
            message: expect.stringContaining(said) as string,
            settled_earlier: [expect.objectContaining({mch_refund_no: earlier, refund_fee: 2000, status: 'absent'})],
          })
      }
      expect(await refundsOn(world.sandbox, order)).toEqual([{no: first.json<Refunded>().mch_refund_no, fee: 3000}])
    })

    it('on a channel with no refund query stops another refund (exit 5), and the command it gives sends it on purpose', async () => {
      const order = 'INV-ASK-3'
      await paidOn(world.sandbox, order, 'alipay')
      const earlier = await neverMade(order, '90.00')
      const other = await world.run(['refund', 'create', order, '--amount', '10.00'])
      expect(other.code).toBe(5)
      expect(other.stderr).toContain('Nothing was sent: gw does not send a refund this command did not ask for.')
      expect(await refundsOn(world.sandbox, order)).toEqual([])
      const command = /To send it after all \(.*\): (gw refund create .+)$/m.exec(other.stderr)![1]!
      expect(command).toBe(`gw refund create ${order} --amount 90.00 --mch-refund-no ${earlier}`)
      const sent = await world.run(command.split(' ').slice(1))
      expect(sent.code, sent.stderr).toBe(0)
      expect(await refundsOn(world.sandbox, order)).toEqual([{no: earlier, fee: 9000}])
    })
  })

  describe('a bulk run on an order with a single refund left unknown', () => {
    it('settles it first and says so; a row of the same amount is refused as a repeat of it unless --again', async () => {
      const order = 'INV-BULK-AFTER-1'
      await paidOn(world.sandbox, order)
      // Made on the gateway, its answer lost, and the lookups too: unknown (exit 5).
      const single = await world.underFaults('drop-after-commit=1@order_refund,http-500=1@refund_query', () =>
        world.run(['refund', 'create', order, '--amount', '5.00', '--json', '--timeout', '2']),
      )
      expect(single.code, single.stderr).toBe(5)
      const earlier = single.json<Refunded>().mch_refund_no
      const csv = fileOf('after-single.csv', [`${order},5.00`])
      const run = await world.bulk(csv, ['--json'])
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toContain(
        `order ${order}: Refund ${earlier} of 5.00 THB, sent earlier without a known outcome, was made: the gateway shows it refunded`,
      )
      expect(run.stderr).toMatch(
        new RegExp(
          `line 2: order ${order}: refund ${earlier} of 5\\.00 THB was made at \\S+, the same amount as this row; add --again`,
        ),
      )
      // Recorded now, and said in the error's document too: never said again by a later run.
      expect(run.json<{error: {settled_earlier: Refunded[]}}>().error.settled_earlier).toEqual([
        expect.objectContaining({mch_refund_no: earlier, status: 'refunded', mch_order_no: order}),
      ])
      expect(await refundsOn(world.sandbox, order)).toEqual([{no: earlier, fee: 500}])
      const listed = (await world.run(['refund', 'list', '--json'])).json<{
        refunds: {mch_refund_no: string; status: string}[]
      }>()
      expect(listed.refunds.find((r) => r.mch_refund_no === earlier)?.status).toBe('refunded')
      // Meant: a second refund of the same amount, on purpose.
      const again = await world.bulk(csv, ['--again', '--json'])
      expect(again.code, again.stderr).toBe(0)
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([500, 500])
    })

    it('on a channel with no refund query, holds the rows of its order (exit 5, even beside a skipped row), sends the others, and a rerun sends them once it is settled', async () => {
      const [held, other] = ['INV-BULK-AFTER-2', 'INV-BULK-AFTER-3']
      await paidOn(world.sandbox, held, 'alipay')
      await paidOn(world.sandbox, other, 'alipay')
      const single = await world.underFaults('http-500=1@order_refund', () =>
        world.run(['refund', 'create', held, '--amount', '5.00', '--json', '--timeout', '2']),
      )
      expect(single.code, single.stderr).toBe(5)
      const earlier = single.json<Refunded>().mch_refund_no
      const csv = fileOf('held.csv', [`${held},3.00`, `${other},3.00`, `NO-SUCH-ORDER-${process.pid},1.00`])
      const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])
      const planned = dry.json<{rows: {status: string}[]}>().rows.map((r) => r.status)
      expect(planned).toEqual(['held', 'would_refund', 'skipped_invalid'])
      const said = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--skip-invalid'])
      expect(said.stdout).toContain('held rows (1, above) are not sent until what holds them is settled')
      // Held (money unproven elsewhere) outranks the skipped row: 5, run it again, not 1.
      const run = await world.bulk(csv, ['--skip-invalid', '--json'])
      expect(run.code, run.stderr).toBe(5)
      const rows = run.json<{rows: {status: string; err_msg?: string}[]; outcome: string}>().rows
      expect(rows.map((r) => r.status)).toEqual(['held', 'refunded', 'skipped_invalid'])
      expect(rows[0]!.err_msg).toContain(`Refund ${earlier} of 5.00 THB on order ${held}`)
      expect(run.stderr).toContain(
        '1 row held, not sent: a refund of their order is under way or unknown outside this file',
      )
      expect(await refundsOn(world.sandbox, held)).toEqual([])
      // Settled as the advice says (sent on purpose under its number, the gateway takes it once), the rerun sends the row.
      const settled = await world.run(['refund', 'create', held, '--amount', '5.00', '--mch-refund-no', earlier])
      expect(settled.code, settled.stderr).toBe(0)
      const rerun = await world.bulk(csv, ['--skip-invalid', '--json'])
      expect(rerun.code, rerun.stderr).toBe(1)
      const statuses = rerun.json<{rows: {status: string}[]}>().rows.map((r) => r.status)
      expect(statuses).toEqual(['refunded', 'refunded_earlier', 'skipped_invalid'])
      expect((await refundsOn(world.sandbox, held)).map((r) => r.fee)).toEqual([500, 300])
      expect((await refundsOn(world.sandbox, other)).map((r) => r.fee)).toEqual([300])
    })
  })

  describe('a bulk run beside other refunds of its orders', () => {
    /** `args` in a process of its own, its refund held at the gateway (latency) while `meanwhile` runs. */
    async function whileRefunding<T>(args: string[], meanwhile: () => Promise<T>): Promise<[CliResult, T]> {
      return world.underFaults('latency=2500-2500ms@order_refund', async (): Promise<[CliResult, T]> => {
        const before = (await world.requests()).order_refund ?? 0
        const running = world.spawn(args)
        while (((await world.requests()).order_refund ?? 0) === before) await new Promise((r) => setTimeout(r, 50))
        const other = await meanwhile()
        return [await running.result, other]
      })
    }

    it("a single refund in flight holds the run's rows of its order, never settled from outside; one refund in the ledger", async () => {
      const order = 'INV-BESIDE-1'
      await paidOn(world.sandbox, order)
      const csv = fileOf('beside-1.csv', [`${order},10.00`])
      const [single, bulk] = await whileRefunding(['refund', 'create', order, '--amount', '10.00'], () =>
        world.bulk(csv, ['--json']),
      )
      expect(single.code, single.stderr).toBe(0)
      expect(bulk.code, bulk.stderr).toBe(5)
      expect(bulk.json<{rows: {status: string; err_msg: string}[]}>().rows).toEqual([
        expect.objectContaining({
          status: 'held',
          err_msg: expect.stringMatching(/is being refunded by process \d+/) as string,
        }),
      ])
      expect(bulk.stderr).not.toContain('never reached the gateway')
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
    })

    it('a bulk run in flight refuses a single refund of its order (exit 2); one refund in the ledger', async () => {
      const order = 'INV-BESIDE-2'
      await paidOn(world.sandbox, order)
      const csv = fileOf('beside-2.csv', [`${order},10.00`])
      const [bulk, single] = await whileRefunding(['refund', 'create', '--from-csv', csv, '--yes'], () =>
        world.run(['refund', 'create', order, '--amount', '10.00']),
      )
      expect(bulk.code, bulk.stderr).toBe(0)
      expect(single.code, single.stderr).toBe(2)
      expect(single.stderr).toMatch(new RegExp(`Order ${order} is being refunded by process \\d+`))
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
    })

    it('a file of another --batch-id refunded the same: a problem unless --again; a refusal is said refused, never made', async () => {
      const order = 'INV-BESIDE-3'
      await paidOn(world.sandbox, order)
      const first = await world.bulk(fileOf('round2.csv', [`${order},10.00`]), ['--batch-id', 'round2'])
      expect(first.code, first.stderr).toBe(0)
      const plain = await world.bulk(fileOf('plain.csv', [`${order},10.00`]))
      expect(plain.code, plain.stderr).toBe(2)
      expect(plain.stderr).toMatch(
        /refund RF\w+ of 10\.00 THB was made at \S+ \(by round2\.csv\), the same amount as this row/,
      )
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])

      const alipay = 'INV-BESIDE-4'
      await paidOn(world.sandbox, alipay, 'alipay')
      expect((await world.run(['refund', 'create', alipay, '--amount', '60.00'])).code).toBe(0)
      expect((await world.run(['refund', 'create', alipay, '--amount', '50.00'])).code).toBe(1)
      const dry = await world.run([
        'refund',
        'create',
        '--from-csv',
        fileOf('refused.csv', [`${alipay},50.00`]),
        '--dry-run',
      ])
      expect(dry.code, dry.stderr).toBe(2)
      expect(dry.stderr).toMatch(/of 50\.00 THB was refused, which the gateway cannot confirm without a refund query/)
      expect((await refundsOn(world.sandbox, alipay)).map((r) => r.fee)).toEqual([6000])
    })
  })

  describe('files in the config folder that gw did not write', () => {
    /** An order's refund intent, as a history.jsonl line of gw's (of this gateway's appid, no gateway: an earlier version's). */
    const intent = (order: string, number: string, fee: number, channel: string) =>
      `${world.refundIntent(order, number, fee, {channel})}\n`

    /** Runs `script` as the user nobody (another user of this machine), `input` on its standard input. */
    const asNobody = (script: string, input?: string | Buffer) =>
      execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'sh', '-c', script], {input})

    /** The refusal of a folder others can write: exit 2, the folder, its mode and the mode to set, nothing sent. */
    const expectOpenFolder = (result: CliResult, dir: string, mode = '0777') => {
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(`${dir} can be written by other users (mode ${mode})`)
      expect(result.stderr).toContain('Nothing was sent.')
      expect(result.stderr).toContain(`chmod 700 ${dir}`)
    }

    it.skipIf(process.getuid?.() !== 0)(
      "another user's history.jsonl: its folder others can write is refused before anything is read; made yours, the file is named and never merged",
      async () => {
        const order = 'INV-PLANT-1'
        await paidOn(world.sandbox, order, 'alipay')
        const {dir, env} = world.machine()
        chmodSync(dir, 0o777)
        const planted = join(dir, 'history.jsonl')
        // Written by the user nobody: a 90.00 refund nobody here asked for.
        asNobody(`cat > ${planted}`, intent(order, 'RF-PLANTED', 9000, 'alipay'))
        expectOpenFolder(await world.run(['refund', 'create', order, '--amount', '10.00'], {env}), dir)
        // gw changed nothing of the folder: making it private is the user's decision, once they have looked in it.
        expect(execFileSync('stat', ['-c', '%a', dir], {encoding: 'utf8'}).trim()).toBe('777')
        chmodSync(dir, 0o700)
        const refunded = await world.run(['refund', 'create', order, '--amount', '10.00'], {env})
        expect(refunded.code, refunded.stderr).toBe(0)
        expect(refunded.stderr).toMatch(
          new RegExp(
            `${planted} is not merged into the history: it belongs to another user \\(uid \\d+\\), not to you`,
          ),
        )
        expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
        expect(existsSync(planted)).toBe(true)
      },
    )

    it.skipIf(process.getuid?.() !== 0)(
      "another user's history.db-wal is never replayed over the history: the refund left unknown is looked up, never sent again",
      async () => {
        const order = 'INV-PLANT-WAL'
        await paidOn(world.sandbox, order)
        const {dir, env} = world.machine()
        // The history before the refund, as another user could copy it (a colleague's backup).
        expect((await world.run(['refund', 'list'], {env})).code).toBe(0)
        const before = join(tempDir('gw-backup-'), 'before.db')
        copyFileSync(join(dir, 'history.db'), before)
        // 10.00 made, its answer and every lookup lost: unknown, the history holds it.
        const unknown = await world.underFaults('drop-after-commit=1@order_refund,http-500=1@refund_query', () =>
          world.run(['refund', 'create', order, '--amount', '10.00', '--timeout', '2'], {env}),
        )
        expect(unknown.code, unknown.stderr).toBe(5)
        // A write-ahead log of the history without that refund: SQLite would replay it over the file.
        execFileSync('sqlite3', [
          before,
          '.dbconfig no_ckpt_on_close on',
          'PRAGMA journal_mode=WAL',
          'DELETE FROM refunds',
        ])
        chmodSync(dir, 0o1777)
        asNobody(`cat > ${join(dir, 'history.db-wal')}`, readFileSync(`${before}-wal`))
        const again = ['refund', 'create', order, '--amount', '10.00']
        expectOpenFolder(await world.run(again, {env}), dir, '1777')
        chmodSync(dir, 0o700)
        const named = await world.run(again, {env})
        expect(named.code, named.stderr).toBe(2)
        expect(named.stderr).toMatch(
          new RegExp(`${dir}/history\\.db-wal is not used: it belongs to another user \\(uid \\d+\\), not to you`),
        )
        expect(named.stderr).toContain('Nothing was sent.')
        expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
        // Moved aside as the advice says: the refund left unknown is found made, and nothing new goes.
        renameSync(join(dir, 'history.db-wal'), join(dir, 'history.db-wal.not-mine'))
        const settled = await world.run(again, {env})
        expect(settled.code, settled.stderr).toBe(0)
        expect(settled.stderr).toContain('it is settled now (refunded). Nothing new was sent.')
        expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
      },
    )

    it.skipIf(process.getuid?.() !== 0)(
      "a profile's gateway key another user put in place is never read: it decides which answers are trusted",
      async () => {
        const {dir} = world.machine()
        const env = {GW_CONFIG_DIR: dir}
        const merchant = world.sandbox.info.merchants[0]!
        const added = await world.run(
          [
            ...['profile', 'add', 'keyed', '--appid', APPID, '--base-url', world.sandbox.info.base_url],
            ...[
              '--private-key',
              merchant.private_key_file!,
              '--gateway-public-key',
              world.sandbox.info.gateway_public_key_file,
            ],
          ],
          {env},
        )
        expect(added.code, added.stderr).toBe(0)
        const stored = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles.keyed
        execFileSync('chown', ['nobody', stored.gateway_public_key_file])
        const refused = await world.run(['refund', 'list', '--profile', 'keyed'], {env})
        expect(refused.code, refused.stderr).toBe(2)
        expect(refused.stderr).toContain(
          `The gateway public key of profile "keyed" (${stored.gateway_public_key_file}) is not used: it belongs to another user`,
        )
      },
    )

    it.skipIf(process.getuid?.() !== 0)(
      "another user's profiles.json is never read: it could send this machine's refunds anywhere",
      async () => {
        const {dir} = world.machine()
        const store = join(dir, 'profiles.json')
        chmodSync(dir, 0o777)
        asNobody(`cat > ${store}`, readFileSync(join(world.configDir, 'profiles.json')))
        expectOpenFolder(await world.run(['refund', 'list'], {env: {GW_CONFIG_DIR: dir}}), dir)
        chmodSync(dir, 0o700)
        const listed = await world.run(['refund', 'list'], {env: {GW_CONFIG_DIR: dir}})
        expect(listed.code).toBe(2)
        expect(listed.stderr).toMatch(new RegExp(`The profile store ${store} is not used: it belongs to another user`))
      },
    )

    it.skipIf(process.getuid?.() !== 0)(
      "a bulk journal in a folder others can write, another user's, or a link, is refused before anything is sent; a journal of one's own runs it once",
      async () => {
        const orders = ['INV-JRN-1', 'INV-JRN-2']
        for (const order of orders) await paidOn(world.sandbox, order)
        const {dir} = world.machine()
        const csv = join(dir, 'refunds.csv')
        writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},10.00`).join('\n')}\n`)
        chmodSync(dir, 0o777)
        // Another user's "journal" of the file: every row done, as far as it says.
        asNobody(`cat > ${csv}.journal.jsonl`, '{"type":"header"}\n')
        const bulk = (...extra: string[]) => world.bulk(csv, extra)
        for (const run of [await bulk(), await bulk('--dry-run')]) {
          expectOpenFolder(run, dir)
          expect(run.stderr).toContain('give the run a journal in a folder of your own: --journal FILE')
        }
        chmodSync(dir, 0o755)
        const refused = await bulk()
        expect(refused.code, refused.stderr).toBe(2)
        expect(refused.stderr).toContain(
          `The journal ${csv}.journal.jsonl is not one gw wrote for you: it belongs to another user`,
        )
        rmSync(`${csv}.journal.jsonl`)
        const target = join(dir, 'elsewhere.txt')
        writeFileSync(target, 'kept\n')
        symlinkSync(target, `${csv}.journal.jsonl`)
        const linked = await bulk()
        expect(linked.code, linked.stderr).toBe(2)
        expect(linked.stderr).toContain('it is not a file gw wrote (a link, a pipe or a folder)')
        expect(readFileSync(target, 'utf8')).toBe('kept\n')
        for (const order of orders) expect(await refundsOn(world.sandbox, order)).toEqual([])
        const own = await bulk('--journal', join(dir, 'mine.jsonl'))
        expect(own.code, own.stderr).toBe(0)
        for (const order of orders) expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
        // The file's folder keeps the mode its owner gave it.
        expect(execFileSync('stat', ['-c', '%a', dir], {encoding: 'utf8'}).trim()).toBe('755')
      },
    )

    it("an earlier version's intent for another gateway's order of the same number (its gateway number differs) is not this order's", async () => {
      const order = 'INV-OTHER-GW'
      await paidOn(world.sandbox, order, 'alipay')
      const {dir, env} = world.machine()
      // Left unknown on the test gateway by an earlier gw, whose order there was TESTGW-1; the one gateway known now is this one.
      const line = JSON.parse(intent(order, 'RF-TEST-GATEWAY', 1000, 'alipay')) as Record<string, unknown>
      writeFileSync(join(dir, 'history.jsonl'), `${JSON.stringify({...line, gw_order_no: 'TESTGW-1'})}\n`)
      const refunded = await world.run(['refund', 'create', order, '--amount', '10.00', '--json'], {env})
      expect(refunded.code, refunded.stderr).toBe(0)
      expect(refunded.json<Refunded & {sent_again?: boolean}>()).toMatchObject({status: 'refunded', refund_fee: 1000})
      expect(refunded.json<Refunded & {sent_again?: boolean}>().sent_again).toBeUndefined()
      expect(refunded.json<Refunded>().mch_refund_no).not.toBe('RF-TEST-GATEWAY')
      expect((await refundsOn(world.sandbox, order)).map((r) => r.no)).not.toContain('RF-TEST-GATEWAY')
    })

    it('a history.jsonl restored from a backup with an intent is looked up, never sent: absent where the gateway can tell', async () => {
      const [wechat, alipay] = ['INV-RESTORE-W', 'INV-RESTORE-A']
      await paidOn(world.sandbox, wechat)
      await paidOn(world.sandbox, alipay, 'alipay')
      const {dir, env} = world.machine()
      writeFileSync(
        join(dir, 'history.jsonl'),
        intent(wechat, 'RF-RESTORED-W', 9000, 'wechat') + intent(alipay, 'RF-RESTORED-A', 9000, 'alipay'),
      )
      const onWechat = await world.run(['refund', 'create', wechat, '--amount', '10.00'], {env})
      expect(onWechat.code, onWechat.stderr).toBe(0)
      expect(onWechat.stderr).toContain(
        'Refund RF-RESTORED-W of 90.00 THB, sent earlier without a known outcome, never reached the gateway',
      )
      expect((await refundsOn(world.sandbox, wechat)).map((r) => r.fee)).toEqual([1000])
      const onAlipay = await world.run(['refund', 'create', alipay, '--amount', '10.00'], {env})
      expect(onAlipay.code).toBe(5)
      expect(await refundsOn(world.sandbox, alipay)).toEqual([])
    })

    it("an alipay bulk row a planted 'refunded' line names is not confirmable while the order shows no refund, never already refunded", async () => {
      const order = 'INV-CLAIM-1'
      await paidOn(world.sandbox, order, 'alipay')
      const csv = world.file('claimed.csv', `mch_order_no,refund_amount,mch_refund_no\n${order},10.00,RF-CLAIMED\n`)
      const {dir, env} = world.machine()
      writeFileSync(
        join(dir, 'history.jsonl'),
        `${JSON.stringify({type: 'refund', appid: APPID, mch_order_no: order, channel: 'alipay', mch_refund_no: 'RF-CLAIMED', refund_fee: 1000, fee_type: 'THB', status: 'refunded', source: 'refund create', at: new Date().toISOString()})}\n`,
      )
      const run = await world.bulk(csv, [], {env})
      expect(run.code, run.stderr).toBe(6)
      const [row] = world.reportOf(csv)
      expect(row).toMatchObject({status: 'not_confirmable'})
      expect(row!.advice).toContain('but the order is SUCCESS: no refund of it shows as succeeded')
      expect(await refundsOn(world.sandbox, order)).toEqual([])
    })
  })

  describe('a refund made elsewhere: the gateway asked before a repeat', () => {
    /** A colleague's machine of the same merchant (a config dir of its own): refunds `amount` of `order` there. */
    async function refundedByColleague(order: string, amount: string, ...extra: string[]): Promise<void> {
      const {env} = world.machine()
      const made = await world.run(['refund', 'create', order, '--amount', amount, ...extra], {env})
      expect(made.code, made.stderr).toBe(0)
    }

    it('a single refund of an order the gateway shows refunded, of which this machine knows none: asked, refused without --again', async () => {
      const order = 'INV-ELSE-1'
      await paidOn(world.sandbox, order)
      await refundedByColleague(order, '10.00')
      const repeat = await world.run(['refund', 'create', order, '--amount', '10.00'])
      expect(repeat.code, repeat.stderr).toBe(2)
      expect(repeat.stderr).toContain(
        `order ${order} shows a refund made (REFUND), and this machine made none of its refunds: it was refunded elsewhere (another machine, or the merchant platform)`,
      )
      expect(repeat.stderr).toContain('Add --again to confirm')
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000])
      const meant = await world.run(['refund', 'create', order, '--amount', '10.00', '--again'])
      expect(meant.code, meant.stderr).toBe(0)
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000, 1000])
    })

    it('a sheet row of such an order is a problem of its row unless --again; an alipay one says what cannot be seen', async () => {
      const [wechat, alipay] = ['INV-ELSE-2', 'INV-ELSE-3']
      await paidOn(world.sandbox, wechat)
      await paidOn(world.sandbox, alipay, 'alipay')
      await refundedByColleague(wechat, '10.00')
      await refundedByColleague(alipay, '10.00')
      const csv = fileOf('elsewhere.csv', [`${wechat},10.00`, `${alipay},10.00`])
      const run = await world.bulk(csv)
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toContain(`line 2: order ${wechat} shows a refund made (REFUND), and this machine made none`)
      expect(run.stderr).toMatch(
        new RegExp(
          `line 3: order ${alipay} .*the gateway has no refund query for alipay, so which refund and how much cannot be seen here; add --again if this row is meant too`,
        ),
      )
      expect((await refundsOn(world.sandbox, wechat)).map((r) => r.fee)).toEqual([1000])
      expect((await refundsOn(world.sandbox, alipay)).map((r) => r.fee)).toEqual([1000])
      const meant = await world.bulk(csv, ['--again'])
      expect(meant.code, meant.stderr).toBe(0)
      expect((await refundsOn(world.sandbox, wechat)).map((r) => r.fee)).toEqual([1000, 1000])
    })

    it("a refund this file's journal sent is this machine's, though the history lost it (a run killed first): the grown sheet's row goes", async () => {
      const order = 'INV-ELSE-5'
      await paidOn(world.sandbox, order, 'alipay')
      const csv = fileOf('elsewhere-journal.csv', [`${order},10.00`])
      expect((await world.bulk(csv)).code).toBe(0)
      // The journal holds the refund; the history, as a SIGKILL before its records reached it leaves it, does not.
      for (const file of ['history.db', 'history.db-wal', 'history.db-shm'])
        rmSync(join(world.configDir, file), {force: true})
      writeFileSync(csv, `${readFileSync(csv, 'utf8')}${order},20.00\n`)
      const grown = await world.bulk(csv)
      expect(grown.code, grown.stderr).toBe(0)
      expect(grown.stderr).not.toContain('refunded elsewhere')
      expect(world.reportOf(csv).map((row) => row.status)).toEqual(['refunded_earlier', 'refunded'])
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000, 2000])
    })

    it('where this machine knows one refund number, the list it gives shows a repeat made elsewhere of the same amount', async () => {
      const order = 'INV-ELSE-4'
      await paidOn(world.sandbox, order)
      expect((await world.run(['refund', 'create', order, '--amount', '5.00'])).code).toBe(0)
      // The colleague's machine knows none of the order's refunds: it is asked too, and says yes.
      await refundedByColleague(order, '10.00', '--again')
      const repeat = await world.run(['refund', 'create', order, '--amount', '10.00'])
      expect(repeat.code, repeat.stderr).toBe(2)
      expect(repeat.stderr).toMatch(/again: refund RF\w+ of 10\.00 THB was made at /)
      const csv = fileOf('elsewhere-known.csv', [`${order},10.00`])
      const row = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
      expect(row.code, row.stderr).toBe(2)
      expect(row.stderr).toMatch(
        /line 2: order INV-ELSE-4: refund RF\w+ of 10\.00 THB was made at \S+, the same amount as this row/,
      )
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([500, 1000])
    })
  })

  describe("a colleague's re-check of a report", () => {
    it('recognises the numbers gw derived as its own (never failed for another number), and sends no row the report says failed unless asked', async () => {
      const orders = ['INV-RECHECK-1', 'INV-RECHECK-2']
      for (const order of orders) await paidOn(world.sandbox, order, 'alipay')
      const csv = world.file('recheck.csv', `mch_order_no,refund_amount\n${orders[0]},10.00\n`)
      expect((await world.bulk(csv)).code).toBe(0)
      // The report, with a second row it says failed (a refund the gateway refused that day).
      const report = readFileSync(csv.replace(/\.csv$/, '.report.csv'), 'utf8').split(/\r?\n/)
      const failed = report[1]!.replace(orders[0]!, orders[1]!).replace(/,refunded,RF\w+,/, ',failed,,')
      const copy = world.file('recheck-report.csv', [report[0], report[1], failed, ...report.slice(2)].join('\n'))
      // On another desk: no journal, no history.
      const {env} = world.machine()
      // This desk made none of the order's refunds, and alipay has no refund query: asked first (--again).
      const asked = await world.bulk(copy, [], {env})
      expect(asked.code, asked.stderr).toBe(2)
      expect(asked.stderr).toContain(
        'the gateway has no refund query for alipay, so which refund and how much cannot be seen here',
      )
      const recheck = await world.bulk(copy, ['--again'], {env})
      expect(recheck.code, recheck.stderr).toBe(1)
      // Its own number held at the gateway, on a channel that cannot show the refund's state: not confirmable, never
      // "failed, give another number", which would refund the customer twice.
      const [first, second] = world.reportOf(copy)
      expect([first!.status, second!.status]).toEqual(['not_confirmable', 'left_out'])
      expect(first!.advice).toContain('Confirm refund RF')
      expect(recheck.stdout + recheck.stderr).not.toContain('another refund number')
      expect(world.reportOf(copy)[1]!.err_msg).toContain('add --retry-failed to send it')
      expect((await refundsOn(world.sandbox, orders[0]!)).map((r) => r.fee)).toEqual([1000])
      expect(await refundsOn(world.sandbox, orders[1]!)).toEqual([])
      const retried = await world.bulk(copy, ['--retry-failed', '--again'], {
        env,
      })
      // The failed row is sent now; the first stays not confirmable (exit 6): nothing more can be learned of it here.
      expect(retried.code, retried.stderr).toBe(6)
      expect(
        world
          .reportOf(copy)
          .slice(0, 2)
          .map((r) => r.status),
      ).toEqual(['not_confirmable', 'refunded'])
      expect((await refundsOn(world.sandbox, orders[1]!)).map((r) => r.fee)).toEqual([1000])
      expect((await refundsOn(world.sandbox, orders[0]!)).map((r) => r.fee)).toEqual([1000])
    })

    it('of a batch run with --batch-id and repeats, re-checked without them: never failed for another number; the summary names the batch', async () => {
      const order = 'INV-RECHECK-BATCH'
      await paidOn(world.sandbox, order, 'alipay')
      const csv = world.file('recheck-batch.csv', `mch_order_no,refund_amount\n${order},10.00\n${order},10.00\n`)
      const run = await world.bulk(csv, ['--batch-id', 'NOV-2', '--allow-repeats', '--json'])
      expect(run.code, run.stderr).toBe(0)
      expect(run.json<{audit: {batch_id?: string}}>().audit.batch_id).toBe('NOV-2')
      const summary = readFileSync(csv.replace(/\.csv$/, '.report.summary.csv'), 'utf8')
      expect(summary).toMatch(/^batch_id,NOV-2\r?$/m)
      const copy = world.file('recheck-batch-report.csv', readFileSync(csv.replace(/\.csv$/, '.report.csv')))
      const {env} = world.machine()
      const asked = await world.bulk(copy, ['--allow-repeats'], {env})
      expect(asked.code, asked.stderr).toBe(2)
      expect(asked.stderr).toContain('it was refunded elsewhere')
      const recheck = await world.bulk(copy, ['--allow-repeats', '--again'], {
        env,
      })
      expect(recheck.stdout + recheck.stderr).not.toContain('another refund number')
      expect(world.reportOf(copy).map((r) => r.status)).toEqual(['not_confirmable', 'not_confirmable'])
      expect((await refundsOn(world.sandbox, order)).map((r) => r.fee)).toEqual([1000, 1000])
    })
  })
})
