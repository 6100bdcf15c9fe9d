/**
 * Advice that works (issue 32): every command gw suggests names what exists, and runs as printed,
 * so each is run here as a person pastes it into a shell. And what gw can refuse before sending,
 * it refuses.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {startReceiver, waitFor} from '../helpers/receiver.js'
import {TIME} from '../helpers/shared.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

/** The command that ends the line where `lead` is said (advice puts it last, nothing after it). */
function suggested(text: string, lead: string): string {
  const line = text.split('\n').find((l) => l.includes(lead))
  if (!line) throw new Error(`no "${lead}" in:\n${text}`)
  return line.slice(line.indexOf(lead) + lead.length)
}

describe('a repeated refund without a terminal', () => {
  it('names the refund that was made, at a time in the one form, and its command shows that refund', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ADV-SAME')
    const first = await world.run(['refund', 'create', order!, '--amount', '5.00', '--json'])
    expect(first.code, first.stderr).toBe(0)
    const made = first.json<{mch_refund_no: string}>().mch_refund_no
    const again = await world.run(['refund', 'create', order!, '--amount', '5.00'])
    expect(again.code).toBe(2)
    const look = suggested(again.stderr, 'look at the refund made first: ')
    expect(look).toBe(`gw refund query ${order} --mch-refund-no ${made}`)
    expect(again.stderr).toMatch(new RegExp(`refund ${made} of 5\\.00 THB was made at ${TIME.source}\\.`))
    expect(again.stderr).not.toMatch(/\d\.\d{3}Z/)
    const looked = await world.asPrinted(look)
    expect(looked.code, looked.stderr).toBe(0)
    expect(looked.stdout).toContain(made)
    expect((await world.ledger(order!))!.refunds).toHaveLength(1)
  })

  it('names the profile when the command was given one, so the advice runs against the same account', async () => {
    expect((await world.run(world.profileAdd('shop'))).code).toBe(0)
    // The default profile now points nowhere: advice without --profile would ask the wrong gateway.
    const nowhere = [...world.profileAdd('nowhere', '--default')]
    nowhere[nowhere.indexOf('--base-url') + 1] = 'http://127.0.0.1:9/Gateway'
    expect((await world.run(nowhere)).code).toBe(0)
    try {
      const [order] = await world.paidOrders(1, 10_000, 'ADV-PROFILE')
      const first = await world.run(['refund', 'create', order!, '--amount', '1.00', '-p', 'shop', '--json'])
      const made = first.json<{mch_refund_no: string}>().mch_refund_no
      const again = await world.run(['refund', 'create', order!, '--amount', '1.00', '-p', 'shop'])
      const look = suggested(again.stderr, 'look at the refund made first: ')
      expect(look).toBe(`gw refund query ${order} --mch-refund-no ${made} --profile shop`)
      const looked = await world.asPrinted(look)
      expect(looked.code, looked.stderr).toBe(0)
      expect(looked.stdout).toContain(made)
    } finally {
      await world.run(['profile', 'use', 'sandbox'])
    }
  })
})

describe('a refund still processing', () => {
  it('says how to check it later, and that check shows it, its state a word, what processing means said once', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ADV-SLOW')
    await world.faults('refund-processing=1')
    let made
    try {
      made = await world.run(['refund', 'create', order!, '--amount', '2.00'])
    } finally {
      await world.faults('')
    }
    expect(made.code, made.stderr).toBe(5)
    const check = suggested(made.stderr, 'Check it later: ')
    expect(check).toMatch(new RegExp(`^gw refund query ${order} --mch-refund-no RF\\w+$`))
    const checked = await world.asPrinted(check)
    expect(checked.stdout).toMatch(/│ PROCESSING: processing │/)
    expect(checked.stdout).toContain(
      'PROCESSING: the channel answers later: about 20 minutes for a balance payment, 3 working days for a card',
    )
    for (const line of checked.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(140)
  })
})

