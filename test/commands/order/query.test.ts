/**
 * gw order query of an order this machine does not know (issue 46): every channel asked at once,
 * an answer taken only when signed and about what was asked.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startGatheringProxy} from '../../helpers/gathering-proxy.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {startReplayingProxy} from '../../helpers/replaying-proxy.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld({spawned: false})
})
afterAll(() => world.close())

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
