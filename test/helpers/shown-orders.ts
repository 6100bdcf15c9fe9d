/** The orders the sheets of test/fixtures/shown name (its README): made and paid in a world's sandbox. */
import {expect} from 'vitest'

import type {GwWorld} from './gw-env.js'

/** SHW-1 to SHW-127 in THB and SHW-M1 in MYR, 10,000.00 each, paid. */
export async function payShownOrders(world: GwWorld): Promise<void> {
  const wire = world.sandbox.wire()
  const orders: [string, string][] = [
    ...Array.from({length: 127}, (_, i): [string, string] => [`SHW-${i + 1}`, 'THB']),
    ['SHW-M1', 'MYR'],
  ]
  for (const [mch, fee_type] of orders) {
    const created = await wire.call('native_pay', {
      channel: 'wechat',
      mch_order_no: mch,
      total_fee: 1_000_000,
      fee_type,
    })
    expect(created.data.result).toBe('SUCCESS')
    expect((await world.sandbox.controls.pay(mch)).status).toBe(200)
  }
}
