// The local history in its database: an earlier history.jsonl imported once, gw history, long
// lists streamed to a file, and a database held by another process or damaged.
import {generateKeyPairSync} from 'node:crypto'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startForwarder} from '../helpers/forwarder.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {tempDir} from '../helpers/shared.js'
import {keyInfo, parsePublicKey} from '../../src/lib/gateway/signing.js'
import {holdDatabase} from '../helpers/sqlite-holder.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

/** An environment profile of the sandbox's merchant, with a config dir of its own holding `jsonl` as history.jsonl. */
function withEarlierHistory(jsonl: string[]) {
  const {dir, env} = world.machine()
  writeFileSync(join(dir, 'history.jsonl'), `${jsonl.join('\n')}\n`)
  return {dir, env}
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
        `${appid} +│ ${world.sandbox.info.base_url} \\(key [0-9a-f:]+…\\) +│ 2 +│ 2 +│ 2026-03-01T10:00:00\\+07:00 │ 2026-03-05T17:00:01\\+07:00`,
      ),
    )
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
  it('held by another program: a refund waits a bounded time, then names the program that holds it; nothing is sent', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'HELD')
    const {dir, env} = withEarlierHistory([])
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

describe('lists, streamed from the history', () => {
  const appid = () => world.sandbox.info.merchants[0]!.appid
  /** Minute `i` of 2026-01-01 (UTC), as gw writes times with TZ=UTC. */
  const minute = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
  const shownAt = (i: number) => minute(i).replace('.000Z', '+00:00')
  const orderLine = (mch: string, i: number, channel = 'wechat', state?: string) =>
    JSON.stringify({
      type: 'order',
      appid: appid(),
      mch_order_no: mch,
      channel,
      total_fee: 1000,
      fee_type: 'THB',
      at: minute(i),
      ...(state ? {state, state_at: minute(i)} : {}),
    })

  it('of 2,400 orders: the text shows the first 1,000 and how many match; --json is the same document as before; untrusted text made visible', async () => {
    // Odd ones alipay; all but every fourth with a state (the others of an earlier version, without).
    const channel = (i: number) => (i % 2 ? 'alipay' : 'wechat')
    const state = (i: number) => (i % 4 ? 'SUCCESS' : undefined)
    const {env} = withEarlierHistory([
      ...Array.from({length: 2400}, (_, i) => orderLine(`LONG-${i}`, i, channel(i), state(i))),
      `{"type":"refund","appid":"${appid()}","mch_order_no":"LONG-0","mch_refund_no":"RF-ESC","refund_fee":100,"fee_type":"THB","status":"refunded","source":"\\u001b[2J\\u001b[31mrefunds.csv","at":"${minute(3000)}"}`,
    ])
    const utc = {...env, TZ: 'UTC'}
    const text = await world.run(['order', 'list'], {env: utc, process: true})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(
      'the first 1000 of 2400 orders shown (all of them with --out FILE.csv or FILE.xlsx, or --json)',
    )
    expect(text.stdout).toContain('LONG-2399 ')
    expect(text.stdout).toContain('LONG-1400 ')
    expect(text.stdout).not.toContain('LONG-1399 ')
    // How many match, counted by the history: by state, by channel.
    for (const [flags, count] of [
      [['--state', 'SUCCESS'], 1800],
      [['--channel', 'alipay'], 1200],
    ] as const) {
      const matching = await world.run(['order', 'list', ...flags], {env: utc, process: true})
      expect(matching.stdout).toContain(`the first 1000 of ${count} orders shown`)
    }

    const json = await world.run(['order', 'list', '--json'], {env: utc, process: true})
    expect(json.code, json.stderr).toBe(0)
    // Byte for byte the document gw wrote when it held the whole list: JSON.stringify(document, null, 2).
    const orders = Array.from({length: 2400}, (_, k) => {
      const i = 2399 - k
      return {
        made_at: shownAt(i),
        mch_order_no: `LONG-${i}`,
        channel: channel(i),
        total_fee: 1000,
        total_amount: '10.00',
        fee_type: 'THB',
        // LONG-0 was refunded (RF-ESC): REFUND since.
        ...(i === 0
          ? {state: 'REFUND', state_at: shownAt(3000)}
          : state(i)
            ? {state: state(i), state_at: shownAt(i)}
            : {}),
      }
    })
    expect(json.stdout).toBe(`${JSON.stringify({orders}, null, 2)}\n`)

    const refunds = await world.run(['refund', 'list'], {env: utc, process: true})
    expect(refunds.code, refunds.stderr).toBe(0)
    expect(refunds.stdout).toContain('\\x1B[2J\\x1B[31mrefunds.csv')
    expect(refunds.stdout).not.toContain('\u001b')
    expect(refunds.stdout).toContain('1 refund')
  })

  it('--refresh asks about each order as it is listed, keeps the list order, filters --state after; a failure is said, the document whole', async () => {
    const paid = await world.paidOrders(300, 1000, 'STREAM')
    // The history knows them NOTPAY (as made), and three orders on a channel without an order query.
    const {env} = withEarlierHistory([
      ...paid.map((mch, i) => orderLine(mch, i, 'wechat', 'NOTPAY')),
      ...[0, 1, 2].map((i) => orderLine(`SCB-${i}`, 400 + i, 'scb_qrcard', 'NOTPAY')),
    ])
    type Listed = {mch_order_no: string; state: string; refresh_skipped?: string; refresh_failed?: string}
    const numbers = (result: {json: <T>() => T}) => result.json<{orders: Listed[]}>().orders.map((o) => o.mch_order_no)
    const known = await world.run(['order', 'list', '--json'], {env})
    const newestFirst = ['SCB-2', 'SCB-1', 'SCB-0', ...[...paid].reverse()]
    expect(numbers(known)).toEqual(newestFirst)

    const before = await world.requests()
    const refreshed = await world.run(['order', 'list', '--refresh', '--json'], {env})
    expect(refreshed.code, refreshed.stderr).toBe(0)
    const listed = refreshed.json<{orders: Listed[]}>().orders
    expect(listed.map((o) => o.mch_order_no)).toEqual(newestFirst)
    expect(listed.slice(3).every((o) => o.state === 'SUCCESS' && !o.refresh_failed)).toBe(true)
    expect(listed.slice(0, 3)).toEqual(
      [2, 1, 0].map((i) =>
        expect.objectContaining({
          mch_order_no: `SCB-${i}`,
          state: 'NOTPAY',
          refresh_skipped: 'scb_qrcard has no order query',
        }),
      ),
    )
    expect(refreshed.stderr).toContain('3 of 303 orders keep the state gw knew')
    expect((await world.requests()).order_query! - (before.order_query ?? 0)).toBe(300)
    // The new states are kept: a list without --refresh shows them.
    expect(numbers(await world.run(['order', 'list', '--state', 'SUCCESS', '--json'], {env}))).toHaveLength(300)

    const notPaid = await world.run(['order', 'list', '--state', 'NOTPAY', '--refresh'], {env})
    expect(notPaid.code, notPaid.stderr).toBe(0)
    expect(notPaid.stdout).toContain('NOTPAY (as known: scb_qrcard has no order query)')
    expect(notPaid.stdout).toContain('3 orders')
    expect(notPaid.stdout).not.toContain('STREAM-')

    // With the gateway down: the two asked first are tried again before they count as failed; the
    // eighteen after are not asked (the gateway could not be reached), each saying so.
    const few = withEarlierHistory(paid.slice(0, 20).map((mch, i) => orderLine(mch, i, 'wechat', 'NOTPAY')))
    const down = {...few.env, GW_BASE_URL: 'http://127.0.0.1:9/Gateway'}
    const failed = await world.run(['order', 'list', '--refresh', '--json', '--timeout', '1', '--concurrency', '2'], {
      env: down,
    })
    expect(failed.code, failed.stderr).toBe(3)
    const unrefreshed = failed.json<{orders: Listed[]}>().orders
    expect(unrefreshed.map((o) => o.mch_order_no)).toEqual(paid.slice(0, 20).reverse())
    expect(unrefreshed.every((o) => o.state === 'NOTPAY' && o.refresh_failed?.includes('nothing is listening'))).toBe(
      true,
    )
    const notAsked = unrefreshed.filter((o) =>
      o.refresh_failed?.startsWith('not asked: the gateway could not be reached'),
    )
    expect(notAsked).toHaveLength(18)
    expect(failed.stderr).toMatch(/warning: 20 of 20 orders could not be refreshed \(nothing is listening/)
  }, 60_000)

  it("--refresh: one order the gateway fails (HTTP 503 after every try) is that order's failure; the orders after it are still asked", async () => {
    const paid = await world.paidOrders(6, 1000, 'ONE503')
    const {env} = withEarlierHistory(paid.map((mch, i) => orderLine(mch, i, 'wechat', 'NOTPAY')))
    const sick = paid[4]!
    // In front of the sandbox: every query about `sick` answered HTTP 503, the rest passed on.
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', async () => {
        const body = Buffer.concat(chunks)
        if (new URLSearchParams(body.toString()).get('mch_order_no') === sick) return void res.writeHead(503).end()
        const answer = await fetch(`${world.sandbox.info.base_url}${req.url!.replace(/^\/Gateway/, '')}`, {
          method: 'POST',
          headers: {'content-type': req.headers['content-type'] ?? ''},
          body,
        })
        res.writeHead(answer.status, {'content-type': 'application/json'}).end(await answer.text())
      })
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const via = {...env, GW_BASE_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/Gateway`}
      const listed = await world.run(['order', 'list', '--refresh', '--json', '--concurrency', '1'], {env: via})
      expect(listed.code, listed.stderr).toBe(3)
      const orders = listed.json<{orders: {mch_order_no: string; state: string; refresh_failed?: string}[]}>().orders
      expect(orders.map((o) => o.mch_order_no)).toEqual([...paid].reverse())
      expect(orders.map((o) => [o.state, o.refresh_failed?.replace(/ \(.*/, '')])).toEqual([
        ['SUCCESS', undefined],
        ['NOTPAY', 'the gateway answered HTTP 503'],
        ['SUCCESS', undefined],
        ['SUCCESS', undefined],
        ['SUCCESS', undefined],
        ['SUCCESS', undefined],
      ])
      expect(listed.stderr).toMatch(/warning: 1 of 6 orders could not be refreshed \(the gateway answered HTTP 503/)
    } finally {
      proxy.closeAllConnections()
      await new Promise((resolve) => proxy.close(resolve))
    }
  }, 60_000)

  it('Ctrl-C during --refresh --json ends the list where it is: one document, the orders listed so far, exit 130', async () => {
    const paid = await world.paidOrders(40, 1000, 'STOPPED')
    const {env} = withEarlierHistory(paid.map((mch, i) => orderLine(mch, i, 'wechat', 'NOTPAY')))
    const result = await world.interrupted(
      ['order', 'list', '--refresh', '--json', '--concurrency', '2'],
      {operation: 'order_query', count: 4},
      {env},
    )
    expect(result.code, result.stderr).toBe(130)
    const document = result.json<{orders: {mch_order_no: string; state: string}[]; stopped_by: string}>()
    expect(document.stopped_by).toBe('SIGINT')
    const listed = document.orders.map((o) => o.mch_order_no)
    expect(listed.length).toBeGreaterThan(0)
    expect(listed.length).toBeLessThan(40)
    expect(listed).toEqual([...paid].reverse().slice(0, listed.length))
    expect(document.orders.every((o) => o.state === 'SUCCESS')).toBe(true)
    expect(result.stderr).toContain('Stopping: the list ends with the orders read so far.')
  }, 60_000)

  it('refund list --refresh asks once per order for the refunds listed near each other, in list order; --state after', async () => {
    const [first, second] = await world.paidOrders(2, 10_000, 'RSTREAM')
    // The gateway behind an address the test can take down, the same gateway all along.
    const gateway = await startForwarder(world.sandbox.info.base_url)
    // A refund the gateway never saw, recorded on the first order: absent once asked.
    const earlier = withEarlierHistory([
      orderLine(first!, 0, 'wechat', 'SUCCESS'),
      orderLine(second!, 1, 'wechat', 'SUCCESS'),
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
        .map((order, i) => `{"gateway":${JSON.stringify(made)},${orderLine(order, i, 'wechat', 'SUCCESS').slice(1)}`)
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

describe('records committed together', () => {
  it('gw order create, which asks the history nothing, leaves its order in the next order list', async () => {
    const {env} = withEarlierHistory([])
    const args = [
      '--channel',
      'wechat',
      '--amount',
      '1.00',
      '--fee-type',
      'THB',
      '--mch-order-no',
      'FIRST-1',
      '--no-qr',
    ]
    const made = await world.run(['order', 'create', ...args], {env})
    expect(made.code, made.stderr).toBe(0)
    const listed = await world.run(['order', 'list', '--json'], {env})
    expect(listed.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual(['FIRST-1'])
  })
})

describe("a bulk run's refunds in the history", () => {
  it('killed with SIGKILL mid-run and resumed: refund list shows every row refunded once, as the ledger does', async () => {
    const {dir, env} = withEarlierHistory([])
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
  }, 120_000)
})
