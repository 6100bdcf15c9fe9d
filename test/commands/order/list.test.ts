/** gw order list: the orders this machine knows, streamed from the history, filtered; --refresh asks the gateway. */
import {readFileSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startForwarder} from '../../helpers/forwarder.js'
import {type GwWorld, minute, orderCreate, startWorld} from '../../helpers/gw-env.js'
import {ONE_FORM} from '../../helpers/shared.js'

let world: GwWorld

type Listed = {mch_order_no: string; total_amount: string; openid?: string}

const listed = async (args: string[], env?: Record<string, string>) => {
  const run = await world.run(['order', 'list', ...args, '--json'], {env})
  expect(run.code, run.stderr).toBe(0)
  return run.json<{orders: Listed[]}>().orders
}

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('an earlier history.jsonl', () => {
  it('of 250 orders lists them all to --out as read, showing the first 200 on stdout', async () => {
    const appid = world.sandbox.info.merchants[0]!.appid
    const {dir, env} = world.machine(
      Array.from(
        {length: 250},
        (_, i) =>
          `{"type":"order","appid":"${appid}","mch_order_no":"MANY-${i}","channel":"wechat","total_fee":100,"fee_type":"THB","at":"${minute(i)}"}`,
      ),
    )
    const out = join(dir, 'all.csv')
    const listed = await world.run(['order', 'list', '--out', out], {env})
    expect(listed.code, listed.stderr).toBe(0)
    // stdout is a pipe here: a line per order, the count on stderr.
    expect(listed.stderr).toContain('the first 200 of 250 orders shown (all in the file)')
    expect(listed.stdout.split('\n')[0]).toMatch(/^\S+\tMANY-249\t1\.00 THB\twechat\t/)
    expect(listed.stdout.trim().split('\n')).toHaveLength(200)
    expect(listed.stdout).not.toContain('MANY-49\t')
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(251)
    expect(lines[1]).toContain('MANY-249')
    expect(lines[250]).toContain('MANY-0,')
  })
})

