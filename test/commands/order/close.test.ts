/** gw order close: closed as the gateway said, never on an answer about another order. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, orderNo, startWorld} from '../../helpers/gw-env.js'
import {startReplayingProxy} from '../../helpers/replaying-proxy.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('closing an order on a channel without an order query', () => {
  it('succeeds as the gateway said, writes CLOSED to the history, and sends no query', async () => {
    await world.createOrder('SCB-CLOSE-1', 'scb_qrcard', '4.20')
    const before = await world.requests()
    const closed = await world.run(['order', 'close', 'SCB-CLOSE-1', '--json'])
    expect(closed.code, closed.stderr).toBe(0)
    expect(closed.json()).toMatchObject({
      channel: 'scb_qrcard',
      record: {result: 'CLOSED', mch_order_no: 'SCB-CLOSE-1', total_fee: 420, fee_type: 'THB'},
    })
    const after = await world.requests()
    expect(after.order_close).toBe((before.order_close ?? 0) + 1)
    expect(after.order_query ?? 0).toBe(before.order_query ?? 0)
    expect((await world.ledger('SCB-CLOSE-1'))?.state).toBe('CLOSED')
    const listed = await world.run(['order', 'list', '--since', '10m', '--state', 'CLOSED', '--json'])
    const orders = listed.json<{orders: {mch_order_no: string}[]}>().orders
    expect(orders.map((o) => o.mch_order_no)).toContain('SCB-CLOSE-1')
  })

  it('says the order is closed, in words', async () => {
    await world.createOrder('SCB-CLOSE-2', 'scb_qrcard', '4.20')
    const closed = await world.run(['order', 'close', 'SCB-CLOSE-2'])
    expect(closed.code, closed.stderr).toBe(0)
    expect(closed.stdout).toContain('Order SCB-CLOSE-2 is closed.')
    expect(closed.stdout).toMatch(/state: +CLOSED: closed by the merchant/)
    expect(closed.stderr).not.toContain('cannot be queried')
    const again = await world.run(['order', 'close', 'SCB-CLOSE-2', '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({already_closed: true, record: {result: 'CLOSED'}})
  })
})

describe('gw order query and close', () => {
  it('closes an unpaid order; refuses to close it twice or to close a paid one', async () => {
    const mch = orderNo()
    await world.run(orderCreate(mch, 'wechat', '1', {qr: true}))
    const closed = await world.run(['order', 'close', mch])
    expect(closed.code).toBe(0)
    expect(closed.stdout).toContain(`Order ${mch} is closed.`)
    expect(await world.ledger(mch)).toMatchObject({state: 'CLOSED'})
    // The gateway's ORDER_ALREADY_CANCEL is the end asked for: said as such, exit 0.
    const twice = await world.run(['order', 'close', mch])
    expect(twice.code, twice.stderr).toBe(0)
    expect(twice.stdout).toContain(`Order ${mch} was already closed.`)
    const paid = await world.run(['order', 'close', await world.createPaid()])
    expect(paid.code).toBe(1)
    expect(paid.stderr).toContain('CANCEL_ERROR')
  })
})

describe('a signed answer about another refund', () => {
  it('closing an order: a signed close answer about another order never makes gw say closed', async () => {
    const wire = world.sandbox.wire()
    const made = async (mch: string) =>
      (await wire.call('native_pay', {channel: 'wechat', mch_order_no: mch, total_fee: 500, fee_type: 'THB'})).data
    const other = await made(`PRV-CL-OTHER-${process.pid}`)
    const target = await made(`PRV-CL-TARGET-${process.pid}`)
    const proxy = await startReplayingProxy(world.sandbox.info.base_url)
    try {
      const env = world.environmentProfile({GW_BASE_URL: proxy.baseUrl})
      const first = await world.run(['order', 'close', String(other.mch_order_no), '--channel', 'wechat'], {env})
      expect(first.code, first.stderr).toBe(0)
      proxy.replay('order_close', proxy.kept('order_close')[0]!)
      const close = ['order', 'close', '--gw-order-no', String(target.gw_order_no), '--channel', 'wechat']
      const replayed = await world.run(close, {env})
      expect(replayed.code, replayed.stderr).toBe(5)
      expect(replayed.stderr).toContain('but an order query shows it NOTPAY, not CLOSED')
      expect((await world.ledger(String(target.mch_order_no)))!.state).toBe('NOTPAY')
    } finally {
      await proxy.close()
    }
  })
})
