/**
 * gw order query: an order by any of its numbers, its channel found, its state in words; the exit codes of
 * what the gateway answers.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {isoTimeIn} from '../../../src/lib/gateway/protocol/index.js'
import {startGatheringProxy} from '../../helpers/gathering-proxy.js'
import {type GwWorld, orderCreate, orderNo, startWorld} from '../../helpers/gw-env.js'
import {startReceiver, waitFor} from '../../helpers/receiver.js'
import {startReplayingProxy} from '../../helpers/replaying-proxy.js'
import {removeDir, tempDir} from '../../helpers/shared.js'

let world: GwWorld

type Found = {record: {mch_order_no: string; gw_order_no: string; channel_order_no: string}; number_is: string}

/** An order made and paid here, with a refund of 20.00 THB made by gw: its numbers and the refund's. */
async function refundedHere(order: string) {
  await world.createOrder(order, 'wechat', '100.00')
  await world.pay(order)
  const refunded = await world.run(['refund', 'create', order, '--amount', '20.00', '--json'])
  expect(refunded.code, refunded.stderr).toBe(0)
  const {mch_refund_no, gw_refund_no} = refunded.json<{mch_refund_no: string; gw_refund_no: string}>()
  const {record} = (await world.run(['order', 'query', order, '--json'])).json<Found>()
  return {...record, mch_refund_no, gw_refund_no}
}

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('gw order query and close', () => {
  it('shows an order by merchant or gateway number, state in words', async () => {
    const mch = await world.createPaid()
    const result = await world.run(['order', 'query', mch])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/state: +SUCCESS: paid/)
    expect(result.stdout).toMatch(/channel: +wechat \(from local history\)/)
    const json = (await world.run(['order', 'query', mch, '--json'])).json<{
      record: {gw_order_no: string; total_fee: number}
      channel: string
    }>()
    expect(json).toMatchObject({channel: 'wechat', record: {total_fee: 15050}})
    const byGateway = await world.run([
      'order',
      'query',
      '--gw-order-no',
      json.record.gw_order_no,
      '--channel',
      'wechat',
    ])
    expect(byGateway.stdout).toContain(mch)
  })

  it('finds the channel by trying each in turn when there is no history, and says which', async () => {
    const mch = await world.createPaid('12.00', 'truemoney')
    const fresh = tempDir('gw-fresh-')
    try {
      const env = world.environmentProfile({GW_CONFIG_DIR: fresh})
      const result = await world.run(['order', 'query', mch], {env})
      expect(result.code).toBe(0)
      expect(result.stderr).toContain('found on channel truemoney')
      expect(result.stdout).toMatch(/amount: +12\.00 THB/)
    } finally {
      removeDir(fresh)
    }
  })

  it('says when no channel knows the order, exit 1', async () => {
    const result = await world.run(['order', 'query', 'NO-SUCH-ORDER'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'No order has the number "NO-SUCH-ORDER": this machine\'s history does not know it, and no channel knows it as a merchant order number',
    )
  })
})

describe('retries never duplicate money', () => {
  it('an envelope code that stays non-zero is retried a bounded number of times, then exit 3', async () => {
    const mch = await world.createPaid()
    await world.underFaults('code-nonzero=1@order_query', async () => {
      const result = await world.run(['order', 'query', mch, '--channel', 'wechat'])
      expect(result.code).toBe(3)
      expect(result.stderr).toContain(
        'the gateway answered code 1 ("system busy; send the same parameters again"): the call was not processed (4 attempts)',
      )
    })
  })
})

