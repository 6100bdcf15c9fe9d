/**
 * gw order query by any number support has (issue 46, "Numbers support pastes"): the merchant's,
 * the gateway's, the channel's (a wallet's receipt), or a refund's this machine knows, gw's or the
 * gateway's; a number this machine does not know asked of every channel at once, an answer taken
 * only when signed and about what was asked, and two orders answering said, never chosen between.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {isoTimeIn} from '../../../src/lib/gateway/protocol/index.js'
import {startGatheringProxy} from '../../helpers/gathering-proxy.js'
import {type GwWorld, orderCreate, startWorld} from '../../helpers/gw-env.js'
import {startReplayingProxy} from '../../helpers/replaying-proxy.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld({spawned: false})
})
afterAll(() => world.close())

type Found = {record: {mch_order_no: string; gw_order_no: string; channel_order_no: string}; number_is: string}

/** An order made and paid here, with a refund of 20.00 THB made by gw: its numbers and the refund's. */
async function refundedHere(order: string) {
  expect((await world.run(orderCreate(order, 'wechat', '100.00'))).code).toBe(0)
  await world.pay(order)
  const refunded = await world.run(['refund', 'create', order, '--amount', '20.00', '--json'])
  expect(refunded.code, refunded.stderr).toBe(0)
  const {mch_refund_no, gw_refund_no} = refunded.json<{mch_refund_no: string; gw_refund_no: string}>()
  const {record} = (await world.run(['order', 'query', order, '--json'])).json<Found>()
  return {...record, mch_refund_no, gw_refund_no}
}

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

describe('--zone on the commands that show times', () => {
  it('puts every time of query, lists and history on that clock, the same instants; gateway is the profile zone', async () => {
    expect((await world.run(orderCreate('ZONED-1', 'wechat', '12.00'))).code).toBe(0)
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
    const wrong = await run(['order', 'list', '--zone', 'Mars/Base'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--zone "Mars/Base" is not a time zone.')
  })
})
