/** gw refund list: the refunds made here, by amount, by order; --refresh asks the gateway once per order. */
import {execFileSync} from 'node:child_process'
import {generateKeyPairSync} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {keyInfo, parsePublicKey} from '../../../src/lib/gateway/signing.js'
import {MIGRATIONS} from '../../../src/lib/store/schema.js'
import {startForwarder} from '../../helpers/forwarder.js'
import {type GwWorld, minute, startWorld} from '../../helpers/gw-env.js'
import {otherGatewayKey, tempDir} from '../../helpers/shared.js'
import {readWorkbook} from '../../helpers/workbooks.js'

let world: GwWorld

const LIVE_URL = 'https://gateway.example/Gateway'

interface Listed {
  mch_refund_no: string
  mch_order_no: string
  refund_amount: string
  total_fee?: number
  total_amount?: string
}

const listed = async (args: string[], env?: Record<string, string>) => {
  const run = await world.run(['refund', 'list', ...args, '--json'], {env})
  expect(run.code, run.stderr).toBe(0)
  return run.json<{refunds: Listed[]}>().refunds
}

beforeAll(async () => {
  world = await startWorld({spawned: false})
})

afterAll(() => world.close())

describe('gw refund list --amount', () => {
  it("finds a 150.50 order's refund of 75.25 by 150.50, and by 75.25, and says the order's total", async () => {
    await world.createOrder('RL-MADE', 'wechat', '150.50')
    await world.pay('RL-MADE')
    const refunded = await world.run(['refund', 'create', 'RL-MADE', '--amount', '75.25', '--json'])
    expect(refunded.code, refunded.stderr).toBe(0)
    const number = refunded.json<{mch_refund_no: string}>().mch_refund_no

    expect(await listed(['--amount', '150.50'])).toEqual([
      expect.objectContaining({
        mch_refund_no: number,
        mch_order_no: 'RL-MADE',
        refund_amount: '75.25',
        total_fee: 15_050,
        total_amount: '150.50',
      }),
    ])
    expect((await listed(['--amount', '75.25'])).map((r) => r.mch_refund_no)).toEqual([number])
    expect(await listed(['--amount', '150.51'])).toEqual([])

    const text = await world.run(['refund', 'list', '--amount', '฿150.50'], {terminal: 200})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/│ order total +│/)
    expect(text.stdout).toMatch(new RegExp(`│ ${number} +│ RL-MADE +│ 75\\.25 THB +│ 150\\.50 THB +│ refunded +│`))
  })

  it('finds the refund of an order made elsewhere (a shop till) by the total the order query showed', async () => {
    const [order] = await world.paidOrders(1, 15_050, 'RL-TILL')
    const refunded = await world.run(['refund', 'create', order!, '--amount', '20.00', '--json'])
    expect(refunded.code, refunded.stderr).toBe(0)
    const found = await listed(['--amount', '150.50'])
    expect(found.map((r) => r.mch_order_no)).toContain(order)
  })

  it("finds an earlier gw's refund by the total of its order, known from the order's own record", async () => {
    const {dir, env} = world.machine()
    const at = '2026-03-01T10:00:00Z'
    const line = (record: Record<string, unknown>) =>
      JSON.stringify({appid: world.sandbox.info.merchants[0]!.appid, at, ...record})
    writeFileSync(
      join(dir, 'history.jsonl'),
      [
        line({type: 'order', mch_order_no: 'RL-OLD', channel: 'wechat', total_fee: 15_050, fee_type: 'THB'}),
        line({
          type: 'refund',
          mch_order_no: 'RL-OLD',
          channel: 'wechat',
          mch_refund_no: 'RF-OLD-1',
          refund_fee: 7525,
          fee_type: 'THB',
          status: 'refunded',
        }),
      ].join('\n'),
    )
    expect((await listed(['--amount', '150.50'], env)).map((r) => r.mch_refund_no)).toEqual(['RF-OLD-1'])
  })

  it("finds the refund of an earlier gw's database (schema 2) by its order's total, unattributed and marked", async () => {
    const {dir, env} = world.machine()
    // A second gateway of the appid on this machine (a live profile, its own key): the earlier records stay unattributed.
    const liveKey = otherGatewayKey()
    const live = world
      .profileAdd('live')
      .map((word) => (word === world.sandbox.info.base_url ? LIVE_URL : word))
      .map((word) => (word === world.sandbox.info.gateway_public_key_file ? liveKey : word))
    expect((await world.run(live, {env: {GW_CONFIG_DIR: dir}})).code).toBe(0)
    const appid = world.sandbox.info.merchants[0]!.appid
    const at = "'2026-03-01T10:00:00.000Z', 1772359200000"
    execFileSync('sqlite3', [
      join(dir, 'history.db'),
      `${MIGRATIONS.slice(0, 2).join(';\n')};
       INSERT INTO orders (appid, mch_order_no, channel, total_fee, fee_type, at, at_ms, state)
         VALUES ('${appid}', 'RL-V2', 'wechat', 15050, 'THB', ${at}, 'REFUND');
       INSERT INTO refunds (appid, mch_order_no, channel, mch_refund_no, refund_fee, fee_type, status, at, at_ms)
         VALUES ('${appid}', 'RL-V2', 'wechat', 'RF-V2-1', 7525, 'THB', 'refunded', ${at});
       PRAGMA user_version = 2;`,
    ])
    expect(await listed(['--amount', '150.50'], env)).toEqual([
      expect.objectContaining({
        mch_refund_no: 'RF-V2-1',
        refund_amount: '75.25',
        total_amount: '150.50',
        unattributed: true,
      }),
    ])
  })
})

