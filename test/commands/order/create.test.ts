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

  it('reads --amount as amounts in files are read: 50 baht, ฿5.00, Thai digits', async () => {
    for (const [mch, typed, fee] of [
      ['INP-BAHT', '50 baht', 5000],
      ['INP-SIGN', '฿5.00', 500],
      ['INP-THAI', '๕๐.๒๕', 5025],
    ] as const) {
      const made = await world.run([
        'order',
        'create',
        '--channel',
        'wechat',
        '--amount',
        typed,
        '--fee-type',
        'THB',
        '--mch-order-no',
        mch,
      ])
      expect(made.code, made.stderr).toBe(0)
      expect((await world.ledger(mch)) as unknown).toMatchObject({total_fee: fee})
    }
    const other = await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      'RM 5',
      '--fee-type',
      'THB',
      '--mch-order-no',
      'INP-RM',
    ])
    expect(other.code).toBe(2)
    expect(other.stderr).toContain('--amount "RM 5" is in MYR, but --fee-type says THB. Nothing was sent.')
    expect(await world.ledger('INP-RM')).toBeUndefined()
  })

  it('refuses an amount with more decimals than the currency has, exit 2, nothing sent', async () => {
    const result = await world.run(orderCreate('INP-2', 'wechat', '1.555'))
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/1\.555/)
    expect(await world.ledger('INP-2')).toBeUndefined()
  })
})
