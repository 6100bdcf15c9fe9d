// The local history in its database: an earlier history.jsonl imported once, gw history, long
// lists streamed to a file, and a database held by another process or damaged.
import {spawn} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'

let world: GwWorld
const dirs: string[] = []
beforeAll(async () => {
  world = await startWorld()
})
afterAll(async () => {
  dirs.forEach(removeDir)
  await world.close()
})

/** An environment profile of the sandbox's merchant, with a config dir of its own holding `jsonl` as history.jsonl. */
function withEarlierHistory(jsonl: string[]) {
  const dir = tempDir('gw-history-')
  dirs.push(dir)
  writeFileSync(join(dir, 'history.jsonl'), `${jsonl.join('\n')}\n`)
  return {dir, env: world.environmentProfile({GW_CONFIG_DIR: dir})}
}

describe('an earlier history.jsonl', () => {
  it('is imported once: order list and refund list show it as before, torn and odd lines named, kept renamed', async () => {
    const appid = world.sandbox.info.merchants[0]!.appid
    const {dir, env} = withEarlierHistory([
      // An order of an earlier version (no state), one of today's with its state, their refunds.
      `{"type":"order","appid":"${appid}","mch_order_no":"OLD-1","channel":"wechat","total_fee":5000,"fee_type":"THB","at":"2026-03-01T10:00:00+07:00"}`,
      `{"type":"order","appid":"${appid}","mch_order_no":"NEW-1","gw_order_no":"G-NEW-1","channel":"alipay","total_fee":9900,"fee_type":"THB","at":"2026-03-02T10:00:00Z","state":"NOTPAY","state_at":"2026-03-02T10:00:00Z"}`,
      `{"type":"refund","appid":"${appid}","mch_order_no":"OLD-1","mch_refund_no":"RF-OLD","refund_fee":1000,"at":"2026-03-03T10:00:00Z"}`,
      `{"type":"order","appid":"${appid}","mch_order_no":"NEW-1","gw_order_no":"G-NEW-1","channel":"alipay","total_fee":9900,"fee_type":"THB","at":"2026-03-04T10:00:00Z","state":"SUCCESS","state_at":"2026-03-04T10:00:00Z"}`,
      `{"type":"refund","appid":"${appid}","mch_order_no":"NEW-1","channel":"alipay","mch_refund_no":"RF-NEW","refund_fee":900,"fee_type":"THB","status":"intent","source":"refund create","at":"2026-03-05T10:00:00Z"}`,
      `{"type":"refund","appid":"${appid}","mch_order_no":"NEW-1","channel":"alipay","mch_refund_no":"RF-NEW","refund_fee":900,"fee_type":"THB","status":"refunded","gw_refund_no":"GR-1","source":"refund create","at":"2026-03-05T10:00:01Z"}`,
      `{"type":"refund","appid":"${appid}","mch_order_no":"NEW-1","mch_ref`,
      `{"type":"order","appid":"${appid}","mch_order_no":"BAD","channel":"wechat","total_fee":-1,"fee_type":"THB","at":"2026-03-01T10:00:00Z"}`,
    ])
    const orders = await world.run(['order', 'list', '--json'], {env})
    expect(orders.code, orders.stderr).toBe(0)
    expect(orders.stderr).toContain('lines 7, 8 are not a record of an order or refund')
    expect(orders.json<{orders: unknown[]}>().orders).toEqual([
      {
        made_at: '2026-03-02T10:00:00+00:00',
        mch_order_no: 'NEW-1',
        gw_order_no: 'G-NEW-1',
        channel: 'alipay',
        total_fee: 9900,
        fee_type: 'THB',
        state: 'SUCCESS',
        state_at: '2026-03-04T10:00:00+00:00',
      },
      {
        made_at: '2026-03-01T03:00:00+00:00',
        mch_order_no: 'OLD-1',
        channel: 'wechat',
        total_fee: 5000,
        fee_type: 'THB',
      },
    ])
    const refunds = await world.run(['refund', 'list', '--json'], {env: {...env, TZ: 'UTC'}})
    expect(refunds.stderr).not.toContain('not a record')
    expect(refunds.json<{refunds: unknown[]}>().refunds).toEqual([
      expect.objectContaining({mch_refund_no: 'RF-NEW', status: 'refunded', gw_refund_no: 'GR-1', refund_fee: 900}),
      expect.objectContaining({mch_refund_no: 'RF-OLD', status: 'refunded', refund_fee: 1000}),
    ])
    expect(existsSync(join(dir, 'history.jsonl'))).toBe(false)
    expect(readFileSync(join(dir, 'history.jsonl.imported'), 'utf8')).toContain('RF-OLD')

    const shown = await world.run(['history', '--json'], {env})
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.json()).toMatchObject({
      database: join(dir, 'history.db'),
      imported: {file: join(dir, 'history.jsonl.imported'), lines: 8, skipped_lines: [7, 8]},
      appids: [{appid, orders: 2, refunds: 2, oldest: '2026-03-01T03:00:00.000Z', newest: '2026-03-05T10:00:01.000Z'}],
    })
    const text = await world.run(['history'], {env})
    expect(text.stdout).toContain(`${join(dir, 'history.db')} (`)
    expect(text.stdout).toMatch(new RegExp(`${appid} +│ 2 +│ 2 `))
  })

  it('of 250 orders lists them all to --out as read, showing the first 200 on stdout', async () => {
    const appid = world.sandbox.info.merchants[0]!.appid
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
    const {dir, env} = withEarlierHistory(
      Array.from(
        {length: 250},
        (_, i) =>
          `{"type":"order","appid":"${appid}","mch_order_no":"MANY-${i}","channel":"wechat","total_fee":100,"fee_type":"THB","at":"${at(i)}"}`,
      ),
    )
    const out = join(dir, 'all.csv')
    const listed = await world.run(['order', 'list', '--out', out], {env})
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain('the first 200 of 250 orders shown (all in the file)')
    expect(listed.stdout).toContain('MANY-249')
    expect(listed.stdout).not.toContain('MANY-49 ')
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(251)
    expect(lines[1]).toContain('MANY-249')
    expect(lines[250]).toContain('MANY-0,')
  })
})