describe('exit codes', () => {
  it('3 when nothing listens at the base URL, also under --json', async () => {
    const env = world.environmentProfile({GW_BASE_URL: 'http://127.0.0.1:9/Gateway'})
    const text = await world.run(['order', 'query', 'X1', '--channel', 'wechat'], {env})
    expect(text.code).toBe(3)
    expect(text.stderr).toContain('nothing is listening at http://127.0.0.1:9/Gateway/order_query (connection refused)')
    const json = await world.run(['order', 'query', 'X1', '--channel', 'wechat', '--json'], {env})
    expect(json.code).toBe(3)
    expect(json.json()).toMatchObject({error: {kind: 'transport', exit_code: 3}})
  })

  it('4 when the answer signature does not verify, and nothing of it is shown', async () => {
    const mch = await world.createPaid()
    await world.underFaults('bad-signature=1', async () => {
      const result = await world.run(['order', 'query', mch, '--json'])
      expect(result.code).toBe(4)
      expect(result.json()).toMatchObject({error: {kind: 'signature', exit_code: 4}})
      expect(result.stdout).not.toContain('SUCCESS')
    })
  })

  it('5 when the gateway stays NOTSURE', async () => {
    const mch = await world.createPaid()
    await world.underFaults('notsure=1@order_query', async () => {
      const result = await world.run(['order', 'query', mch])
      expect(result.code).toBe(5)
      expect(result.stderr).toContain('the outcome is not known')
    })
  })
})

