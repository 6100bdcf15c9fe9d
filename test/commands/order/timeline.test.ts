/**
 * gw order timeline: one order's story from what this machine knows and, with --refresh, what the gateway
 * says now; what the gateway does not bear out is said so.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {localZone} from '../../../src/lib/gateway/protocol/time.js'
import {suggested} from '../../helpers/cli.js'
import {type GwWorld, orderCreate, startWorld} from '../../helpers/gw-env.js'
import {ONE_FORM} from '../../helpers/shared.js'

let world: GwWorld

const line = (record: Record<string, unknown>) =>
  JSON.stringify({appid: world.sandbox.info.merchants[0]!.appid, at: '2026-03-01T10:00:00Z', ...record})

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

/** The command an advice ends with (`... : gw order timeline X --refresh`), run as printed: in this process, word by word. */
async function runAdvice(stderr: string, after: string, env?: Record<string, string>) {
  const command = suggested(stderr, after).trim()
  expect(command).toMatch(/^gw [\w\- ]+$/)
  return {command, run: await world.run(command.split(' ').slice(1), {env})}
}

/** An order paid through the sandbox (not this machine), its numbers and payer as an order query shows them. */
async function paidElsewhere(prefix: string, totalFee = 15_050) {
  const [order] = await world.paidOrders(1, totalFee, prefix)
  const queried = await world.run(['order', 'query', order!, '--json'], {env: world.machine().env})
  expect(queried.code, queried.stderr).toBe(0)
  type Record = {gw_order_no: string; channel_order_no: string; openid: string; time_end: string}
  return {order: order!, ...queried.json<{record: Record}>().record}
}

interface Totals {
  paid_amount: string
  refunded_amount?: string
  left_amount?: string
  unproven?: {mch_refund_no: string; status: string; refund_amount?: string}[]
  unproven_amount?: string
  refunds_not_known?: string
}

beforeAll(async () => {
  world = await startWorld({spawned: false})
})

afterAll(() => world.close())

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

describe('gw order timeline on a desk that did not make the order', () => {
  it('--refresh tells when it was paid and by whom, as the gateway answered, in the text and in --json', async () => {
    const paid = await paidElsewhere('TL-DESK')
    const {env} = world.machine()
    const told = await world.run(['order', 'timeline', paid.order, '--refresh'], {env})
    expect(told.code, told.stderr).toBe(0)
    expect(told.stdout).toMatch(
      new RegExp(
        `^Order ${paid.order} \\(gateway ${paid.gw_order_no}, channel order ${paid.channel_order_no}, wechat, 150\\.50 THB\\): SUCCESS: paid, as of \\S+ \\(asked now\\)`,
      ),
    )
    expect(told.stdout).toContain(
      `  ${paid.time_end}  paid       the gateway's time_end, as a query showed it; payer ${paid.openid}`,
    )
    expect(told.stdout).toContain('This order was not made on this machine.')
    const json = await world.run(['order', 'timeline', paid.order, '--refresh', '--json'], {env})
    const story = json.json<Story>()
    expect(story).toMatchObject({made_here: false, refreshed: true, channel_order_no: paid.channel_order_no})
    expect(story.entries).toEqual([{at: paid.time_end, kind: 'paid', openid: paid.openid, shown_by: ['query']}])
    expect(story.entries[0]!.at).toMatch(ONE_FORM)
  })

  it('without --refresh: exit 2, and the advice, run as printed, asks the gateway', async () => {
    const paid = await paidElsewhere('TL-ADVICE')
    const {env} = world.machine()
    const unknown = await world.run(['order', 'timeline', paid.order], {env})
    expect(unknown.code).toBe(2)
    const {command, run} = await runAdvice(unknown.stderr, 'Ask the gateway too: ', env)
    expect(command).toBe(`gw order timeline ${paid.order} --refresh`)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain(`paid       the gateway's time_end, as a query showed it; payer ${paid.openid}`)
  })
})

