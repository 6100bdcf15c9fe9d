/** gw sandbox faults: the running sandbox's faults shown, set and cleared; a bad spec changes nothing. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('gw sandbox faults', () => {
  it('shows none, sets a spec (the order query then fails as set), shows it, and clears it', async () => {
    const faults = (...args: string[]) => world.run(['sandbox', 'faults', ...args])
    expect((await faults()).stdout).toBe('faults: none\n')
    const set = await faults('--set', 'http-500=1@order_query')
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toBe('faults: http-500=1@order_query\n')
    expect((await faults('--json')).json()).toEqual({faults: 'http-500=1@order_query'})
    expect((await world.createOrder('FLT-1')).code).toBe(0)
    expect((await world.run(['order', 'query', 'FLT-1'])).code).toBe(3)
    const cleared = await faults('--clear')
    expect(cleared.stdout).toBe('faults: none\n')
    expect((await world.run(['order', 'query', 'FLT-1'])).code).toBe(0)
  })

  it("a spec the sandbox refuses is the flag's problem (exit 2): nothing was changed", async () => {
    await world.underFaults('latency=1-2ms', async () => {
      const refused = await world.run(['sandbox', 'faults', '--set', 'http-500=2'])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('--set: ')
      expect(refused.stderr).toContain('Nothing was changed')
      expect((await world.run(['sandbox', 'faults'])).stdout).toBe('faults: latency=1-2ms\n')
    })
  })
})