describe('the database', () => {
  it('held by another process: a refund waits a bounded time, then names the holder; nothing is sent', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HELD')
    const {dir, env} = withEarlierHistory([])
    expect((await world.run(['history'], {env})).code).toBe(0)
    const database = join(dir, 'history.db')
    // Another writer: holds the write lock, noting itself beside the database as gw's writers do.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(database)});
         db.exec('BEGIN IMMEDIATE');
         require('fs').writeFileSync(${JSON.stringify(`${database}.writer`)}, JSON.stringify({pid: process.pid, host: ${JSON.stringify(hostname())}, since: 'now', command: 'refund create'}));
         console.log('held'); setInterval(() => {}, 1000)`,
      ],
      {cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit']},
    )
    try {
      await new Promise((resolve) => holder.stdout!.once('data', resolve))
      const before = (await world.requests()).order_refund ?? 0
      const refused = await world.run(['refund', 'create', order!, '--amount', '1.00', '--channel', 'wechat'], {env})
      expect(refused.code, refused.stderr).toBe(2)
      expect(refused.stderr).toContain(`history.db is held by process ${holder.pid} on ${hostname()} (gw refund create`)
      expect(refused.stderr).toContain('Nothing was sent.')
      expect((await world.requests()).order_refund ?? 0).toBe(before)
      expect((await world.ledger(order!))!.refunds).toEqual([])
    } finally {
      holder.kill()
    }
  }, 30_000)

  it('that is not a database: exit 2 saying what to do, never an empty list', async () => {
    const {dir, env} = withEarlierHistory([])
    writeFileSync(join(dir, 'history.db'), 'not a database '.repeat(200))
    const listed = await world.run(['order', 'list'], {env})
    expect(listed.code).toBe(2)
    expect(listed.stdout).toBe('')
    expect(listed.stderr).toContain(`${join(dir, 'history.db')} is not a readable gw database`)
    expect(listed.stderr).toContain('Move it aside')
  })
})
