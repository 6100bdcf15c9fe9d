/**
 * Everyday commands, round two (issue 24): answers that say what the gateway said, and only
 * what it means. Each test runs the built CLI against one shared sandbox.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/

const createOrder = async (mchOrderNo: string, channel: string, amount = '4.20') => {
  const made = await world.run([
    'order',
    'create',
    '--channel',
    channel,
    '--amount',
    amount,
    '--fee-type',
    'THB',
    '--mch-order-no',
    mchOrderNo,
    '--no-qr',
  ])
  expect(made.code, made.stderr).toBe(0)
}

describe('closing an order on a channel without an order query', () => {
  it('succeeds as the gateway said, writes CLOSED to the history, and sends no query', async () => {
    await createOrder('SCB-CLOSE-1', 'scb_qrcard')
    const before = await world.requests()
    const closed = await world.run(['order', 'close', 'SCB-CLOSE-1', '--json'])
    expect(closed.code, closed.stderr).toBe(0)
    expect(closed.json()).toMatchObject({
      channel: 'scb_qrcard',
      record: {result: 'CLOSED', mch_order_no: 'SCB-CLOSE-1', total_fee: 420, fee_type: 'THB'},
    })
    const after = await world.requests()
    expect(after.order_close).toBe((before.order_close ?? 0) + 1)
    expect(after.order_query ?? 0).toBe(before.order_query ?? 0)
    expect((await world.ledger('SCB-CLOSE-1'))?.state).toBe('CLOSED')
    const listed = await world.run(['order', 'list', '--since', '10m', '--state', 'CLOSED', '--json'])
    const orders = listed.json<{orders: {mch_order_no: string}[]}>().orders
    expect(orders.map((o) => o.mch_order_no)).toContain('SCB-CLOSE-1')
  })

  it('says the order is closed, in words', async () => {
    await createOrder('SCB-CLOSE-2', 'scb_qrcard')
    const closed = await world.run(['order', 'close', 'SCB-CLOSE-2'])
    expect(closed.code, closed.stderr).toBe(0)
    expect(closed.stdout).toContain('Order SCB-CLOSE-2 is closed.')
    expect(closed.stdout).toMatch(/state: +CLOSED: closed by the merchant/)
    expect(closed.stderr).not.toContain('cannot be queried')
  })
})

describe('order query shows what the payer paid, and when, only once the order took money', () => {
  it('no "paid by payer" or "paid at" for an unpaid or failed order; both once it is paid', async () => {
    await createOrder('PAYER-1', 'wechat')
    const unpaid = await world.run(['order', 'query', 'PAYER-1'])
    expect(unpaid.code, unpaid.stderr).toBe(0)
    expect(unpaid.stdout).toMatch(/state: +NOTPAY/)
    expect(unpaid.stdout).not.toContain('paid by payer')
    expect(unpaid.stdout).not.toContain('paid at')

    await createOrder('PAYER-2', 'wechat')
    await world.pay('PAYER-2', true)
    const failed = await world.run(['order', 'query', 'PAYER-2'])
    expect(failed.stdout).toMatch(/state: +PAYERROR/)
    expect(failed.stdout).not.toContain('paid by payer')
    expect(failed.stdout).not.toContain('paid at')

    await world.pay('PAYER-1')
    const paid = await world.run(['order', 'query', 'PAYER-1'])
    expect(paid.stdout).toMatch(/paid by payer: +\d+\.\d\d CNY/)
    expect(paid.stdout).toMatch(/paid at: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d/)
  })
})

describe('--json as the README defines it', () => {
  it('gateway times are ISO 8601 with their offset: time_end of an order, refund_time of each refund', async () => {
    await createOrder('JSON-1', 'wechat', '10.00')
    await world.pay('JSON-1')
    const query = await world.run(['order', 'query', 'JSON-1', '--json'])
    expect(query.json<{record: {time_end: string}}>().record.time_end).toMatch(ISO)
    expect((await world.run(['refund', 'create', 'JSON-1', '--amount', '1.00', '--yes'])).code).toBe(0)
    const refunds = await world.run(['refund', 'query', 'JSON-1', '--json'])
    expect(refunds.code, refunds.stderr).toBe(0)
    const {order, refund} = refunds.json<{
      order: {time_end: string}
      refund: {time_end: string; refund_orders: {refund_time: string}[]}
    }>()
    expect(order.time_end).toMatch(ISO)
    expect(refund.time_end).toMatch(ISO)
    expect(refund.refund_orders[0]!.refund_time).toMatch(ISO)
  })

  it("reconcile's summary names amounts *_fee (minor units) and *_amount (decimal), the gateway's apart from the file's; the table labels them", async () => {
    await createOrder('SUM-1', 'wechat', '100.00')
    await createOrder('SUM-2', 'wechat', '50.00')
    const csv = join(world.configDir, 'summary.csv')
    writeFileSync(csv, 'mch_order_no,amount,fee_type\nSUM-1,100.00,THB\nSUM-2,60.00,THB\nSUM-MISSING,7.00,THB\n')
    const json = await world.run(['reconcile', csv, '--channel', 'wechat', '--json'])
    expect(json.code, json.stderr).toBe(1)
    const summary = json.json<{summary: Record<string, unknown>[]}>().summary
    expect(summary).toEqual([
      {
        classification: 'match',
        currency: 'THB',
        rows: 1,
        gateway_total_fee: 10_000,
        gateway_total_amount: '100.00',
        merchant_total_fee: 10_000,
        merchant_total_amount: '100.00',
      },
      {
        classification: 'amount_mismatch',
        currency: 'THB',
        rows: 1,
        gateway_total_fee: 5000,
        gateway_total_amount: '50.00',
        merchant_total_fee: 6000,
        merchant_total_amount: '60.00',
      },
      {
        classification: 'missing_at_gateway',
        currency: 'THB',
        rows: 1,
        merchant_total_fee: 700,
        merchant_total_amount: '7.00',
      },
    ])
    const text = await world.run(['reconcile', csv, '--channel', 'wechat', '--out', join(world.configDir, 's.csv')])
    const header = text.stdout.split('\n').find((line) => line.includes('classification'))!
    expect(header).toMatch(/gateway's amount.*your amount/)
    const missing = text.stdout.split('\n').find((line) => line.includes('missing_at_gateway'))!
    expect(missing).toMatch(/│ +- +│ +7\.00 THB/)
  })
})