describe('gw order timeline by any number of the order', () => {
  it("knows an order made here by its gateway's number as the argument, and by the channel's once a query showed it", async () => {
    const made = await world.run(orderCreate('TL-NUMBERS', 'wechat', '20.00'))
    expect(made.code, made.stderr).toBe(0)
    await world.pay('TL-NUMBERS')
    const queried = await world.run(['order', 'query', 'TL-NUMBERS', '--json'])
    const {gw_order_no, channel_order_no} = queried.json<{record: {gw_order_no: string; channel_order_no: string}}>()
      .record
    for (const named of [
      [gw_order_no],
      ['--gw-order-no', gw_order_no],
      ['--channel-order-no', channel_order_no],
      [channel_order_no],
    ]) {
      const told = await world.run(['order', 'timeline', ...named])
      expect(told.code, `${named.join(' ')}: ${told.stderr}`).toBe(0)
      expect(told.stdout).toMatch(/^Order TL-NUMBERS \(gateway \d+, channel order \d+, wechat, 20\.00 THB\): SUCCESS/)
      expect(told.stdout).toContain('made       by profile sandbox (gw order create)')
    }
  })

  it('--channel-order-no with --refresh asks the gateway by it, on a desk that did not make the order', async () => {
    const paid = await paidElsewhere('TL-RECEIPT')
    const {env} = world.machine()
    const told = await world.run(
      ['order', 'timeline', '--channel-order-no', paid.channel_order_no, '--refresh', '--json'],
      {env},
    )
    expect(told.code, told.stderr).toBe(0)
    expect(told.json<Story>()).toMatchObject({
      mch_order_no: paid.order,
      gw_order_no: paid.gw_order_no,
      channel_order_no: paid.channel_order_no,
      state: 'SUCCESS',
    })
  })

  it("a gateway's or a channel's number this desk does not know: the advice asks the gateway by it, and runs as printed", async () => {
    const paid = await paidElsewhere('TL-GWNO')
    for (const [number, words] of [
      [paid.gw_order_no, "gateway's order number"],
      [paid.channel_order_no, "channel's order number"],
    ]) {
      const {env} = world.machine()
      const local = await world.run(['order', 'timeline', number!], {env})
      expect(local.code).toBe(2)
      const asked = await runAdvice(local.stderr, 'Ask the gateway too: ', env)
      expect(asked.command).toBe(`gw order timeline ${number} --refresh`)
      expect(asked.run.code, asked.run.stderr).toBe(0)
      expect(asked.run.stdout).toMatch(new RegExp(`^Order ${paid.order} `))
      expect(asked.run.stdout).toContain(`Found by its ${words}.`)
    }
  })
})

describe("gw order timeline's QR code", () => {
  it('says in --json what the text says: where it was drawn or why not, the file, and its code_url', async () => {
    const cases: [string, string[], Record<string, unknown>, string][] = [
      ['TL-QR-NO', ['--no-qr'], {not_drawn: '--no-qr was given'}, 'not drawn (--no-qr was given)'],
      [
        'TL-QR-JSON',
        ['--json'],
        {not_drawn: 'stdout was the --json document'},
        'not drawn (stdout was the --json document)',
      ],
      ['TL-QR-PIPE', [], {not_drawn: 'stdout was not a terminal'}, 'not drawn (stdout was not a terminal)'],
      ['TL-QR-ASKED', ['--qr'], {drawn: 'stdout'}, 'drawn (stdout)'],
    ]
    for (const [order, flags, said, text] of cases) {
      const made = orderCreate(order, 'wechat', '5.00').filter((word) => word !== '--no-qr')
      const created = await world.run([...made, ...flags, '--qr-out', join(world.configDir, `${order}.png`)])
      expect(created.code, created.stderr).toBe(0)
      const codeUrl =
        /code_url: +(\S+)/.exec(created.stdout)?.[1] ?? created.json<{order: {code_url: string}}>().order.code_url
      const story = (await world.run(['order', 'timeline', order, '--json'])).json<Story>()
      expect(story.entries.find((e) => e.kind === 'qr')).toEqual({
        at: expect.stringMatching(ONE_FORM),
        kind: 'qr',
        ...said,
        file: join(world.configDir, `${order}.png`),
        code_url: codeUrl,
      })
      const told = await world.run(['order', 'timeline', order])
      expect(told.stdout).toContain(
        `QR code    ${text}, saved to ${join(world.configDir, `${order}.png`)}; code_url ${codeUrl}`,
      )
    }
  })

  it('of an earlier gw, which did not record why it was not drawn: says so, never guesses', async () => {
    const {dir, env} = world.machine()
    writeFileSync(
      join(dir, 'history.jsonl'),
      [
        line({type: 'order', mch_order_no: 'TL-QR-OLD', channel: 'wechat', total_fee: 500, fee_type: 'THB'}),
        line({
          type: 'event',
          mch_order_no: 'TL-QR-OLD',
          kind: 'qr',
          detail: {code_url: 'weixin://wxpay/bizpayurl?pr=old'},
        }),
      ].join('\n'),
    )
    const story = (await world.run(['order', 'timeline', 'TL-QR-OLD', '--json'], {env})).json<Story>()
    expect(story.entries.find((e) => e.kind === 'qr')).toMatchObject({
      not_drawn: 'why was not recorded',
      code_url: 'weixin://wxpay/bizpayurl?pr=old',
    })
  })
})

