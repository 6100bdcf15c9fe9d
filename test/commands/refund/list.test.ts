/**
 * gw refund list --amount as support uses it: the customer says "I paid 150.50", and the refunds
 * of that order are found by it, whoever made the order, as well as refunds of that amount.
 */
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {MIGRATIONS} from '../../../src/lib/store/schema.js'
import {type GwWorld, orderCreate, startWorld} from '../../helpers/gw-env.js'
import {otherGatewayKey} from '../../helpers/shared.js'

let world: GwWorld
const LIVE_URL = 'https://gateway.example/Gateway'
beforeAll(async () => {
  world = await startWorld({spawned: false})
})
afterAll(() => world.close())

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

describe('gw refund list --amount', () => {
  it("finds a 150.50 order's refund of 75.25 by 150.50, and by 75.25, and says the order's total", async () => {
    const made = await world.run(orderCreate('RL-MADE', 'wechat', '150.50'))
    expect(made.code, made.stderr).toBe(0)
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

    const text = await world.run(['refund', 'list', '--amount', '฿150.50'])
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