describe('gw order query by any number of the order', () => {
  it("finds the order by a refund number this machine made, gw's or the gateway's, and says what the number is", async () => {
    const made = await refundedHere('OQ-REFUND')
    for (const [number, kind, words] of [
      [made.mch_refund_no, 'mch_refund_no', 'a refund number'],
      [made.gw_refund_no, 'gw_refund_no', "the gateway's refund number"],
      [made.gw_order_no, 'gw_order_no', "the gateway's order number"],
      [made.channel_order_no, 'channel_order_no', "the channel's order number"],
    ]) {
      const found = await world.run(['order', 'query', number!])
      expect(found.code, found.stderr).toBe(0)
      expect(found.stderr).toContain(`${number} is ${words} of order OQ-REFUND.`)
      expect(found.stdout).toMatch(/order: +OQ-REFUND/)
      expect(found.stdout).toMatch(/channel: +wechat \(from local history\)/)
      const json = await world.run(['order', 'query', number!, '--json'])
      expect(json.json<Found>()).toMatchObject({number_is: kind, record: {mch_order_no: 'OQ-REFUND'}})
    }
    // The merchant's own number says nothing more.
    const own = await world.run(['order', 'query', 'OQ-REFUND'])
    expect(own.stderr).not.toContain(' is ')
  })

  it('gw order timeline and gw refund query take the refund number too; refund query asks with that refund', async () => {
    const made = await refundedHere('OQ-STORY')
    for (const number of [made.mch_refund_no, made.gw_refund_no]) {
      const told = await world.run(['order', 'timeline', number])
      expect(told.code, told.stderr).toBe(0)
      expect(told.stdout).toMatch(/^Order OQ-STORY \(/)
      expect(told.stdout).toContain(`refund     ${made.mch_refund_no} of 20.00 THB: refunded`)
      const asked = await world.run(['refund', 'query', number, '--json'])
      expect(asked.code, asked.stderr).toBe(0)
      expect(asked.json<{mch_refund_no: string; order: {mch_order_no: string}}>()).toMatchObject({
        mch_refund_no: made.mch_refund_no,
        order: {mch_order_no: 'OQ-STORY'},
      })
    }
    const byGateway = await world.run(['order', 'timeline', made.gw_refund_no])
    expect(byGateway.stdout).toContain("Found by its gateway's refund number.")
  })

  it("on a desk that never saw the order: a channel's number is asked as each of the order's numbers, a refund's is said to need the order's", async () => {
    const made = await refundedHere('OQ-ELSEWHERE')
    const {env} = world.machine()
    const receipt = await world.run(['order', 'query', made.channel_order_no], {env})
    expect(receipt.code, receipt.stderr).toBe(0)
    expect(receipt.stderr).toContain('found on channel wechat')
    expect(receipt.stderr).toContain(`${made.channel_order_no} is the channel's order number of order OQ-ELSEWHERE.`)

    for (const number of [made.mch_refund_no, made.gw_refund_no]) {
      const refund = await world.run(['refund', 'query', number], {env})
      expect(refund.code).toBe(1)
      expect(refund.stderr).toContain(`No order has the number "${number}": this machine's history does not know it`)
      expect(refund.stderr).toContain(
        "the gateway answers for refunds only when asked by the order's number and one of its merchant refund numbers (the merchant platform shows both), as in gw refund query ORDER --mch-refund-no REFUND_NO",
      )
    }
    // As the advice says, by the order's number: the refund is there.
    const asked = await world.run(['refund', 'query', 'OQ-ELSEWHERE', '--mch-refund-no', made.mch_refund_no], {env})
    expect(asked.code, asked.stderr).toBe(0)
    expect(asked.stdout).toContain(made.gw_refund_no)
  })

  it('a number two orders answer to is said, with both, and neither is chosen', async () => {
    // One order's merchant number is another's channel number: the gateway answers for both.
    const [other] = await world.paidOrders(1, 5_000, 'OQ-TWIN')
    const {env} = world.machine()
    const {record} = (await world.run(['order', 'query', other!, '--json'], {env})).json<Found>()
    expect((await world.run(orderCreate(record.channel_order_no, 'wechat', '3.00'), {env})).code).toBe(0)
    const twice = await world.run(['order', 'query', record.channel_order_no], {env: world.machine().env})
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain('The gateway answered for more than one order: ')
    expect(twice.stderr).toContain(`order ${record.channel_order_no} (gateway order `)
    expect(twice.stderr).toContain(
      `as its merchant order number; order ${other} (gateway order ${record.gw_order_no}) on wechat, as its channel order number`,
    )
    expect(twice.stderr).toContain('gw does not choose between them.')
  })
})

describe('an order this machine does not know, asked of the gateway', () => {
  it('asks every channel at once, not one after another', async () => {
    const [order] = await world.paidOrders(1, 5_000, 'OQ-ATONCE', 'truemoney')
    // Seven channels take order queries: the proxy passes them on only once all seven wait together.
    const proxy = await startGatheringProxy(world.sandbox.info.base_url, 'order_query', 7)
    try {
      const env = world.environmentProfile({GW_BASE_URL: proxy.baseUrl, GW_CONFIG_DIR: world.machine().dir})
      const found = await world.run(['order', 'query', order!, '--timeout', '60'], {env})
      expect(found.code, found.stderr).toBe(0)
      expect(found.stderr).toContain('found on channel truemoney')
      expect(proxy.mostTogether).toBe(7)
    } finally {
      await proxy.close()
    }
  })

  it('in a run of many orders, the channel found first is asked first: seven queries for the first order, one for each after', async () => {
    const orders = await world.paidOrders(10, 5_000, 'OQ-BATCH')
    const {dir, env} = world.machine()
    const csv = join(dir, 'refunds.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    const before = (await world.requests()).order_query ?? 0
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--concurrency', '1'], {env})
    expect(dry.code, dry.stderr).toBe(0)
    expect(((await world.requests()).order_query ?? 0) - before).toBe(7 + 9)
  })

  it("takes an answer only when it is about what was asked: a signed answer of another channel's query is refused, exit 4", async () => {
    const [order] = await world.paidOrders(1, 5_000, 'OQ-REPLAYED')
    const proxy = await startReplayingProxy(world.sandbox.info.base_url)
    try {
      const env = world.environmentProfile({GW_BASE_URL: proxy.baseUrl, GW_CONFIG_DIR: world.machine().dir})
      expect((await world.run(['order', 'query', order!, '--channel', 'wechat'], {env})).code).toBe(0)
      // Every query is answered with the wechat query's signed answer: it verifies, and is about wechat only.
      proxy.replay('order_query', proxy.kept('order_query')[0]!)
      const replayed = await world.run(['order', 'query', order!], {env: {...env, GW_CONFIG_DIR: world.machine().dir}})
      expect(replayed.code, replayed.stderr).toBe(4)
      expect(replayed.stderr).toMatch(/the answer to order_query is about channel "wechat", not channel "\w+" as asked/)
      expect(replayed.stdout).toBe('')
    } finally {
      await proxy.close()
    }
  })
})

describe("a gateway's or a channel's order number given where the merchant's goes", () => {
  it("order query takes it as what it is, and says so; a number no order has is not called the gateway's", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ADV-GWNO')
    const {env} = world.machine()
    const queried = await world.run(['order', 'query', order!, '--json'], {env})
    const {gw_order_no, channel_order_no} = queried.json<{record: {gw_order_no: string; channel_order_no: string}}>()
      .record
    for (const [number, words] of [
      [gw_order_no, "the gateway's order number"],
      [channel_order_no, "the channel's order number"],
    ] as const) {
      // Another desk, which never saw the order: the gateway is asked by it as each of the order's numbers.
      const other = world.machine()
      const pasted = await world.run(['order', 'query', number], {env: other.env})
      expect(pasted.code, pasted.stderr).toBe(0)
      expect(pasted.stderr).toContain(`${number} is ${words} of order ${order}.`)
      expect(pasted.stdout).toMatch(new RegExp(`order: +${order}`))
    }
    const unknown = await world.run(['order', 'query', 'NO-SUCH-ORDER'])
    expect(unknown.stderr).not.toContain('--gw-order-no')
  })
})

describe('what the payer paid', () => {
  it("a PromptPay payment's notification says THB at no exchange; a wallet's rate is a number in --json", async () => {
    const app = await startReceiver(() => ({status: 200, body: '{"result":"SUCCESS","msg":"OK"}'}))
    try {
      const create = ['order', 'create', '--channel', 'promptpay', '--amount', '10', '--fee-type', 'THB', '--no-qr']
      const made = await world.run([...create, '--notify-url', app.url, '--mch-order-no', 'ADV-PP-1'])
      expect(made.code, made.stderr).toBe(0)
      await world.pay('ADV-PP-1')
      await waitFor(() => (app.received.length ? true : undefined))
      const {data} = JSON.parse(app.received[0]!.body) as {data: Record<string, unknown>}
      expect(data).toMatchObject({cash_fee_type: 'THB', cash_fee: 1000, total_fee: 1000, rate: 1})
    } finally {
      await app.close()
    }
    const [wechat] = await world.paidOrders(1, 10_000, 'ADV-RATE')
    const record = (await world.run(['order', 'query', wechat!, '--json'])).json<{record: Record<string, unknown>}>()
      .record
    expect(record).toMatchObject({rate: 0.2101, cash_fee_type: 'CNY'})
  })
})

describe('seeing the wire', () => {
  it('--verbose shows each attempt: URL, parameters, the signed string, the signature, status, time, raw answer; --json unchanged', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'WIRE')
    const quiet = await world.run(['order', 'query', order!, '--json'])
    const loud = await world.run(['order', 'query', order!, '--json', '--verbose'])
    expect(loud.code).toBe(0)
    // The same document (the gateway's nonce aside).
    const record = (result: typeof quiet) => ({...result.json<{record: object}>().record, nonce_str: 'x'})
    expect(record(loud)).toEqual(record(quiet))
    expect(loud.stderr).toContain(`› order_query attempt 1: POST ${world.sandbox.info.base_url}/order_query`)
    expect(loud.stderr).toMatch(
      new RegExp(
        `signed string: appid=${world.sandbox.info.merchants[0]!.appid}channel=wechatmch_order_no=${order}nonce_str=\\w+time_stamp=\\d{14}`,
      ),
    )
    expect(loud.stderr).toMatch(/sign: [0-9a-f]{12}…[0-9a-f]{8} \(256 bytes\)/)
    expect(loud.stderr).toMatch(/‹ order_query attempt 1: HTTP 200 in \d+ ms\n {2}\{"code":0/)
    expect(loud.stderr).not.toContain('PRIVATE KEY')
    await world.underFaults('http-500=1@order_query', async () => {
      const failing = await world.run(['order', 'query', order!, '--verbose'])
      expect(failing.code).toBe(3)
      for (const attempt of [1, 2, 3, 4])
        expect(failing.stderr).toMatch(new RegExp(`‹ order_query attempt ${attempt}: HTTP 500 in \\d+ ms`))
    })
    const doctor = await world.run(['doctor', '--verbose'])
    expect(doctor.stderr).toContain('› order_query attempt 1: POST')
  })
})

