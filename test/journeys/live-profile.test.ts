/** A journey across commands: a --live profile never moves money unasked. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, orderNo, startWorld} from '../helpers/gw-env.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('a --live profile', () => {
  it('refuses to move money without --yes when there is no terminal to ask on, and nothing is sent', async () => {
    const live = ['--profile', 'live']
    expect((await world.run(world.profileAdd('live', '--live'))).code).toBe(0)
    const mch = orderNo('LIVE')
    const refused = await world.run([...orderCreate(mch, 'wechat', '1', {qr: true}), ...live])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('Profile "live" is live and this would create an order of 1.00 THB on wechat.')
    expect(refused.stderr).toContain('Add --yes to confirm')
    expect(await world.ledger(mch)).toBeUndefined()
    expect((await world.run([...orderCreate(mch, 'wechat', '1', {qr: true}), '--yes', ...live])).code).toBe(0)
    await world.pay(mch)
    expect((await world.run(['refund', 'create', mch, '--amount', '1', ...live])).code).toBe(2)
    expect((await world.run(['order', 'close', mch, ...live])).code).toBe(2)
    expect((await world.ledger(mch))!.refunds).toEqual([])
    expect((await world.run(['order', 'query', mch, ...live])).code).toBe(0)
  })
})
