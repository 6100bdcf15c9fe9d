/**
 * gw history, and the history every command keeps: imported once, damage never taken for
 * emptiness, a newer gw's database never used, records of earlier versions a gateway's only when certain.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, startWorld} from '../helpers/gw-env.js'
import {otherGatewayKey, removeDir, REPO_ROOT, tempDir, tempFile} from '../helpers/shared.js'
import {holdDatabase} from '../helpers/sqlite-holder.js'
import {builtFile, gwEnvironment} from '../helpers/gw-under-test.js'

let world: GwWorld

const appid = () => world.sandbox.info.merchants[0]!.appid

const machine = () => world.machine()

beforeAll(async () => {
  world = await startWorld({spawned: false})
})

afterAll(() => world.close())

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
    const sent = await world.underFaults('latency=1500-1500ms@order_refund', async () => {
      const running = world.run(['refund', 'create', order!, '--amount', '1.00'], {env})
      await new Promise((resolve) => setTimeout(resolve, 700))
      const holder = await holdDatabase(join(dir, 'history.db'))
      try {
        return await running
      } finally {
        await holder.release()
      }
    })
    expect(sent.code, sent.stderr).toBe(5)
    expect(sent.stderr).toContain('could not be written either (it is a link, which gw never writes through)')
    expect(sent.stderr).toContain('its outcome could not be kept anywhere on this machine')
    expect(readFileSync(target, 'utf8')).toBe("not gw's\n")
    expect((await world.refundsOf(order!)).map((r) => r.refund_fee)).toEqual([100])
  })

  it('merged twice (a backup restored after it was merged), changes nothing: no event of the story doubles', async () => {
    const {dir, env} = world.machine()
    const made = await world.run(orderCreate('HIST-TWICE', 'wechat', '3.00'), {env})
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
      JSON.stringify({
        type: 'order',
        appid: appid(),
        mch_order_no: order,
        channel: 'wechat',
        total_fee: 10_000,
        fee_type: 'THB',
        at: '2026-03-01T10:00:00Z',
        state: 'SUCCESS',
        state_at: '2026-03-01T10:00:00Z',
      }),
      world.refundIntent(order, `RF-EARLIER-${order}`, 9000, {at: '2026-03-01T11:00:00Z'}),
    ].join('\n')

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
    expect(list.stdout).toMatch(new RegExp(`RF-EARLIER-${order}\\t.*intent \\(gateway not recorded\\*\\)`))
    expect(list.stderr).toContain('* made by an earlier gw, which did not record the gateway')
    const history = await world.run(['history'], {env})
    expect(history.stdout).toMatch(new RegExp(`^${appid()}\tunknown\\*\t1\t1\t`, 'm'))
    expect(history.stdout).toContain('never used to settle, skip or refuse a refund')
  })
})

describe('a history that is emptied or appears later', () => {
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
        builtFile('bin', 'run.js'),
        'order',
        'list',
        '--json',
      ],
      {env: gwEnvironment(env), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'pipe']},
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

describe('a trial of the above by someone who did not write it', () => {
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
})

describe('an earlier history.jsonl', () => {
  it('is imported once: order list and refund list show it as before, torn and odd lines named, kept renamed', async () => {
    const appid = world.sandbox.info.merchants[0]!.appid
    const {dir, env} = world.machine([
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
        total_amount: '99.00',
        fee_type: 'THB',
        // Its refund RF-NEW was shown refunded: the order is REFUND since.
        state: 'REFUND',
        state_at: '2026-03-05T10:00:01+00:00',
      },
      {
        made_at: '2026-03-01T03:00:00+00:00',
        mch_order_no: 'OLD-1',
        channel: 'wechat',
        total_fee: 5000,
        total_amount: '50.00',
        fee_type: 'THB',
        // An earlier version's refund record is one it made.
        state: 'REFUND',
        state_at: '2026-03-03T10:00:00+00:00',
      },
    ])
    const refunds = await world.run(['refund', 'list', '--json'], {env: {...env, TZ: 'UTC'}, process: true})
    expect(refunds.stderr).not.toContain('not a record')
    expect(refunds.json<{refunds: unknown[]}>().refunds).toEqual([
      expect.objectContaining({mch_refund_no: 'RF-NEW', status: 'refunded', gw_refund_no: 'GR-1', refund_fee: 900}),
      expect.objectContaining({mch_refund_no: 'RF-OLD', status: 'refunded', refund_fee: 1000}),
    ])
    expect(existsSync(join(dir, 'history.jsonl'))).toBe(false)
    expect(readFileSync(join(dir, 'history.jsonl.imported'), 'utf8')).toContain('RF-OLD')

    // Times as every other view gives them: to the second, with this machine's offset.
    const shown = await world.run(['history', '--json'], {env: {...env, TZ: 'Asia/Bangkok'}, process: true})
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.json()).toMatchObject({
      database: join(dir, 'history.db'),
      imported: {
        file: join(dir, 'history.jsonl.imported'),
        lines: 8,
        skipped_lines: [7, 8],
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+07:00$/),
      },
      gateways: [
        {
          appid,
          base_url: world.sandbox.info.base_url,
          orders: 2,
          refunds: 2,
          oldest: '2026-03-01T10:00:00+07:00',
          newest: '2026-03-05T17:00:01+07:00',
        },
      ],
      adopted: [{appid, base_url: world.sandbox.info.base_url, orders: 2, refunds: 2}],
    })
    const text = await world.run(['history'], {env: {...env, TZ: 'Asia/Bangkok'}, process: true})
    expect(text.stdout).toContain(`${join(dir, 'history.db')} (`)
    expect(text.stdout).toMatch(
      new RegExp(
        `^${appid}\t${world.sandbox.info.base_url} \\(key [0-9a-f:]+…\\)\t2\t2\t2026-03-01T10:00:00\\+07:00\t2026-03-05T17:00:01\\+07:00$`,
        'm',
      ),
    )
    // Piped, the table is its head line and a tab-separated line per gateway, as gh writes tables for scripts.
    expect(text.stdout).toContain('\nappid\tgateway\torders\trefunds\toldest\tnewest\n')
    expect(text.stdout).not.toContain('│')
  })
})

describe('--limit', () => {
  let two: GwWorld

  beforeAll(async () => {
    two = await startWorld({spawned: false, merchants: [{appid: 'mch51001'}, {appid: 'mch51002'}]})
  })

  afterAll(() => two.close())

  it('keeps the gateways with the newest records, says how many there are, the same in --json', async () => {
    const {dir, env} = two.machine()
    const second = two.sandbox.info.merchants[1]!
    const otherEnv = {...env, GW_APPID: second.appid, GW_PRIVATE_KEY: second.private_key_file}
    expect((await two.run(orderCreate(`LIM-${process.pid}-1`, 'wechat', '1.00'), {env})).code).toBe(0)
    const made = await two.run(orderCreate(`LIM-${process.pid}-2`, 'wechat', '1.00'), {env: otherEnv})
    expect(made.code, made.stderr).toBe(0)

    const limited = await two.run(['history', '--limit', '1'], {env, terminal: 200})
    expect(limited.code, limited.stderr).toBe(0)
    expect(limited.stdout).toContain(`${join(dir, 'history.db')} (`)
    expect(limited.stdout).toMatch(/│ mch51002 +│/)
    expect(limited.stdout).not.toContain('mch51001')
    expect(limited.stdout).toContain('the newest 1 of 2 gateways (--limit 1)')
    const json = (await two.run(['history', '--limit', '1', '--json'], {env})).json<{
      gateways: {appid: string}[]
      gateways_total: number
    }>()
    expect(json.gateways.map((g) => g.appid)).toEqual(['mch51002'])
    expect(json.gateways_total).toBe(2)

    const all = await two.run(['history', '--limit', '2', '--json'], {env})
    expect(all.json<{gateways: {appid: string}[]}>().gateways.map((g) => g.appid)).toEqual(['mch51001', 'mch51002'])
    expect(all.json()).not.toHaveProperty('gateways_total')
    expect((await two.run(['history', '--limit', '0'], {env})).code).toBe(2)
  })
})

describe('the database', () => {
  it('that is not a database: exit 2 saying what to do, never an empty list', async () => {
    const {dir, env} = world.machine([])
    writeFileSync(join(dir, 'history.db'), 'not a database '.repeat(200))
    const listed = await world.run(['order', 'list'], {env})
    expect(listed.code).toBe(2)
    expect(listed.stdout).toBe('')
    expect(listed.stderr).toContain(`${join(dir, 'history.db')} is not a readable gw database`)
    expect(listed.stderr).toContain('Move it aside')
  })
})

describe('a single refund', () => {
  it('imports an earlier history holding lines that are not records (null, wrong types) once, and says so once', async () => {
    const dir = tempDir('gw-odd-history-')
    const env = world.environmentProfile({GW_CONFIG_DIR: dir})
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-ODD')
    try {
      const appid = env.GW_APPID
      const odd = [
        'null',
        '[]',
        `{"type":"order","appid":"${appid}","mch_order_no":{"x":1},"channel":"wechat","total_fee":"ten","fee_type":"THB","at":"then"}`,
        `{"type":"refund","appid":"${appid}","mch_order_no":"${order}","mch_refund_no":"RFX","refund_fee":"NaN","at":"2026-01-01T00:00:00Z"}`,
        `{"type":"order","appid":"${appid}","mch_order_no":"${order}","channel":"wechat","total_fee":10000,"fee_type":"THB","at":"2026-01-01T00:00:00Z"}`,
      ]
      writeFileSync(join(dir, 'history.jsonl'), `${odd.join('\n')}\n`)
      const made = await world.run(['refund', 'create', order!, '--amount', '1.00'], {env})
      expect(made.code, made.stderr).toBe(0)
      expect(made.stderr).toContain('lines 1, 2, 3, 4 are not a record of an order or refund')
      for (const args of [
        ['order', 'list'],
        ['refund', 'list'],
        ['order', 'query', order!],
        ['refund', 'query', order!],
      ]) {
        const result = await world.run(args, {env})
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
        expect(result.stderr).not.toContain('not a record')
        expect(result.stdout).not.toMatch(/NaN|undefined|\[object Object\]/)
      }
      expect((await world.run(['refund', 'list'], {env})).stdout).toContain('1.00 THB')
      // The imported order's channel is known from the history.
      expect((await world.run(['order', 'query', order!], {env})).stdout).toContain('(from local history)')
    } finally {
      removeDir(dir)
    }
  })
})
