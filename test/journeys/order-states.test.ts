/**
 * A journey across commands: an order's state in the history goes by what the gateway's facts prove (a
 * refund outranks the payment), never by when gw learned them.
 */
import {execFile, execFileSync} from 'node:child_process'
import {promisify} from 'node:util'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, startWorld} from '../helpers/gw-env.js'
import {gwEnvironment, gwUnderTest} from '../helpers/gw-under-test.js'

let world: GwWorld

const HAS_FAKETIME = (() => {
  try {
    execFileSync('faketime', ['-f', '+1d', 'true'])
    return true
  } catch {
    return false
  }
})()

const listedState = async (order: string) => {
  const listed = await world.run(['order', 'list', '--json'])
  return listed.json<{orders: {mch_order_no: string; state: string}[]}>().orders.find((o) => o.mch_order_no === order)
    ?.state
}

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('an order refunded in full', () => {
  it('stays REFUND in the order list when the gateway delivers its payment notification again', async () => {
    const listener = await world.listen(['--timeout', '60'])
    const created = await world.run([...orderCreate('STATE-LATE', 'wechat', '20.00'), '--notify-url', listener.url])
    expect(created.code, created.stderr).toBe(0)
    await world.pay('STATE-LATE')
    const refunded = await world.run(['refund', 'create', 'STATE-LATE', '--amount', '20.00'])
    expect(refunded.code, refunded.stderr).toBe(0)
    expect((await world.run(['order', 'query', 'STATE-LATE'])).code).toBe(0)
    expect(await listedState('STATE-LATE')).toBe('REFUND')
    // The gateway retries for hours: the same payment notification, verified, after the refund.
    expect((await world.sandbox.controls.notify('STATE-LATE')).status).toBe(202)
    const delivered = async () =>
      (await world.sandbox.controls.notifications('STATE-LATE')).body.notifications.filter((n) => n.delivered).length
    for (let waited = 0; (await delivered()) < 2 && waited < 20_000; waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100))
    listener.child.kill('SIGINT')
    const listened = await listener.result
    expect(listened.code, listened.stderr).toBe(0)
    expect(listened.stdout.match(/verified/g)).toHaveLength(2)
    expect(await listedState('STATE-LATE')).toBe('REFUND')
  })

  it.skipIf(!HAS_FAKETIME || process.env.GW_TEST_COMMAND !== undefined)(
    'shows REFUND after a query made with the clock a month ahead had seen it SUCCESS',
    async () => {
      await world.createOrder('STATE-CLOCK', 'wechat', '20.00')
      await world.pay('STATE-CLOCK')
      // One run on a machine whose clock ran 30 days ahead.
      // (Not execFileSync: the sandbox answering it runs in this process.)
      const ahead = await promisify(execFile)(
        'faketime',
        ['-f', '+30d', ...gwUnderTest(), 'order', 'query', 'STATE-CLOCK', '--json'],
        {env: gwEnvironment({GW_CONFIG_DIR: world.configDir}), encoding: 'utf8'},
      )
      expect(JSON.parse(ahead.stdout)).toMatchObject({record: {result: 'SUCCESS'}})
      expect(await listedState('STATE-CLOCK')).toBe('SUCCESS')
      expect((await world.run(['refund', 'create', 'STATE-CLOCK', '--amount', '20.00'])).code).toBe(0)
      expect((await world.run(['order', 'query', 'STATE-CLOCK'])).code).toBe(0)
      expect(await listedState('STATE-CLOCK')).toBe('REFUND')
    },
  )
})