describe('an order not paid while waiting', () => {
  it('says how to check it later, and that check runs', async () => {
    const create = ['order', 'create', '--channel', 'wechat', '--amount', '1', '--fee-type', 'THB', '--no-qr']
    const waited = await world.run([...create, '--wait', '--wait-timeout', '1'])
    expect(waited.code).toBe(5)
    const check = suggested(waited.stderr, 'Check later: ')
    expect(check).toMatch(/^gw order query GW\w+ --channel wechat$/)
    const checked = await world.asPrinted(check)
    expect(checked.code, checked.stderr).toBe(0)
    expect(checked.stdout).toMatch(/state: +NOTPAY/)
  })
})

describe("a gateway's or a channel's order number given where the merchant's goes", () => {
  it("order query takes it as what it is, and says so; a number no order has is not called the gateway's", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ADV-GWNO')
    const {env} = world.machine()
    const queried = await world.run(['order', 'query', order!, '--json'], {env})
    const {gw_order_no, channel_order_no} = queried.json<{record: {gw_order_no: string; channel_order_no: string}}>()
      .record
    for (const [number, words] of [
      [gw_order_no, "the gateway's order number"],
      [channel_order_no, "the channel's order number"],
    ] as const) {
      // Another desk, which never saw the order: the gateway is asked by it as each of the order's numbers.
      const other = world.machine()
      const pasted = await world.run(['order', 'query', number], {env: other.env})
      expect(pasted.code, pasted.stderr).toBe(0)
      expect(pasted.stderr).toContain(`${number} is ${words} of order ${order}.`)
      expect(pasted.stdout).toMatch(new RegExp(`order: +${order}`))
    }
    const unknown = await world.run(['order', 'query', 'NO-SUCH-ORDER'])
    expect(unknown.stderr).not.toContain('--gw-order-no')
  })

  it('refund create names the flag it goes with, the right one, and the command it gives finds the order', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ADV-CHNO')
    const queried = await world.run(['order', 'query', order!, '--json'])
    const {gw_order_no, channel_order_no} = queried.json<{record: {gw_order_no: string; channel_order_no: string}}>()
      .record
    const {env} = world.machine()
    for (const [number, field, flag] of [
      [channel_order_no, "channel's", '--channel-order-no'],
      [gw_order_no, "gateway's", '--gw-order-no'],
    ] as const) {
      const pasted = await world.run(['refund', 'create', number, '--amount', '1.00'], {env})
      expect(pasted.code).toBe(2)
      expect(pasted.stderr).toContain(`${number} is the ${field} order number of order ${order} (wechat)`)
      const hinted = await world.asPrinted(suggested(pasted.stderr, 'in place of the order, as in '), {env})
      expect(hinted.code, hinted.stderr).toBe(0)
      expect(hinted.stdout).toMatch(new RegExp(`order: +${order}`))
      expect(suggested(pasted.stderr, 'in place of the order, as in ')).toContain(`${flag} ${number}`)
    }
    expect((await world.ledger(order!))!.refunds).toEqual([])
  })
})

describe('practice data in a folder with a space in its name', () => {
  it('the commands gw sandbox seed suggests run as printed', async () => {
    const folder = join(world.configDir, 'seed here')
    const seeded = await world.run(['sandbox', 'seed', '--orders', '4', '--out-dir', folder])
    expect(seeded.code, seeded.stderr).toBe(0)
    const next = seeded.stdout
      .split('Next:\n')[1]!
      .trim()
      .split('\n')
      .map((line) => line.trim())
    expect(next).toEqual([
      `gw reconcile '${folder}/orders-export.csv'`,
      `gw refund create --from-csv '${folder}/refunds.csv' --dry-run`,
      'gw order list --since today',
    ])
    // Reconcile finds the differences planted (1); the dry run and the list run clean.
    const codes = []
    for (const line of next) codes.push((await world.asPrinted(line)).code)
    expect(codes).toEqual([1, 0, 0])
  })
})