describe('lists, streamed from the history', () => {
  const appid = () => world.sandbox.info.merchants[0]!.appid

  it('refund list --refresh asks once per order for the refunds listed near each other, in list order; --state after', async () => {
    const [first, second] = await world.paidOrders(2, 10_000, 'RSTREAM')
    // The gateway behind an address the test can take down, the same gateway all along.
    const gateway = await startForwarder(world.sandbox.info.base_url)
    // A refund the gateway never saw, recorded on the first order: absent once asked.
    const earlier = world.machine([
      world.orderLine(first!, 0, 'wechat', 'SUCCESS'),
      world.orderLine(second!, 1, 'wechat', 'SUCCESS'),
      `{"type":"refund","appid":"${appid()}","mch_order_no":"${first}","channel":"wechat","mch_refund_no":"RF-NEVER","refund_fee":100,"fee_type":"THB","status":"refunded","at":"${minute(2)}"}`,
    ])
    const env = {...earlier.env, GW_BASE_URL: gateway.baseUrl}
    for (const [order, amount] of [
      [first, '1.00'],
      [second, '2.00'],
      [first, '3.00'],
    ] as const) {
      const made = await world.run(['refund', 'create', order!, '--amount', amount, '--yes'], {env})
      expect(made.code, made.stderr).toBe(0)
    }
    type Listed = {mch_refund_no: string; mch_order_no: string; status: string; gw_refund_no?: string}
    const known = (await world.run(['refund', 'list', '--json'], {env})).json<{refunds: Listed[]}>().refunds
    expect(known.map((r) => [r.mch_order_no, r.status])).toEqual([
      [first, 'refunded'],
      [second, 'refunded'],
      [first, 'refunded'],
      [first, 'refunded'],
    ])
    const before = await world.requests()
    const refreshed = await world.run(['refund', 'list', '--refresh', '--json'], {env})
    expect(refreshed.code, refreshed.stderr).toBe(0)
    const listed = refreshed.json<{refunds: Listed[]}>().refunds
    expect(listed.map((r) => r.mch_refund_no)).toEqual(known.map((r) => r.mch_refund_no))
    expect(listed.map((r) => r.status)).toEqual(['refunded', 'refunded', 'refunded', 'absent'])
    expect(listed.slice(0, 3).every((r) => r.gw_refund_no)).toBe(true)
    const after = await world.requests()
    expect(after.order_query! - (before.order_query ?? 0)).toBe(2)
    expect(after.refund_query! - (before.refund_query ?? 0)).toBe(2)

    const absent = await world.run(['refund', 'list', '--refresh', '--state', 'absent', '--json'], {env})
    expect(absent.json<{refunds: Listed[]}>().refunds.map((r) => r.mch_refund_no)).toEqual(['RF-NEVER'])

    // The gateway down: the first order asked is tried again; the other order's refunds are not asked.
    await gateway.down()
    const failed = await world.run(['refund', 'list', '--refresh', '--json', '--timeout', '1', '--concurrency', '1'], {
      env,
    })
    expect(failed.code, failed.stderr).toBe(3)
    const unrefreshed = failed.json<{refunds: (Listed & {refresh_failed?: string})[]}>().refunds
    expect(unrefreshed.map((r) => [r.mch_order_no, r.status])).toEqual(known.map((r) => [r.mch_order_no, r.status]))
    expect(unrefreshed.map((r) => r.refresh_failed?.startsWith('not asked: the gateway could not be reached'))).toEqual(
      [false, true, false, false],
    )
    expect(failed.stderr).toMatch(/warning: 4 of 4 refunds could not be refreshed \(nothing is listening/)

    // Answers signed by another key than the profile's gateway key (the gateway changed its key
    // since these records were made): nothing in them is trusted, exit 4 (not 3).
    await gateway.up()
    const stranger = generateKeyPairSync('rsa', {modulusLength: 2048}).publicKey.export({type: 'spki', format: 'pem'})
    const strangerFile = join(tempDir('gw-stranger-'), 'gateway.pem')
    writeFileSync(strangerFile, stranger)
    const made = {appid: appid(), base_url: gateway.baseUrl, key: keyInfo(parsePublicKey(String(stranger))).fingerprint}
    writeFileSync(
      join(earlier.dir, 'history.jsonl'),
      [first!, second!]
        .map(
          (order, i) => `{"gateway":${JSON.stringify(made)},${world.orderLine(order, i, 'wechat', 'SUCCESS').slice(1)}`,
        )
        .concat(
          known.map(
            (r, i) =>
              `{"gateway":${JSON.stringify(made)},"type":"refund","appid":"${appid()}","mch_order_no":"${r.mch_order_no}","channel":"wechat","mch_refund_no":"${r.mch_refund_no}","refund_fee":100,"fee_type":"THB","status":"refunded","at":"${minute(3 + i)}"}`,
          ),
        )
        .join('\n'),
    )
    for (const what of ['refund', 'order']) {
      const untrusted = await world.run([what, 'list', '--refresh', '--json'], {
        env: {...env, GW_GATEWAY_PUBLIC_KEY: strangerFile},
      })
      expect(untrusted.code, untrusted.stderr).toBe(4)
      const items = untrusted.json<Record<string, {refresh_failed?: string}[]>>()[`${what}s`]!
      expect(items.length).toBeGreaterThan(1)
      expect(items.every((i) => /signature/i.test(i.refresh_failed ?? ''))).toBe(true)
      expect(untrusted.stderr).toMatch(
        new RegExp(`warning: ${items.length} of ${items.length} ${what}s could not be refreshed`),
      )
    }
    await gateway.close()
  })
})

describe("a bulk run's refunds in the history", () => {
  it('killed with SIGKILL mid-run and resumed: refund list shows every row refunded once, as the ledger does', async () => {
    const {dir, env} = world.machine([])
    const orders = await world.paidOrders(240, 10_000, 'HKILL')
    const csv = join(dir, 'kill.csv')
    writeFileSync(csv, `mch_order_no,refund_fee\n${orders.map((order) => `${order},1000`).join('\n')}\n`)
    const refundsMade = async () =>
      (await Promise.all(orders.map((order) => world.ledger(order)))).flatMap((o) => o!.refunds)
    const bulk = ['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '8']
    const sentBefore = (await world.requests()).order_refund ?? 0
    const {child, result} = world.spawn(bulk, {env})
    let ended = false
    void result.then(() => (ended = true))
    // Killed mid-run: the journal holds what was sent; the history's last records were still to commit.
    while (!ended && ((await world.requests()).order_refund ?? 0) < sentBefore + 120)
      await new Promise((resolve) => setTimeout(resolve, 10))
    child.kill('SIGKILL')
    expect((await result).signal).toBe('SIGKILL')
    const resumed = await world.run(bulk, {env})
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toMatch(/resuming: \d+ done/)

    const ledger = await refundsMade()
    expect(ledger).toHaveLength(orders.length)
    const listed = await world.run(['refund', 'list', '--json'], {env})
    expect(listed.code, listed.stderr).toBe(0)
    const refunds = listed.json<{
      refunds: {mch_order_no: string; mch_refund_no: string; refund_fee: number; status: string}[]
    }>().refunds
    expect(refunds.map((r) => r.mch_order_no).sort()).toEqual([...orders].sort())
    expect(new Set(refunds.map((r) => r.mch_refund_no))).toEqual(new Set(ledger.map((r) => r.mch_refund_no)))
    expect(refunds.every((r) => r.status === 'refunded' && r.refund_fee === 1000)).toBe(true)
  })
})

describe('hints that lead the right way', () => {
  it('list --refresh keeps, marks and explains the state of what its channel cannot be asked about, without failing', async () => {
    await world.createOrder('ALI-LIST-1', 'alipay', '20.00')
    await world.pay('ALI-LIST-1')
    const refund = await world.run(['refund', 'create', 'ALI-LIST-1', '--amount', '5.00', '--yes'])
    expect(refund.code, refund.stderr).toBe(0)
    const refunds = await world.run(['refund', 'list', '--since', '10m', '--channel', 'alipay', '--refresh'])
    expect(refunds.code, refunds.stderr).toBe(0)
    expect(refunds.stdout).toMatch(/refunded \(as known: alipay has no refund query\)/)
    expect(refunds.stderr).toContain('keep the state gw knew, marked "as known": alipay has no refund query')
    const json = await world.run(['refund', 'list', '--since', '10m', '--channel', 'alipay', '--refresh', '--json'])
    expect(json.json<{refunds: {refresh_skipped?: string}[]}>().refunds[0]!.refresh_skipped).toBe(
      'alipay has no refund query',
    )

    await world.createOrder('SCB-LIST-1', 'scb_qrcard', '4.20')
    const orders = await world.run(['order', 'list', '--since', '10m', '--channel', 'scb_qrcard', '--refresh'])
    expect(orders.code, orders.stderr).toBe(0)
    expect(orders.stdout).toMatch(/NOTPAY \(as known: scb_qrcard has no order query\)/)
  })
})

describe('what did we do today: order list and refund list', () => {
  it('lists the refunds made here with how they were made; --out writes CSV or a workbook; another appid sees none', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'LIST')
    await world.run(['refund', 'create', order!, '--amount', '1.25', '--channel', 'wechat'])
    const result = await world.run(['refund', 'list', '--since', 'today', '--out', join(world.configDir, 'today.xlsx')])
    expect(result.code, result.stderr).toBe(0)
    // Piped: a line per refund, its cells tab-separated in the table's order.
    expect(result.stdout).toMatch(
      new RegExp(`^\\S+\\tRF\\w+\\t${order}\\t1\\.25 THB\\t100\\.00 THB\\trefunded\\t\\d+\\trefund create$`, 'm'),
    )
    const [sheet] = await readWorkbook(join(world.configDir, 'today.xlsx'))
    const columns = sheet!.rows[0]!.map((c) => c.value)
    const row = sheet!.rows.find((r) => r[columns.indexOf('mch_order_no')]?.value === order)!
    expect(row[columns.indexOf('refund_amount')]).toEqual({value: 1.25, type: 2, numFmt: '#,##0.00'})
    const refreshed = await world.run([
      'refund',
      'list',
      '--since',
      'today',
      '--refresh',
      '--state',
      'refunded',
      '--json',
    ])
    expect(refreshed.json<{refunds: {mch_order_no: string}[]}>().refunds.map((r) => r.mch_order_no)).toContain(order)
    const csv = join(world.configDir, 'today.csv')
    await world.run(['refund', 'list', '--since', 'today', '--out', csv])
    // Named as every --json names them: the time made_at, the order by both numbers, refund_fee beside refund_amount.
    expect(readFileSync(csv, 'utf8')).toMatch(
      /^\ufeffmade_at,mch_refund_no,mch_order_no,gw_order_no,channel,refund_fee,refund_amount,fee_type,/,
    )
    const json = await world.run(['refund', 'list', '--since', 'today', '--json'])
    expect(json.json<{refunds: unknown[]}>().refunds).toContainEqual(
      expect.objectContaining({
        mch_order_no: order,
        gw_order_no: expect.stringMatching(/^900\d+$/),
        refund_fee: 125,
        refund_amount: '1.25',
        made_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
      }),
    )
    const other = world.environmentProfile({GW_APPID: 'mch99999'})
    const none = await world.run(['refund', 'list'], {env: other})
    expect(none.stdout).toBe('')
    expect(none.stderr).toContain('No refunds made on this machine for mch99999')
  })
})