describe('plain messages', () => {
  it('HTTPS against a plain-HTTP gateway says so, once, without OpenSSL internals', async () => {
    const merchant = world.sandbox.info.merchants[0]!
    const https = world.sandbox.info.base_url.replace('http:', 'https:')
    const keys = [
      '--private-key',
      merchant.private_key_file,
      '--gateway-public-key',
      world.sandbox.info.gateway_public_key_file,
    ]
    expect(
      (await world.run(['profile', 'add', 'tls', '--appid', merchant.appid, '--base-url', https, ...keys])).code,
    ).toBe(0)
    const result = await world.run(['order', 'query', 'ANY-1', '--profile', 'tls'])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('does not speak HTTPS; the base URL may need http:// instead of https://')
    expect(result.stderr).not.toMatch(/ssl3_|openssl|attempts/i)
  })
})

describe('a signed answer about another refund', () => {
  it('about another order is refused by a query too: exit 4', async () => {
    const [a, b] = await world.paidOrders(2, 1000, 'PRV-QREPLAY')
    const proxy = await startReplayingProxy(world.sandbox.info.base_url)
    try {
      const env = world.environmentProfile({GW_BASE_URL: proxy.baseUrl})
      expect((await world.run(['order', 'query', a!, '--channel', 'wechat'], {env})).code).toBe(0)
      proxy.replay('order_query', proxy.kept('order_query')[0]!)
      const other = await world.run(['order', 'query', b!, '--channel', 'wechat'], {env})
      expect(other.code).toBe(4)
      expect(other.stderr).toContain('the answer to order_query is about mch_order_no "PRV-QREPLAY-1"')
      expect(other.stdout).toBe('')
    } finally {
      await proxy.close()
    }
  })
})

