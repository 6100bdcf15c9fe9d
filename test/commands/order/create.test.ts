import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, startWorld} from '../../helpers/gw-env.js'

describe('gw order create', () => {
  let world: GwWorld
  beforeAll(async () => {
    world = await startWorld({spawned: false})
  })
  afterAll(() => world.close())

  it('makes a THB order the sandbox holds, and says its number', async () => {
    const result = await world.run([...orderCreate('INP-1'), '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.json<{order: {mch_order_no: string}}>().order.mch_order_no).toBe('INP-1')
    expect((await world.ledger('INP-1'))?.state).toBe('NOTPAY')
  })

  it('refuses an amount with more decimals than the currency has, exit 2, nothing sent', async () => {
    const result = await world.run(orderCreate('INP-2', 'wechat', '1.555'))
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/1\.555/)
    expect(await world.ledger('INP-2')).toBeUndefined()
  })
})
