/** A journey across commands: every time gw shows, in text and --json, in its one form (ISO 8601 with its offset). */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, startWorld} from '../helpers/gw-env.js'
import {ONE_FORM, TIME} from '../helpers/shared.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('--json as docs/conventions.md defines it', () => {
  it('gateway times are ISO 8601 with their offset: time_end of an order, refund_time of each refund', async () => {
    await world.createOrder('JSON-1', 'wechat', '10.00')
    await world.pay('JSON-1')
    const query = await world.run(['order', 'query', 'JSON-1', '--json'])
    expect(query.json<{record: {time_end: string}}>().record.time_end).toMatch(ONE_FORM)
    expect((await world.run(['refund', 'create', 'JSON-1', '--amount', '1.00', '--yes'])).code).toBe(0)
    const refunds = await world.run(['refund', 'query', 'JSON-1', '--json'])
    expect(refunds.code, refunds.stderr).toBe(0)
    const {order, refund} = refunds.json<{
      order: {time_end: string}
      refund: {time_end: string; refund_orders: {refund_time: string}[]}
    }>()
    expect(order.time_end).toMatch(ONE_FORM)
    expect(refund.time_end).toMatch(ONE_FORM)
    expect(refund.refund_orders[0]!.refund_time).toMatch(ONE_FORM)
  })
})

describe('plain messages', () => {
  it('times are ISO 8601 with their offset, in text and JSON', async () => {
    const created = await world.run(orderCreate(undefined, 'wechat', '1'))
    expect(created.stdout).toMatch(new RegExp(`QR expires: +${TIME.source}`))
    const mch = /order: +(\S+)/.exec(created.stdout)![1]!
    await world.pay(mch)
    expect((await world.run(['order', 'query', mch])).stdout).toMatch(new RegExp(`paid at: +${TIME.source}`))
    const refunded = await world.run(['refund', 'create', mch, '--amount', '0.50', '--json'])
    expect(refunded.json<{refund_time: string}>().refund_time).toMatch(ONE_FORM)
  })
})