describe('the smaller ones', () => {
  it('GW_PRIVATE_KEY as PEM text with its line breaks written \\n is read; a corrupt one is said naming the variable', async () => {
    const [order] = await world.paidOrders(1, 1000, 'PRV-ENVKEY')
    const pem = readFileSync(world.sandbox.info.merchants[0]!.private_key_file, 'utf8')
    const oneLine = pem.trim().split('\n').join('\\n')
    const query = await world.run(['order', 'query', order!], {
      env: world.environmentProfile({GW_PRIVATE_KEY: oneLine}),
    })
    expect(query.code, query.stderr).toBe(0)
    const broken = pem.replace(/\n[A-Za-z0-9+/]{20}/, '\n')
    const corrupt = await world.run(['order', 'query', order!], {
      env: world.environmentProfile({GW_PRIVATE_KEY: broken}),
    })
    expect(corrupt.code).toBe(2)
    expect(corrupt.stderr).toContain('GW_PRIVATE_KEY')
    expect(corrupt.stderr).not.toContain(pem.split('\n')[2]!)
  })
})

describe('order query shows what the payer paid, and when, only once the order took money', () => {
  it('no "paid by payer" or "paid at" for an unpaid or failed order; both once it is paid', async () => {
    await world.createOrder('PAYER-1', 'wechat', '4.20')
    const unpaid = await world.run(['order', 'query', 'PAYER-1'])
    expect(unpaid.code, unpaid.stderr).toBe(0)
    expect(unpaid.stdout).toMatch(/state: +NOTPAY/)
    expect(unpaid.stdout).not.toContain('paid by payer')
    expect(unpaid.stdout).not.toContain('paid at')

    await world.createOrder('PAYER-2', 'wechat', '4.20')
    await world.pay('PAYER-2', true)
    const failed = await world.run(['order', 'query', 'PAYER-2'])
    expect(failed.stdout).toMatch(/state: +PAYERROR/)
    expect(failed.stdout).not.toContain('paid by payer')
    expect(failed.stdout).not.toContain('paid at')

    await world.pay('PAYER-1')
    const paid = await world.run(['order', 'query', 'PAYER-1'])
    expect(paid.stdout).toMatch(/paid by payer: +\d+\.\d\d CNY/)
    expect(paid.stdout).toMatch(/paid at: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d/)
  })
})