describe("gw order timeline's story told short", () => {
  it('adds up: paid, refunded as proven, left; a refund not proven either way said apart, never counted', async () => {
    const made = await world.run(orderCreate('TL-TOTALS', 'wechat', '150.50'))
    expect(made.code, made.stderr).toBe(0)
    await world.pay('TL-TOTALS')
    expect((await world.run(['refund', 'create', 'TL-TOTALS', '--amount', '75.25'])).code).toBe(0)
    const told = await world.run(['order', 'timeline', 'TL-TOTALS'])
    expect(told.stdout).toContain('\n\nPaid 150.50 THB, refunded 75.25 THB, left 75.25 THB.\n')
    // A refund whose answer and every lookup are lost: sent, outcome unknown.
    const lost = await world.underFaults('drop-after-commit=1@order_refund,http-500=1@refund_query', () =>
      world.run(['refund', 'create', 'TL-TOTALS', '--amount', '10.00', '--json', '--timeout', '2']),
    )
    expect(lost.code, lost.stderr).toBe(5)
    const unknown = lost.json<{mch_refund_no: string}>().mch_refund_no

    const again = await world.run(['order', 'timeline', 'TL-TOTALS'])
    expect(again.stdout).toContain('Paid 150.50 THB, refunded 75.25 THB as the gateway showed it, left 75.25 THB.')
    expect(again.stdout).toContain(
      `Not proven either way, so not counted: 1 refund, ${unknown} of 10.00 THB (unknown); if made, 65.25 THB is left.`,
    )
    const story = (await world.run(['order', 'timeline', 'TL-TOTALS', '--json'])).json<Story & {totals: Totals}>()
    expect(story.totals).toMatchObject({
      paid_amount: '150.50',
      refunded_amount: '75.25',
      left_amount: '75.25',
      unproven: [{mch_refund_no: unknown, status: 'unknown', refund_amount: '10.00'}],
      unproven_amount: '10.00',
    })
    // Asked now, the gateway shows it made: counted.
    const refreshed = await world.run(['order', 'timeline', 'TL-TOTALS', '--refresh'])
    expect(refreshed.stdout).toContain('Paid 150.50 THB, refunded 85.25 THB, left 65.25 THB.')
  })

  it('on a desk that cannot name the refunds of a refunded order, says refunded is not known here, and why', async () => {
    const paid = await paidElsewhere('TL-NOTKNOWN')
    expect(
      (await world.run(['refund', 'create', paid.order, '--amount', '5.00'], {env: world.machine().env})).code,
    ).toBe(0)
    const {env} = world.machine()
    const told = await world.run(['order', 'timeline', paid.order, '--refresh', '--json'], {env})
    expect(told.json<{totals: Totals}>().totals).toMatchObject({paid_amount: '150.50'})
    expect(told.json<{totals: Totals}>().totals.refunds_not_known).toMatch(/^the order is REFUND/)
    expect(told.json<{totals: Totals}>().totals.refunded_amount).toBeUndefined()
    const text = await world.run(['order', 'timeline', paid.order, '--refresh'], {env})
    expect(text.stdout).toContain('Paid 150.50 THB; refunded: not known here: the order is REFUND')
  })

  it("folds support's own lookups: queries in a row showing the same state are one line with a count, in --json too", async () => {
    await world.createOrder('TL-FOLD', 'wechat', '8.00')
    await world.pay('TL-FOLD')
    for (let i = 0; i < 3; i++) expect((await world.run(['order', 'query', 'TL-FOLD'])).code).toBe(0)
    const text = await world.run(['order', 'timeline', 'TL-FOLD'])
    expect(text.stdout.match(/queried/g)).toHaveLength(1)
    expect(text.stdout).toMatch(/ {2}queried {4}SUCCESS: paid \(3 times, the last at \S+\)\n/)
    const story = (await world.run(['order', 'timeline', 'TL-FOLD', '--json'])).json<Story>()
    const queried = story.entries.filter((e) => e.kind === 'queried')
    expect(queried).toEqual([
      {
        at: expect.stringMatching(ONE_FORM),
        kind: 'queried',
        state: 'SUCCESS',
        count: 3,
        last_at: expect.stringMatching(ONE_FORM),
      },
    ])
    expect(Date.parse(queried[0]!.last_at as string)).toBeGreaterThanOrEqual(Date.parse(queried[0]!.at))
  })

  it("shows times on the gateway's clock (--zone gateway: the customer's, as the receipt), or a zone named, the same instants", async () => {
    const paid = await paidElsewhere('TL-ZONE')
    // The gateway's own text of time_end: the wall clock of the sandbox, which runs in this machine's zone.
    const wall = paid.time_end.slice(0, 19)
    const gatewayZone = localZone() === 'Pacific/Chatham' ? 'Asia/Kathmandu' : 'Pacific/Chatham'
    const {env} = world.machine()
    const desk = {...env, GW_GATEWAY_ZONE: gatewayZone}
    const story = async (...zone: string[]) => {
      // --zone is the run's clock: a process of its own.
      const run = await world.run(['order', 'timeline', paid.order, '--refresh', '--json', ...zone], {
        env: desk,
        process: zone.length > 0,
      })
      expect(run.code, run.stderr).toBe(0)
      return run.json<Story & {zone: string; state_at: string}>()
    }
    const local = await story()
    const gateway = await story('--zone', 'gateway')
    expect(local.zone).toBe(localZone())
    expect(gateway.zone).toBe(gatewayZone)
    const paidAt = (s: Story) => s.entries.find((e) => e.kind === 'paid')!.at
    expect(paidAt(gateway).slice(0, 19)).toBe(wall)
    expect(paidAt(gateway)).toMatch(gatewayZone === 'Pacific/Chatham' ? /\+1[23]:45$/ : /\+05:45$/)
    expect(Date.parse(paidAt(gateway))).toBe(Date.parse(paidAt(local)))
    expect(gateway.state_at).toMatch(ONE_FORM)

    const named = await world.run(['order', 'timeline', paid.order, '--refresh', '--zone', 'asia/kathmandu'], {
      env: desk,
      process: true,
    })
    expect(named.code, named.stderr).toBe(0)
    expect(named.stdout).toMatch(/^Order .*: SUCCESS: paid, as of \S+\+05:45 \(asked now\)/)
    expect(named.stdout).toMatch(/\n {2}\S+\+05:45 {2}paid {7}/)

    const refused = await world.run(['order', 'timeline', paid.order, '--zone', 'Mars/Olympus'], {
      env: desk,
      process: true,
    })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--zone "Mars/Olympus" is not a time zone.')
  })
})

describe('gw order timeline', () => {
  it('tells the story of an order made, shown, notified, queried and refunded twice (once by a file), in time order, in one time form', async () => {
    const url = await world.paidWhileListening('STORY-1')
    expect((await world.run(['order', 'query', 'STORY-1'])).code).toBe(0)
    const single = await world.run(['refund', 'create', 'STORY-1', '--amount', '10.00', '--json'])
    expect(single.code, single.stderr).toBe(0)
    const first = single.json<{mch_refund_no: string; gw_refund_no: string}>()
    const csv = join(world.configDir, 'story.csv')
    writeFileSync(csv, 'mch_order_no,refund_amount\nSTORY-1,20.00\n')
    expect((await world.bulk(csv)).code).toBe(0)

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
    await world.paidWhileListening('STORY-2', '50.00')
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
