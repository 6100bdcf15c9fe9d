// Support sees one order's whole story (gw order timeline), lists that follow the payments the
// listener saw and say as of when, and lists by amount and payer; against the sandbox.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, startWorld} from '../helpers/gw-env.js'
import {ONE_FORM} from '../helpers/shared.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Story {
  mch_order_no: string
  gw_order_no?: string
  channel_order_no?: string
  state?: string
  state_at?: string
  openid?: string
  made_here: boolean
  refreshed: boolean
  entries: {at: string; kind: string; [fact: string]: unknown}[]
}

/** An order paid through the sandbox while `gw notify listen` runs: its notification verified by the listener. */
async function paidWhileListening(mchOrderNo: string, amount = '100.00') {
  const listener = await world.listen(['--exit-after', '1', '--timeout', '30'])
  const qr = ['--qr-out', join(world.configDir, `${mchOrderNo}.png`)]
  const made = orderCreate(mchOrderNo, 'wechat', amount).filter((word) => word !== '--no-qr')
  const created = await world.run([...made, '--notify-url', listener.url, ...qr])
  expect(created.code, created.stderr).toBe(0)
  await world.pay(mchOrderNo)
  const listened = await listener.result
  expect(listened.code, listened.stderr).toBe(0)
  return listener.url
}

describe('gw order timeline', () => {
  it('tells the story of an order made, shown, notified, queried and refunded twice (once by a file), in time order, in one time form', async () => {
    const url = await paidWhileListening('STORY-1')
    expect((await world.run(['order', 'query', 'STORY-1'])).code).toBe(0)
    const single = await world.run(['refund', 'create', 'STORY-1', '--amount', '10.00', '--json'])
    expect(single.code, single.stderr).toBe(0)
    const first = single.json<{mch_refund_no: string; gw_refund_no: string}>()
    const csv = join(world.configDir, 'story.csv')
    writeFileSync(csv, 'mch_order_no,refund_amount\nSTORY-1,20.00\n')
    expect((await world.run(['refund', 'create', '--from-csv', csv, '--yes'])).code).toBe(0)

    const told = await world.run(['order', 'timeline', 'STORY-1', '--json'])
    expect(told.code, told.stderr).toBe(0)
    const story = told.json<Story>()
    expect(story).toMatchObject({mch_order_no: 'STORY-1', state: 'REFUND', made_here: true, refreshed: false})
    expect(story.openid).toMatch(/^u_/)
    const kinds = story.entries.map((e) => e.kind)
    expect(kinds.slice(0, 4)).toEqual(['made', 'qr', 'paid', 'notified'])
    expect(kinds.filter((k) => k === 'refund')).toHaveLength(2)
    expect(kinds).toContain('queried')
    for (const entry of story.entries) expect(entry.at, JSON.stringify(entry)).toMatch(ONE_FORM)
    const times = story.entries.map((e) => Date.parse(e.at))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(story.entries[0]).toMatchObject({kind: 'made', profile: 'sandbox', command: 'gw order create', live: false})
    expect(story.entries[1]).toMatchObject({kind: 'qr', file: join(world.configDir, 'STORY-1.png')})
    expect(story.entries[2]).toMatchObject({kind: 'paid', shown_by: expect.arrayContaining(['notification', 'query'])})
    expect(story.entries[3]).toMatchObject({kind: 'notified', verdict: 'verified', listener: url})
    const refunds = story.entries.filter((e) => e.kind === 'refund')
    expect(refunds).toEqual([
      expect.objectContaining({
        mch_refund_no: first.mch_refund_no,
        refund_amount: '10.00',
        status: 'refunded',
        gw_refund_no: first.gw_refund_no,
        made_by: 'refund create',
      }),
      expect.objectContaining({refund_amount: '20.00', status: 'refunded', made_by: 'story.csv'}),
    ])

    const text = await world.run(['order', 'timeline', 'STORY-1'])
    expect(text.stdout).toMatch(
      /^Order STORY-1 \(gateway \d+, channel order \d+, wechat, 100\.00 THB\): REFUND: paid, and at least one refund succeeded, as of \S+ \(as this machine last learned it\)/,
    )
    expect(text.stdout).toContain('made       by profile sandbox (gw order create)')
    expect(text.stdout).toContain(`notified   verified by the listener at ${url}`)
    expect(text.stdout).toContain(
      `refund     ${first.mch_refund_no} of 10.00 THB: refunded (gateway refund ${first.gw_refund_no}), by gw refund create`,
    )
    expect(text.stdout).toMatch(/refund {5}RF\w+ of 20\.00 THB: refunded \(gateway refund \d+\), by .*story\.csv/)
    expect(text.stdout).toContain('add --refresh to ask the gateway now')
  })

  it('--refresh asks the gateway: its state now, and a refund made elsewhere (another machine) in the story', async () => {
    await paidWhileListening('STORY-2', '50.00')
    const here = await world.run(['refund', 'create', 'STORY-2', '--amount', '5.00'])
    expect(here.code, here.stderr).toBe(0)
    // Another machine refunds it too, under its own number.
    const elsewhere = await world.run(['refund', 'create', 'STORY-2', '--amount', '7.00', '--again', '--json'], {
      env: world.machine().env,
    })
    expect(elsewhere.code, elsewhere.stderr).toBe(0)
    const theirs = elsewhere.json<{mch_refund_no: string}>().mch_refund_no
    const told = await world.run(['order', 'timeline', 'STORY-2', '--refresh', '--json'])
    expect(told.code, told.stderr).toBe(0)
    const story = told.json<Story>()
    expect(story).toMatchObject({state: 'REFUND', refreshed: true})
    expect(story.state_at).toMatch(ONE_FORM)
    expect(story.entries.filter((e) => e.kind === 'refund')).toEqual([
      expect.objectContaining({refund_amount: '5.00', made_by: 'refund create', gateway_state: 'SUCCESS'}),
      expect.objectContaining({mch_refund_no: theirs, refund_amount: '7.00', made_by: 'elsewhere', status: 'SUCCESS'}),
    ])
    const text = await world.run(['order', 'timeline', 'STORY-2', '--refresh'])
    expect(text.stdout).toMatch(/REFUND: paid, and at least one refund succeeded, as of \S+ \(asked now\)/)
    expect(text.stdout).toContain(`${theirs} of 7.00 THB: SUCCESS`)
    expect(text.stdout).toContain('made elsewhere, as the gateway shows it')
  })

  it('an unpaid order closed: made, QR, the close and the state it showed', async () => {
    const made = await world.run(orderCreate('STORY-3', 'wechat', '3.00'))
    expect(made.code, made.stderr).toBe(0)
    expect((await world.run(['order', 'close', 'STORY-3'])).code).toBe(0)
    const story = (await world.run(['order', 'timeline', 'STORY-3', '--json'])).json<Story>()
    expect(story.state).toBe('CLOSED')
    expect(story.entries.map((e) => [e.kind, e.state ?? e.drawn ?? ''])).toEqual([
      ['made', ''],
      ['qr', ''],
      ['queried', 'CLOSED'],
      ['closed', ''],
    ])
  })

  it('of an order this machine does not know: exit 2, and the advice, run as printed, asks the gateway', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'STORY-UNKNOWN')
    const unknown = await world.run(['order', 'timeline', order!])
    expect(unknown.code).toBe(2)
    const advice = /Ask the gateway too: (gw .+)$/m.exec(unknown.stderr)?.[1]
    expect(advice).toBe(`gw order timeline ${order} --refresh`)
    const asked = await world.asPrinted(advice!)
    expect(asked.code, asked.stderr).toBe(0)
    expect(asked.stdout).toMatch(new RegExp(`^Order ${order} .*: SUCCESS: paid, as of \\S+ \\(asked now\\)`))
    expect(asked.stdout).toContain('This order was not made on this machine.')
  })
})