describe('bounded inputs', () => {
  it('a gateway answer over 4 MiB is cut off as a transport failure', async () => {
    const server = createServer((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'application/json'})
      const chunk = Buffer.alloc(1024 * 1024, 'x')
      let sent = 0
      const more = () => {
        while (sent < 64 && res.write(chunk)) sent++
        if (sent < 64) res.once('drain', more)
        else res.end()
      }
      more()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as AddressInfo
      const env = world.environmentProfile({GW_BASE_URL: `http://127.0.0.1:${port}/Gateway`})
      const result = await world.run(['order', 'query', 'X', '--channel', 'wechat'], {env})
      expect(result.code).toBe(3)
      expect(result.stderr).toContain('is larger than 4 MiB; it was cut off')
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})

describe('--zone on the commands that show times', () => {
  it("puts every time of query, lists, history and a new order's expiry on that clock, the same instants; gateway is the profile zone", async () => {
    await world.createOrder('ZONED-1', 'wechat', '12.00')
    await world.pay('ZONED-1')
    expect((await world.run(['refund', 'create', 'ZONED-1', '--amount', '2.00'])).code).toBe(0)
    // A process of its own: the zone is the run's clock.
    const run = (args: string[]) => world.run(args, {process: true, env: {TZ: 'UTC'}})
    const paidAt = async (zone: string[]) =>
      (await run(['order', 'query', 'ZONED-1', '--json', ...zone])).json<{record: {time_end: string}}>().record.time_end
    const local = await paidAt([])
    const tokyo = await paidAt(['--zone', 'Asia/Tokyo'])
    expect(local).toMatch(/\+00:00$/)
    expect(tokyo).toMatch(/\+09:00$/)
    expect(Date.parse(tokyo)).toBe(Date.parse(local))
    const gateway = isoTimeIn(new Date(local), world.sandbox.info.gateway_zone).slice(-6)
    expect((await paidAt(['--zone', 'gateway'])).slice(-6)).toBe(gateway)

    const text = await run(['order', 'query', 'ZONED-1', '--zone', 'Asia/Tokyo'])
    expect(text.stdout).toContain(`paid at:       ${tokyo}\n`)
    for (const list of [['order', 'list'], ['refund', 'list'], ['refund', 'query', 'ZONED-1'], ['history']]) {
      const shown = await run([...list, '--zone', 'Asia/Tokyo', '--json'])
      expect(shown.code, shown.stderr).toBe(0)
      expect(shown.stdout, list.join(' ')).toMatch(/\+09:00"/)
      expect(shown.stdout, list.join(' ')).not.toMatch(/\+00:00"/)
    }
    const created = await run([...orderCreate(orderNo(), 'wechat', '3.00'), '--zone', 'Asia/Kathmandu'])
    expect(created.stdout).toMatch(/QR expires: +\S+\+05:45\n/)
    const createdJson = await run([...orderCreate(orderNo(), 'wechat', '3.00'), '--zone', 'Asia/Kathmandu', '--json'])
    expect(createdJson.json<{expires_at: string}>().expires_at).toMatch(/\+05:45$/)
    const wrong = await run(['order', 'list', '--zone', 'Mars/Base'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--zone "Mars/Base" is not a time zone.')
  })
})