describe('a bulk run stopped part way', () => {
  it('says the command that resumes it, every flag kept, and that command finishes the run', async () => {
    const orders = await world.paidOrders(3, 10_000, 'ADV-RESUME')
    const csv = join(world.configDir, 'resume.csv')
    writeFileSync(csv, `Invoice No,Refund\n${orders.map((o) => `${o},3.00`).join('\n')}\n`)
    const args = ['refund', 'create', '--from-csv', csv, '--column', 'mch_order_no=Invoice No', '--yes']
    const stopped = await world.interrupted([...args, '--column', 'refund_amount=Refund', '--concurrency', '1'], {
      operation: 'order_refund',
      count: 1,
    })
    expect(stopped.code, stopped.stderr).toBe(130)
    const resume = suggested(stopped.stderr, 'Resume with the same command: ')
    expect(resume).toContain("--column 'mch_order_no=Invoice No'")
    const resumed = await world.asPrinted(resume)
    expect(resumed.code, resumed.stderr).toBe(0)
    for (const order of orders)
      expect(
        (await world.ledger(order))!.refunds.map((r) => r.refund_fee),
        order,
      ).toEqual([300])
  })
})

describe('refused before sending', () => {
  it('a currency the channel does not take: promptpay and the other Thai channels take THB only', async () => {
    const before = await world.requests()
    for (const [channel, currency] of [
      ['promptpay', 'JPY'],
      ['truemoney', 'MYR'],
    ]) {
      const create = ['order', 'create', '--channel', channel!, '--amount', '10', '--fee-type', currency!, '--no-qr']
      const refused = await world.run(create)
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain(
        `Not sent: channel ${channel} takes THB only (the document: Thailand only), not ${currency}.`,
      )
      expect(refused.stderr).not.toContain('not registered')
    }
    expect((await world.requests()).native_pay ?? 0).toBe(before.native_pay ?? 0)
  })

  it('a --notify-url that is not an http(s):// address', async () => {
    const before = await world.requests()
    for (const url of ['localhost:3000/hook', 'ftp://shop.example/hook', 'not a url']) {
      const create = ['order', 'create', '--channel', 'wechat', '--amount', '1', '--fee-type', 'THB']
      const refused = await world.run([...create, '--notify-url', url, '--no-qr'])
      expect(refused.code, url).toBe(2)
      expect(refused.stderr, url).toMatch(/--notify-url ".*" is not (an http:\/\/ or https:\/\/ address|an address)/)
    }
    expect((await world.requests()).native_pay ?? 0).toBe(before.native_pay ?? 0)
  })
})

describe('what the payer paid', () => {
  it("a PromptPay payment's notification says THB at no exchange; a wallet's rate is a number in --json", async () => {
    const app = await startReceiver(() => ({status: 200, body: '{"result":"SUCCESS","msg":"OK"}'}))
    try {
      const create = ['order', 'create', '--channel', 'promptpay', '--amount', '10', '--fee-type', 'THB', '--no-qr']
      const made = await world.run([...create, '--notify-url', app.url, '--mch-order-no', 'ADV-PP-1'])
      expect(made.code, made.stderr).toBe(0)
      await world.pay('ADV-PP-1')
      await waitFor(() => (app.received.length ? true : undefined))
      const {data} = JSON.parse(app.received[0]!.body) as {data: Record<string, unknown>}
      expect(data).toMatchObject({cash_fee_type: 'THB', cash_fee: 1000, total_fee: 1000, rate: 1})
    } finally {
      await app.close()
    }
    const [wechat] = await world.paidOrders(1, 10_000, 'ADV-RATE')
    const record = (await world.run(['order', 'query', wechat!, '--json'])).json<{record: Record<string, unknown>}>()
      .record
    expect(record).toMatchObject({rate: 0.2101, cash_fee_type: 'CNY'})
  })
})
