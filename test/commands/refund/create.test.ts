/** gw refund create of one order: its --amount read as amounts in files are, its currency checked against the order's. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, startWorld} from '../../helpers/gw-env.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld({spawned: false})
})
afterAll(() => world.close())

describe('gw refund create ORDER --amount', () => {
  it('takes ฿5.00, 50 baht and Thai digits as refund list does; an amount of another currency is refused, nothing sent', async () => {
    expect((await world.run(orderCreate('RC-AMOUNT', 'wechat', '100.00'))).code).toBe(0)
    await world.pay('RC-AMOUNT')
    for (const typed of ['฿5.00', '50 baht', '๓.๐๐']) {
      const refunded = await world.run(['refund', 'create', 'RC-AMOUNT', '--amount', typed])
      expect(refunded.code, refunded.stderr).toBe(0)
    }
    expect((await world.ledger('RC-AMOUNT'))!.refunds.map((r) => r.refund_fee)).toEqual([500, 5000, 300])
    const listed = await world.run(['refund', 'list', '--amount', '฿5.00', '--json'])
    expect(listed.json<{refunds: unknown[]}>().refunds).toHaveLength(1)

    const other = await world.run(['refund', 'create', 'RC-AMOUNT', '--amount', 'RM 5.00'])
    expect(other.code).toBe(2)
    expect(other.stderr).toContain('MYR')
    expect((await world.ledger('RC-AMOUNT'))!.refunds).toHaveLength(3)
  })
})
