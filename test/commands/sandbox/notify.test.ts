/** gw sandbox notify: a paid order's notification delivered again, the answer shown safely. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {NOTIFICATION_ACK} from '../../../src/lib/gateway/protocol/index.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {startReceiver, waitFor} from '../../helpers/receiver.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld({timeScale: 1000})
})

afterAll(() => world.close())

describe('the sandbox delivering notifications', () => {
  it('takes any JSON object with result SUCCESS and msg OK as the acknowledgement: spaces and key order are free', async () => {
    const python = await startReceiver(() => ({status: 200, body: '{"msg": "OK", "result": "SUCCESS"}'}))
    try {
      const mch = await world.paidOrderNotifying(python.url)
      const made = await waitFor(async () => {
        const list = await world.notificationsOf(mch)
        return list.length ? list : undefined
      })
      await new Promise((r) => setTimeout(r, 300))
      expect(made).toHaveLength(1)
      expect(made[0]).toMatchObject({delivered: true})
      expect(await world.notificationsOf(mch)).toHaveLength(1)
    } finally {
      await python.close()
    }
  })

  it("gw sandbox notify delivers a paid order's notification again and shows the answer; an unpaid order has none", async () => {
    const app = await startReceiver(() => ({status: 200, body: NOTIFICATION_ACK}))
    try {
      const mch = await world.paidOrderNotifying(app.url)
      await waitFor(() => (app.received.length ? true : undefined))
      const again = await world.run(['sandbox', 'notify', mch])
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toContain(`notification of ${mch} sent to ${app.url}`)
      expect(again.stdout).toContain('acknowledged (HTTP 200')
      expect(app.received).toHaveLength(2)
      // The same notification, signed afresh as the gateway signs each delivery.
      const data = (i: number) =>
        (JSON.parse(app.received[i]!.body) as {data: {mch_order_no: string; total_fee: number}}).data
      expect(data(1)).toMatchObject({mch_order_no: mch, total_fee: data(0).total_fee})
      const unpaid = await world.orderNotifying(app.url, '1')
      const none = await world.run(['sandbox', 'notify', unpaid])
      expect(none.code).toBe(1)
      expect(none.stderr).toContain(`order ${unpaid} is not paid: it has no notification`)
    } finally {
      await app.close()
    }
  })
})

describe('what a developer or an attacker may bring to the listener, replay and sandbox notify', () => {
  it("sandbox notify shows the endpoint's answer safely, and exits 1 when it is not an acknowledgement", async () => {
    const app = await startReceiver((i) =>
      i === 0 ? {status: 200, body: NOTIFICATION_ACK} : {status: 200, body: 'ok\u001b[2J\u001b]0;pwned\u0007'},
    )
    try {
      const mch = await world.paidOrderNotifying(app.url)
      await waitFor(() => (app.received.length ? true : undefined))
      const again = await world.run(['sandbox', 'notify', mch])
      expect(again.code).toBe(1)
      expect(again.stdout).toContain('not acknowledged (HTTP 200: ok\\x1B[2J\\x1B]0;pwned\\x07)')
      expect(again.stdout).not.toContain('\u001b')
    } finally {
      await app.close()
    }
  })
})