describe('lists', () => {
  it('order list follows a payment the listener verified, with no query, and says as of when', async () => {
    await paidWhileListening('ASOF-1', '12.00')
    await sleep(200)
    const listed = await world.run(['order', 'list', '--amount', '12.00'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(/│ state +│ as of +│/)
    expect(listed.stdout).toMatch(
      /│ ASOF-1 +│ 12\.00 THB +│ wechat +│ SUCCESS +│ \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2} │/,
    )
  })

  it("by amount and by payer: orders, and refunds of the payer's orders", async () => {
    await paidWhileListening('PAYER-1', '33.00')
    const queried = await world.run(['order', 'query', 'PAYER-1', '--json'])
    const payer = queried.json<{record: {openid: string}}>().record.openid
    expect((await world.run(['refund', 'create', 'PAYER-1', '--amount', '3.30'])).code).toBe(0)
    const byPayer = await world.run(['order', 'list', '--payer', payer, '--json'])
    expect(byPayer.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual(['PAYER-1'])
    const byAmount = await world.run(['order', 'list', '--amount', '฿33.00', '--json'])
    expect(byAmount.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual(['PAYER-1'])
    const refunds = await world.run(['refund', 'list', '--payer', payer, '--amount', '3.30', '--json'])
    expect(refunds.json<{refunds: {mch_order_no: string}[]}>().refunds.map((r) => r.mch_order_no)).toEqual(['PAYER-1'])
    const none = await world.run(['order', 'list', '--amount', '33.01', '--json'])
    expect(none.json<{orders: unknown[]}>().orders).toEqual([])
    const bad = await world.run(['order', 'list', '--amount', '1.5', '--json'])
    expect(bad.json<{orders: unknown[]}>().orders).toEqual([])
    const refused = await world.run(['order', 'list', '--amount', 'twelve'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--amount: "twelve" is not an amount')
  })
})
