/** gw sandbox pay: the payer's side of a sandbox order, paid or declined, as the sandbox's ledger shows it. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('gw sandbox pay', () => {
  it('pays an order the sandbox holds, and says so; the ledger shows it paid', async () => {
    expect((await world.createOrder('PAY-1')).code).toBe(0)
    const paid = await world.run(['sandbox', 'pay', 'PAY-1'])
    expect(paid.code, paid.stderr).toBe(0)
    expect(paid.stdout).toBe('PAY-1: paid (150.50 THB, wechat).\n')
    expect((await world.ledger('PAY-1'))?.state).toBe('SUCCESS')
  })

  it('--fail declines it: the order is PAYERROR, and --json gives the order as the sandbox holds it', async () => {
    expect((await world.createOrder('PAY-2')).code).toBe(0)
    const declined = await world.run(['sandbox', 'pay', 'PAY-2', '--fail', '--json'])
    expect(declined.code, declined.stderr).toBe(0)
    expect(declined.json<{order: {mch_order_no: string; state: string}}>().order).toMatchObject({
      mch_order_no: 'PAY-2',
      state: 'PAYERROR',
    })
    expect((await world.ledger('PAY-2'))?.state).toBe('PAYERROR')
  })

  it('an order the sandbox does not hold is refused (exit 1), and nothing is paid', async () => {
    const unknown = await world.run(['sandbox', 'pay', 'PAY-NONE'])
    expect(unknown.code).toBe(1)
    expect(await world.ledger('PAY-NONE')).toBeUndefined()
  })
})
