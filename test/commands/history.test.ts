/**
 * gw history, and the history every command keeps: damage is never taken for emptiness, a newer
 * gw's database is never used, a link in history.jsonl's place is never written through, merging
 * the same records twice changes nothing, and records of earlier versions are a gateway's only
 * when it is certain.
 */
import {execFileSync} from 'node:child_process'
import {copyFileSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {otherGatewayKey, tempFile} from '../helpers/shared.js'
import {holdDatabase} from '../helpers/sqlite-holder.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld({spawned: false})
})
afterAll(() => world.close())

const appid = () => world.sandbox.info.merchants[0]!.appid

describe('damage and a newer gw', () => {
  it('a 0-byte history.db beside a write-ahead log is damage: exit 2, nothing sent, both files named', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HIST-EMPTY')
    const {dir, env} = world.machine()
    writeFileSync(join(dir, 'history.db'), '')
    writeFileSync(join(dir, 'history.db-wal'), Buffer.alloc(4096, 7))
    const refused = await world.run(['refund', 'create', order!, '--amount', '1.00'], {env})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      'is not a readable gw database: it is empty (0 bytes) beside a write-ahead log of 4096 bytes',
    )
    expect(refused.stderr).toContain('Move it and its log aside together')
    expect(await world.refundsOf(order!)).toEqual([])
  })

  it("a database of a newer gw's schema is refused before anything is sent", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HIST-NEWER')
    const {dir, env} = world.machine()
    expect((await world.run(['order', 'list'], {env})).code).toBe(0)
    execFileSync('sqlite3', [join(dir, 'history.db'), 'PRAGMA user_version = 99;'])
    const refused = await world.run(['refund', 'create', order!, '--amount', '1.00'], {env})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(
      /history\.db was made by a newer gw \(its schema is version 99; this gw knows up to \d+\)/,
    )
    // Said once: "Nothing was sent." is the refusal's, not twice over.
    expect(refused.stderr.match(/Nothing was sent\./g)).toHaveLength(1)
    expect(await world.refundsOf(order!)).toEqual([])
  })
})

describe('history.jsonl', () => {
  it('a link in its place is never written through: what gw says of where the outcome went is true', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HIST-LINK')
    const {dir, env} = world.machine()
    expect((await world.run(['order', 'list'], {env})).code).toBe(0)
    const target = tempFile('elsewhere.txt', "not gw's\n")
    symlinkSync(target, join(dir, 'history.jsonl'))
    // The database held by another program while the refund is in flight: its outcome cannot go there.
    await world.faults('latency=1500-1500ms@order_refund')
    const running = world.run(['refund', 'create', order!, '--amount', '1.00'], {env})
    await new Promise((resolve) => setTimeout(resolve, 700))
    const holder = await holdDatabase(join(dir, 'history.db'))
    let sent
    try {
      sent = await running
    } finally {
      await holder.release()
      await world.faults('')
    }
    expect(sent.code, sent.stderr).toBe(5)
    expect(sent.stderr).toContain('could not be written either (it is a link, which gw never writes through)')
    expect(sent.stderr).toContain('its outcome could not be kept anywhere on this machine')
    expect(readFileSync(target, 'utf8')).toBe("not gw's\n")
    expect((await world.refundsOf(order!)).map((r) => r.refund_fee)).toEqual([100])
  })

  it('merged twice (a backup restored after it was merged), changes nothing: no event of the story doubles', async () => {
    const {dir, env} = world.machine()
    const made = await world.run(
      [
        'order',
        'create',
        '--channel',
        'wechat',
        '--amount',
        '3.00',
        '--fee-type',
        'THB',
        '--mch-order-no',
        'HIST-TWICE',
        '--no-qr',
      ],
      {env},
    )
    expect(made.code, made.stderr).toBe(0)
    await world.pay('HIST-TWICE')
    expect((await world.run(['order', 'query', 'HIST-TWICE'], {env})).code).toBe(0)
    const story = async () =>
      (await world.run(['order', 'timeline', 'HIST-TWICE', '--json'], {env})).json<{entries: unknown[]}>()
    const before = await story()
    // The records as a backup of history.jsonl holds them, restored twice over.
    const lines = execFileSync('sqlite3', ['-json', join(dir, 'history.db'), 'SELECT kind, at, detail FROM events'], {
      encoding: 'utf8',
    })
    const events = (JSON.parse(lines) as {kind: string; at: string; detail: string}[]).map((e) =>
      JSON.stringify({
        type: 'event',
        appid: appid(),
        mch_order_no: 'HIST-TWICE',
        kind: e.kind,
        at: e.at,
        detail: JSON.parse(e.detail),
      }),
    )
    expect(events.length).toBeGreaterThan(1)
    for (let i = 0; i < 2; i++) {
      writeFileSync(join(dir, 'history.jsonl'), `${events.join('\n')}\n`)
      expect((await world.run(['order', 'list'], {env})).code).toBe(0)
    }
    expect(await story()).toEqual(before)
    copyFileSync(join(dir, 'history.jsonl.imported'), join(dir, 'history.jsonl'))
    expect(await story()).toEqual(before)
  })
})

