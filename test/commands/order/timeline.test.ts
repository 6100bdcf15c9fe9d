/** gw order timeline: what the gateway does not bear out is said so, and what a record holds is shown safe. */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld({spawned: false})
})
afterAll(() => world.close())

const line = (record: Record<string, unknown>) =>
  JSON.stringify({appid: world.sandbox.info.merchants[0]!.appid, at: '2026-03-01T10:00:00Z', ...record})

describe('gw order timeline', () => {
  it('with --refresh says absent of a refund this machine records as refunded that the gateway does not have', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TL-ABSENT')
    const {dir, env} = world.machine()
    writeFileSync(
      join(dir, 'history.jsonl'),
      [
        line({type: 'order', mch_order_no: order, channel: 'wechat', total_fee: 10_000, fee_type: 'THB'}),
        line({
          type: 'refund',
          mch_order_no: order,
          channel: 'wechat',
          mch_refund_no: 'RF-NOT-THERE',
          refund_fee: 500,
          fee_type: 'THB',
          status: 'refunded',
        }),
      ].join('\n'),
    )
    const told = await world.run(['order', 'timeline', order!, '--refresh'], {env})
    expect(told.code, told.stderr).toBe(0)
    expect(told.stdout).toContain(
      'RF-NOT-THERE of 5.00 THB: refunded, by gw; the gateway has no refund of this number (absent): nothing was refunded under it',
    )
    const json = (await world.run(['order', 'timeline', order!, '--refresh', '--json'], {env})).json<{
      entries: {kind: string; mch_refund_no?: string; gateway_state?: string}[]
    }>()
    expect(json.entries.find((e) => e.mch_refund_no === 'RF-NOT-THERE')?.gateway_state).toBe('absent')
  })

  it("shows a merged record's text safe: no escape sequence of a line reaches the terminal", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TL-ESCAPE')
    const {dir, env} = world.machine()
    // A line that would move the cursor up and erase the refund line above it.
    const erase = '\u001b[1A\u001b[2K\u001b]0;owned\u0007'
    writeFileSync(
      join(dir, 'history.jsonl'),
      [
        line({type: 'order', mch_order_no: order, channel: 'wechat', total_fee: 10_000, fee_type: 'THB'}),
        line({
          type: 'event',
          mch_order_no: order,
          kind: 'queried',
          at: '2026-03-01T10:01:00Z',
          detail: {state: `SUCCESS${erase}`},
        }),
        line({
          type: 'event',
          mch_order_no: order,
          kind: 'made',
          at: '2026-03-01T10:00:00Z',
          detail: {profile: `p${erase}`, command: `c${erase}`},
        }),
      ].join('\n'),
    )
    const told = await world.run(['order', 'timeline', order!], {env})
    expect(told.code, told.stderr).toBe(0)
    // eslint-disable-next-line no-control-regex -- the escape character is what must not be there
    expect(told.stdout).not.toMatch(/\u001b|\u0007/)
    expect(told.stdout).toContain('\\x1B[1A')
  })
})
