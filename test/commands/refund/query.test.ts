/** gw refund query: an order's refunds as the gateway shows them, and what it cannot show said. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {removeDir, tempDir, TIME} from '../../helpers/shared.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('gw refund create and query', () => {
  it('asks for a refund number when it knows none for the order', async () => {
    const fresh = tempDir('gw-fresh-')
    try {
      const mch = await world.createPaid()
      const env = world.environmentProfile({GW_CONFIG_DIR: fresh})
      const result = await world.run(['refund', 'query', mch, '--channel', 'wechat'], {env})
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('has completed: the gateway shows it paid in full')
      expect(result.stdout).toContain('--mch-refund-no')
    } finally {
      removeDir(fresh)
    }
  })
})

describe('plain messages', () => {
  it('refund query: never paid, paid in full, refunded elsewhere (needs a number), a number it does not know', async () => {
    const wire = world.sandbox.wire()
    const create = (mch: string) =>
      wire.call('native_pay', {channel: 'wechat', mch_order_no: mch, total_fee: 10_000, fee_type: 'THB'})
    await create('RQ-UNPAID')
    const unpaid = await world.run(['refund', 'query', 'RQ-UNPAID', '--channel', 'wechat'])
    expect(unpaid.code).toBe(0)
    expect(unpaid.stdout).toContain('Order RQ-UNPAID has no refunds: it was never paid (NOTPAY).')
    const [paid, elsewhere] = await world.paidOrders(2, 10_000, 'RQ')
    const inFull = await world.run(['refund', 'query', paid!, '--json'])
    expect(inFull.json()).toMatchObject({refund: null, mch_refund_no: null})
    const refund = {
      mch_order_no: elsewhere,
      total_fee: 10_000,
      fee_type: 'THB',
      mch_refund_no: 'DASH-1',
      refund_fee: 2500,
    }
    expect((await wire.call('order_refund', refund)).data.result).toBe('SUCCESS')
    const needs = await world.run(['refund', 'query', elsewhere!, '--channel', 'wechat'])
    expect(needs.code).toBe(2)
    expect(needs.stderr).toContain('made elsewhere')
    expect(needs.stderr).toContain(`gw refund query ${elsewhere} --mch-refund-no R`)
    const wrong = await world.run(['refund', 'query', elsewhere!, '--channel', 'wechat', '--mch-refund-no', 'NOPE-1'])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain(
      `No refund NOPE-1 on order ${elsewhere}: the gateway knows the order, not this refund number.`,
    )
    expect(wrong.stderr).not.toContain('no such order')
    const right = await world.run(['refund', 'query', elsewhere!, '--channel', 'wechat', '--mch-refund-no', 'DASH-1'])
    expect(right.code).toBe(0)
    expect(right.stdout).toMatch(new RegExp(`^DASH-1\t25\\.00 THB\tSUCCESS: refunded\t${TIME.source}\t`, 'm'))
  })
})