describe('records of an earlier gw, which did not record the gateway', () => {
  /** Lines of an earlier version: an order and a refund of it left unknown, knowing only their appid. */
  const earlier = (order: string) =>
    [
      {
        type: 'order',
        appid: appid(),
        mch_order_no: order,
        channel: 'wechat',
        total_fee: 10_000,
        fee_type: 'THB',
        at: '2026-03-01T10:00:00Z',
        state: 'SUCCESS',
        state_at: '2026-03-01T10:00:00Z',
      },
      {
        type: 'refund',
        appid: appid(),
        mch_order_no: order,
        channel: 'wechat',
        mch_refund_no: `RF-EARLIER-${order}`,
        refund_fee: 9000,
        fee_type: 'THB',
        status: 'intent',
        source: 'refund create',
        at: '2026-03-01T11:00:00Z',
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n')

  it("are that gateway's when it is the only one this machine knows for the appid: gw history says so", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HIST-ONE')
    const {dir, env} = world.machine()
    writeFileSync(join(dir, 'history.jsonl'), `${earlier(order!)}\n`)
    const shown = await world.run(['history', '--json'], {env})
    // Read by gw history alone, before any profile was used: not yet any gateway's.
    expect(shown.json<{gateways: {unattributed?: boolean}[]}>().gateways).toEqual([
      expect.objectContaining({unattributed: true}),
    ])
    const refunded = await world.run(['refund', 'create', order!, '--amount', '10.00'], {env})
    expect(refunded.code, refunded.stderr).toBe(0)
    // Its earlier refund was this gateway's: looked up before the new one, absent, said.
    expect(refunded.stderr).toContain(
      `Refund RF-EARLIER-${order} of 90.00 THB, sent earlier without a known outcome, never reached the gateway`,
    )
    const history = (await world.run(['history', '--json'], {env})).json<{gateways: unknown[]; adopted: unknown[]}>()
    expect(history.gateways).toEqual([
      expect.objectContaining({base_url: world.sandbox.info.base_url, orders: 1, refunds: 2}),
    ])
    expect(history.adopted).toEqual([
      expect.objectContaining({
        orders: 1,
        refunds: 1,
        why: expect.stringContaining(`the one gateway this machine knew for appid ${appid()}`),
      }),
    ])
  })

  it('of an appid with a test and a live profile stay shown, marked, and are never used for a refund', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HIST-TWO')
    const {dir, env} = world.machine()
    writeFileSync(join(dir, 'history.jsonl'), `${earlier(order!)}\n`)
    // A second profile of the appid at another address, with the live gateway's own key: two gateways
    // this machine knows for it (a key alike would make it the same gateway under another address).
    const key = world.sandbox.info.merchants[0]!.private_key_file!
    const liveKey = otherGatewayKey()
    const added = await world.run(
      [
        'profile',
        'add',
        'live',
        '--appid',
        appid(),
        '--base-url',
        'https://gw.example/Gateway',
        '--private-key',
        key,
        '--gateway-public-key',
        liveKey,
      ],
      {env},
    )
    expect(added.code, added.stderr).toBe(0)
    const refunded = await world.run(['refund', 'create', order!, '--amount', '10.00', '--json'], {env})
    expect(refunded.code, refunded.stderr).toBe(0)
    expect(refunded.json<{settled_earlier?: unknown}>().settled_earlier).toBeUndefined()
    expect((await world.refundsOf(order!)).map((r) => r.refund_fee)).toEqual([1000])
    const list = await world.run(['refund', 'list'], {env})
    expect(list.stdout).toMatch(new RegExp(`RF-EARLIER-${order} .*intent \\(gateway not recorded\\*\\)`))
    expect(list.stdout).toContain('* made by an earlier gw, which did not record the gateway')
    const history = await world.run(['history'], {env})
    expect(history.stdout).toMatch(new RegExp(`${appid()} +│ unknown\\* +│ 1 +│ 1 `))
    expect(history.stdout).toContain('never used to settle, skip or refuse a refund')
  })
})