describe('lists, streamed from the history', () => {
  const appid = () => world.sandbox.info.merchants[0]!.appid

  const shownAt = (i: number) => minute(i).replace('.000Z', '+00:00')

  it('of 2,400 orders: the text shows the first 1,000 and how many match; --json is the same document as before; untrusted text made visible', async () => {
    // Odd ones alipay; all but every fourth with a state (the others of an earlier version, without).
    const channel = (i: number) => (i % 2 ? 'alipay' : 'wechat')
    const state = (i: number) => (i % 4 ? 'SUCCESS' : undefined)
    const {env} = world.machine([
      ...Array.from({length: 2400}, (_, i) => world.orderLine(`LONG-${i}`, i, channel(i), state(i))),
      `{"type":"refund","appid":"${appid()}","mch_order_no":"LONG-0","mch_refund_no":"RF-ESC","refund_fee":100,"fee_type":"THB","status":"refunded","source":"\\u001b[2J\\u001b[31mrefunds.csv","at":"${minute(3000)}"}`,
    ])
    const utc = {...env, TZ: 'UTC'}
    const text = await world.run(['order', 'list'], {env: utc, process: true})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stderr).toContain(
      'the first 1000 of 2400 orders shown (all of them with --out FILE.csv or FILE.xlsx, or --json)',
    )
    expect(text.stdout).toContain('\tLONG-2399\t')
    expect(text.stdout).toContain('\tLONG-1400\t')
    expect(text.stdout).not.toContain('\tLONG-1399\t')
    // How many match, counted by the history: by state, by channel.
    for (const [flags, count] of [
      [['--state', 'SUCCESS'], 1800],
      [['--channel', 'alipay'], 1200],
    ] as const) {
      const matching = await world.run(['order', 'list', ...flags], {env: utc, process: true})
      expect(matching.stderr).toContain(`the first 1000 of ${count} orders shown`)
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
    // All of them shown, piped: a line each, and no count.
    expect(refunds.stdout.trim().split('\n')).toHaveLength(1)
    expect(refunds.stderr).not.toContain('1 refund')
  })

  it('--refresh asks about each order as it is listed, keeps the list order, filters --state after; a failure is said, the document whole', async () => {
    const paid = await world.paidOrders(300, 1000, 'STREAM')
    // The history knows them NOTPAY (as made), and three orders on a channel without an order query.
    const {env} = world.machine([
      ...paid.map((mch, i) => world.orderLine(mch, i, 'wechat', 'NOTPAY')),
      ...[0, 1, 2].map((i) => world.orderLine(`SCB-${i}`, 400 + i, 'scb_qrcard', 'NOTPAY')),
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

    const notPaid = await world.run(['order', 'list', '--state', 'NOTPAY', '--refresh'], {env, terminal: 200})
    expect(notPaid.code, notPaid.stderr).toBe(0)
    expect(notPaid.stdout).toContain('NOTPAY (as known: scb_qrcard has no order query)')
    expect(notPaid.stdout).toContain('3 orders')
    expect(notPaid.stdout).not.toContain('STREAM-')

    // With the gateway down: the two asked first are tried again before they count as failed; the
    // eighteen after are not asked (the gateway could not be reached), each saying so.
    const few = world.machine(paid.slice(0, 20).map((mch, i) => world.orderLine(mch, i, 'wechat', 'NOTPAY')))
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
  })

  it("--refresh: one order the gateway fails (HTTP 503 after every try) is that order's failure; the orders after it are still asked", async () => {
    const paid = await world.paidOrders(6, 1000, 'ONE503')
    const {env} = world.machine(paid.map((mch, i) => world.orderLine(mch, i, 'wechat', 'NOTPAY')))
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
  })

  it('Ctrl-C during --refresh --json ends the list where it is: one document, the orders listed so far, exit 130', async () => {
    const paid = await world.paidOrders(40, 1000, 'STOPPED')
    const {env} = world.machine(paid.map((mch, i) => world.orderLine(mch, i, 'wechat', 'NOTPAY')))
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
  })
})

describe('what did we do today: order list and refund list', () => {
  it('--refresh with the gateway down lists what it knew, marked, warns, and exits 3', async () => {
    const made = orderCreate('DOWN-1', 'wechat', '100.00')
    const gateway = await startForwarder(world.sandbox.info.base_url)
    const viaGateway = world.environmentProfile({GW_BASE_URL: gateway.baseUrl})
    const created = await world.run(made, {env: viaGateway})
    expect(created.code, created.stderr).toBe(0)
    await world.pay('DOWN-1')
    expect(
      (await world.run(['refund', 'create', 'DOWN-1', '--amount', '10.00', '--yes'], {env: viaGateway})).code,
    ).toBe(0)
    // The same gateway, at an address the test takes down: nothing listens there any more.
    await gateway.down()
    for (const what of ['order', 'refund']) {
      const listed = await world.run([what, 'list', '--since', '10m', '--refresh', '--timeout', '1'], {env: viaGateway})
      expect(listed.code, listed.stdout + listed.stderr).toBe(3)
      expect(listed.stdout).toContain('(not refreshed)')
      expect(listed.stderr).toMatch(
        new RegExp(`warning: \\d+ of \\d+ ${what}s could not be refreshed \\(nothing is listening`),
      )
    }
  })

  it('lists the orders made here, newest first, filtered by time, channel and state; --refresh asks the gateway', async () => {
    const make = async (channel: string) => {
      const created = await world.run([...orderCreate(undefined, channel, '2.50'), '--json'])
      return created.json<{order: {mch_order_no: string}}>().order.mch_order_no
    }
    const first = await make('wechat')
    const second = await make('alipay')
    await world.pay(first)
    const all = await world.run(['order', 'list', '--since', '10m', '--json'])
    const listed = all.json<{orders: {mch_order_no: string; state: string; made_at: string}[]}>().orders
    expect(listed.slice(0, 2).map((o) => o.mch_order_no)).toEqual([second, first])
    expect(listed[0]!.made_at).toMatch(ONE_FORM)
    // Paid through the sandbox, not through gw: gw last knew it unpaid, until it asks.
    expect(listed.find((o) => o.mch_order_no === first)!.state).toBe('NOTPAY')
    const refreshed = await world.run(['order', 'list', '--since', '10m', '--state', 'success', '--refresh', '--json'])
    expect(refreshed.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual([first])
    // What --refresh learned is kept.
    const after = await world.run(['order', 'list', '--since', '10m', '--state', 'SUCCESS'], {terminal: 200})
    expect(after.stdout).toContain(first)
    expect(after.stdout).toMatch(/\n1 order\n$/)
    const alipay = await world.run(['order', 'list', '--channel', 'AliPay', '--since', '10m', '--json'])
    expect(alipay.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual([second])
    const none = await world.run(['order', 'list', '--until', '2000-01-01'])
    // Piped, a list of none leaves stdout empty, and says so on stderr.
    expect(none.stdout).toBe('')
    expect(none.stderr).toContain('No orders made on this machine for')
    const bad = await world.run(['order', 'list', '--since', 'last tuesday'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--since last tuesday is not a time gw reads')
  })
})

describe('gw order list', () => {
  it('shows who paid: a payer column, openid in --json, and --payer takes what --json gives', async () => {
    await world.createOrder('OL-PAYER', 'wechat', '61.25')
    await world.pay('OL-PAYER')
    const queried = await world.run(['order', 'query', 'OL-PAYER', '--json'])
    const {openid} = queried.json<{record: {openid: string}}>().record

    const [order] = await listed(['--amount', '61.25'])
    expect(order).toMatchObject({mch_order_no: 'OL-PAYER', total_amount: '61.25', openid})
    expect((await listed(['--payer', order!.openid!])).map((o) => o.mch_order_no)).toEqual(['OL-PAYER'])

    const text = await world.run(['order', 'list', '--amount', '61.25'], {terminal: 200})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/│ gateway order +│ payer +│/)
    expect(text.stdout).toMatch(new RegExp(`│ OL-PAYER .*│ \\d+ +│ ${openid} +│`))
    expect(text.stdout).not.toContain('are shortened')
  })

  it('lists an order gw refunded under REFUND, single or bulk, and its timeline says REFUND: paid, and at least one refund succeeded, as of the refund', async () => {
    for (const mch of ['OL-REFUNDED', 'OL-BULK', 'OL-PAID']) {
      await world.createOrder(mch, 'wechat', '84.87')
      await world.pay(mch)
      expect((await world.run(['order', 'query', mch])).code).toBe(0)
    }
    const single = await world.run(['refund', 'create', 'OL-REFUNDED', '--amount', '50.00'])
    expect(single.code, single.stderr).toBe(0)
    const csv = world.file('ol-bulk.csv', 'mch_order_no,refund_amount\nOL-BULK,84.87\n')
    const bulk = await world.bulk(csv)
    expect(bulk.code, bulk.stderr).toBe(0)

    const states = async (state: string) =>
      (await listed(['--amount', '84.87', '--state', state])).map((o) => o.mch_order_no).sort()
    expect(await states('REFUND')).toEqual(['OL-BULK', 'OL-REFUNDED'])
    expect(await states('SUCCESS')).toEqual(['OL-PAID'])
    const timeline = await world.run(['order', 'timeline', 'OL-REFUNDED'])
    expect(timeline.code, timeline.stderr).toBe(0)
    expect(timeline.stdout.split('\n')[0]).toMatch(/REFUND: paid, and at least one refund succeeded, as of /)
    expect(timeline.stdout).not.toContain('SUCCESS: paid, as of')
  })

  it('--limit keeps the newest so many on the screen, in --json and in --out alike, and says how many match', async () => {
    for (const mch of ['OL-LIMIT-1', 'OL-LIMIT-2', 'OL-LIMIT-3']) {
      await world.createOrder(mch, 'wechat', '7.31')
    }
    const text = await world.run(['order', 'list', '--amount', '7.31', '--limit', '2'], {terminal: 200})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('the newest 2 of 3 orders (--limit 2)')
    expect(text.stdout).toContain('OL-LIMIT-3 ')
    expect(text.stdout).not.toContain('OL-LIMIT-1 ')
    expect((await listed(['--amount', '7.31', '--limit', '2'])).map((o) => o.mch_order_no)).toEqual([
      'OL-LIMIT-3',
      'OL-LIMIT-2',
    ])
    const out = join(world.configDir, 'limited.csv')
    expect((await world.run(['order', 'list', '--amount', '7.31', '--limit', '1', '--out', out])).code).toBe(0)
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain('OL-LIMIT-3')
    // With --refresh, only the newest so many are asked about.
    const before = (await world.requests()).order_query ?? 0
    const refreshed = await listed(['--amount', '7.31', '--limit', '1', '--refresh'])
    expect(refreshed.map((o) => o.mch_order_no)).toEqual(['OL-LIMIT-3'])
    expect((await world.requests()).order_query).toBe(before + 1)
    const refunds = await world.run(['refund', 'list', '--limit', '0'])
    expect(refunds.code).toBe(2)
  })

  it("shortens a long openid to its first and last characters, says so, and never lets the gateway's text reach the terminal raw", async () => {
    const {dir, env} = world.machine()
    const long = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o'
    const hostile = 'u_\u001b[2J\u001b]0;owned\u0007'
    const line = (mch: string, openid: string) =>
      JSON.stringify({
        type: 'order',
        appid: world.sandbox.info.merchants[0]!.appid,
        at: '2026-03-01T10:00:00Z',
        mch_order_no: mch,
        channel: 'wechat',
        total_fee: 4200,
        fee_type: 'THB',
        state: 'SUCCESS',
        openid,
      })
    writeFileSync(join(dir, 'history.jsonl'), [line('OL-LONG', long), line('OL-HOSTILE', hostile)].join('\n'))

    const text = await world.run(['order', 'list', '--amount', '42.00'], {env, terminal: 200})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/│ OL-LONG .*│ oUpF8uMu…eS6o +│/)
    expect(text.stdout).toContain(
      'payer: openids longer than 16 characters show their first 8 and last 4 (whole in --json and --out, for --payer).',
    )
    // A terminal too narrow for the payer column leaves it out, and the footnote about it with it.
    const narrow = await world.run(['order', 'list', '--amount', '42.00'], {env, terminal: 100})
    expect(narrow.stdout).toMatch(/\(left out to fit: payer[,;]/)
    expect(narrow.stdout).not.toContain('openids longer than')
    // eslint-disable-next-line no-control-regex -- the escape and bell characters are what must not be there
    expect(text.stdout).not.toMatch(/\u001b|\u0007/)
    expect(text.stdout).toMatch(/│ OL-HOSTILE .*│ u_\\x1B\[2…\\x07 +│/)
    const json = await listed(['--payer', long], env)
    expect(json).toEqual([expect.objectContaining({mch_order_no: 'OL-LONG', openid: long})])
    // Piped, the payer is whole (cut -f8 gives what --payer takes), and still shown safely.
    const piped = await world.run(['order', 'list', '--amount', '42.00'], {env})
    expect(piped.stdout.split('\n').map((line) => line.split('\t')[7])).toContain(long)
    expect(piped.stdout).toContain('u_\\x1B[2J\\x1B]0;owned\\x07')
    expect(piped.stderr).not.toContain('openids longer than')
  })
})

describe('lists', () => {
  it('order list follows a payment the listener verified, with no query, and says as of when', async () => {
    await world.paidWhileListening('ASOF-1', '12.00')
    await sleep(200)
    const listed = await world.run(['order', 'list', '--amount', '12.00'], {terminal: 200})
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(/│ state +│ as of +│/)
    expect(listed.stdout).toMatch(
      /│ ASOF-1 +│ 12\.00 THB +│ wechat +│ SUCCESS +│ \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2} │/,
    )
  })

  it("by amount and by payer: orders, and refunds of the payer's orders", async () => {
    await world.paidWhileListening('PAYER-1', '33.00')
    const queried = await world.run(['order', 'query', 'PAYER-1', '--json'])
    const payer = queried.json<{record: {openid: string}}>().record.openid
    expect((await world.run(['refund', 'create', 'PAYER-1', '--amount', '3.30'])).code).toBe(0)
    const byPayer = await world.run(['order', 'list', '--payer', payer, '--json'])
    expect(byPayer.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual(['PAYER-1'])
    const byAmount = await world.run(['order', 'list', '--amount', '฿33.00', '--json'])
    expect(byAmount.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual(['PAYER-1'])
    const refunds = await world.run(['refund', 'list', '--payer', payer, '--amount', '3.30', '--json'])
    expect(refunds.json<{refunds: {mch_order_no: string}[]}>().refunds.map((r) => r.mch_order_no)).toEqual(['PAYER-1'])
    const none = await world.run(['order', 'list', '--amount', '33.01', '--json'])
    expect(none.json<{orders: unknown[]}>().orders).toEqual([])
    const bad = await world.run(['order', 'list', '--amount', '1.5', '--json'])
    expect(bad.json<{orders: unknown[]}>().orders).toEqual([])
    const refused = await world.run(['order', 'list', '--amount', 'twelve'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--amount: "twelve" is not an amount')
  })
})
