/**
 * gw desk's server, in-process against the sandbox (issue 48): what it refuses (another Host, no
 * session, another site, a post without its page's token or Origin), the headers every answer
 * carries, and a support person's work over HTTP: an order found by any of its numbers, its story,
 * a refund confirmed and sent once (a double submit, a reload, two tabs), the again-check, a live
 * profile's typed order number, an outcome not known yet settled by looking it up, the lists with
 * their filters a page at a time. The sandbox's ledger says what was refunded. Chromium's side is
 * in desk.browser.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type DeskBrowser, type TestDesk, deskRequest, startTestDesk, textOf, tokenOf} from '../helpers/desk.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'

let world: GwWorld
let desk: TestDesk
beforeAll(async () => {
  world = await startWorld({spawned: false})
  desk = await startTestDesk(world)
})
afterAll(async () => {
  await desk?.stop()
  await world?.close()
})

const refundsOf = async (order: string) => (await world.ledger(order))!.refunds
const queries = async () => (await world.requests()).order_query ?? 0

/** An order made here and paid: its numbers as a query shows them. */
async function paidHere(order: string, amount = '100.00', channel = 'wechat') {
  await world.createOrder(order, channel, amount)
  await world.pay(order)
  const queried = await world.run(['order', 'query', order, '--json'])
  return queried.json<{record: {gw_order_no: string; channel_order_no: string}}>().record
}

/** The refund form of an order's page filled in and sent: the confirmation's answer. */
async function draft(browser: DeskBrowser, order: string, amount: string, reason = 'returned') {
  const page = await browser.get(`/order?n=${order}`)
  expect(page.status, textOf(page.text)).toBe(200)
  const made = await browser.post('/refund/new', {token: tokenOf(page.text, '/refund/new'), n: order, amount, reason})
  expect(made.status, textOf(made.text)).toBe(303)
  const confirmation = await browser.follow(made)
  expect(confirmation.status).toBe(200)
  return {path: String(made.headers.location), page: confirmation.text}
}

const send = (browser: DeskBrowser, at: {path: string; page: string}, more: Record<string, string> = {}) =>
  browser.post(`${at.path}/send`, {token: tokenOf(at.page, `${at.path}/send`), ...more})

describe('what the desk refuses: nothing is served, nothing is sent', () => {
  it('without this run’s secret: no session, no page, no data', async () => {
    await paidHere('DK-SECRET')
    const before = await queries()
    const bare = await deskRequest(`${desk.origin}/order?n=DK-SECRET`)
    expect(bare.status).toBe(403)
    expect(bare.text).not.toContain('DK-SECRET')
    const wrong = await deskRequest(`${desk.origin}/open?secret=${'0'.repeat(64)}`)
    expect(wrong.status).toBe(403)
    expect(wrong.headers['set-cookie']).toBeUndefined()
    // A cookie of another run (or made up) is no session either.
    const forged = await deskRequest(`${desk.origin}/`, {headers: {cookie: 'gw_desk_00000000=abc'}})
    expect(forged.status).toBe(403)
    expect(await queries()).toBe(before)
  })

  it('the secret opens a session: an HttpOnly, SameSite=Strict cookie, and the secret leaves the address', async () => {
    const opened = await deskRequest(desk.url)
    expect(opened.status).toBe(303)
    expect(opened.headers.location).toBe('/')
    expect(opened.headers['set-cookie']![0]).toMatch(
      /^gw_desk_[0-9a-f]{8}=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Strict$/,
    )
  })

  it('a request naming another Host (DNS rebinding) is refused before anything, even with a session', async () => {
    const browser = await desk.browser()
    const before = await queries()
    const port = new URL(desk.origin).port
    for (const host of [`evil.example:${port}`, `localhost:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
      const rebound = await browser.get('/find?number=DK-SECRET', {host})
      expect(rebound.status, host).toBe(421)
      expect(rebound.text).not.toContain('DK-SECRET')
    }
    expect(await queries()).toBe(before)
  })

  it('a request another site or page made is refused, its session cookie notwithstanding', async () => {
    const browser = await desk.browser()
    const before = await queries()
    for (const site of ['cross-site', 'same-site']) {
      const asked = await browser.get('/order?n=DK-SECRET', {'sec-fetch-site': site})
      expect(asked.status, site).toBe(403)
      expect(asked.text).not.toContain('DK-SECRET')
    }
    expect(await queries()).toBe(before)
  })

  it('a post without its page’s token, with another page’s, or from another origin sends nothing', async () => {
    await paidHere('DK-POST')
    const browser = await desk.browser()
    const page = await browser.get('/order?n=DK-POST')
    const token = tokenOf(page.text, '/refund/new')
    const form = {n: 'DK-POST', amount: '1.00', reason: ''}
    const tries = [
      await browser.post('/refund/new', form),
      await browser.post('/refund/new', {...form, token: 'made-up'}),
      await browser.post('/refund/new', {...form, token}, {origin: 'http://evil.example'}),
      await browser.post('/refund/new', {...form, token}, {origin: ''}),
      await browser.post('/refund/new', {...form, token}, {'content-type': 'text/plain'}),
    ]
    expect(tries.map((t) => t.status)).toEqual([403, 403, 403, 403, 403])
    // A draft made properly, then its send posted with the draft form's token of another page: refused.
    const made = await draft(browser, 'DK-POST', '1.00')
    const stolen = await browser.post(`${made.path}/send`, {token})
    expect(stolen.status).toBe(403)
    const another = await desk.browser()
    expect((await another.post(`${made.path}/send`, {token: tokenOf(made.page, `${made.path}/send`)})).status).toBe(403)
    expect(await refundsOf('DK-POST')).toEqual([])
  })

  it('every answer says no frame and no script of elsewhere, and carries no CORS header', async () => {
    const browser = await desk.browser()
    const answers = [
      await browser.get('/'),
      await browser.get('/desk.css'),
      await deskRequest(`${desk.origin}/`),
      await deskRequest(`${desk.origin}/`, {method: 'OPTIONS', headers: {origin: 'http://evil.example'}}),
      await deskRequest(`${desk.origin}/`, {headers: {host: 'evil.example'}}),
    ]
    expect(answers.map((a) => a.status)).toEqual([200, 200, 403, 405, 421])
    for (const answer of answers) {
      expect(answer.headers['content-security-policy']).toBe(
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      )
      expect(answer.headers['x-frame-options']).toBe('DENY')
      expect(answer.headers['cache-control']).toBe('no-store')
      expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([])
    }
  })
})

describe('a support person’s work on the desk', () => {
  it('finds an order by each of its numbers and a refund’s, and tells its story with paid, refunded and left', async () => {
    const numbers = await paidHere('DK-FIND')
    const made = await world.run(['refund', 'create', 'DK-FIND', '--amount', '10.00', '--json'])
    const refund = made.json<{mch_refund_no: string; gw_refund_no: string}>()
    const browser = await desk.browser()
    const by: [string, string][] = [
      ['DK-FIND', ''],
      [numbers.gw_order_no, "Found by its gateway's order number."],
      [numbers.channel_order_no, "Found by its channel's order number."],
      [refund.mch_refund_no, 'Found by its refund number.'],
      [refund.gw_refund_no, "Found by its gateway's refund number."],
    ]
    for (const [number, found] of by) {
      const asked = await browser.follow(await browser.get(`/find?number=${number}`))
      expect(asked.status).toBe(200)
      const text = textOf(asked.text)
      expect(text).toContain('Order DK-FIND')
      if (found) expect(text).toContain(found)
      expect(text).toMatch(
        /REFUND : paid, and at least one refund succeeded, as of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(the gateway, asked now\)/,
      )
      expect(text).toContain('Paid 100.00 THB Refunded 10.00 THB Left 90.00 THB')
      expect(text).toContain(
        `${refund.mch_refund_no} of 10.00 THB: refunded (gateway refund ${refund.gw_refund_no}), by gw refund create`,
      )
    }
  })

  it('a number no order has: the find page says so, with the number shown as text, and its advice', async () => {
    const browser = await desk.browser()
    const number = '<img src=x onerror=alert(1)>'
    const asked = await browser.follow(await browser.get(`/find?number=${encodeURIComponent(number)}`))
    expect(asked.status).toBe(404)
    expect(asked.text).not.toContain('<img src=x')
    expect(asked.text).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(textOf(asked.text)).toContain(`No order has the number "${number}"`)
  })

  it('refunds part of an order: the confirmation shows what will be sent; sent once, however often it is posted', async () => {
    await paidHere('DK-ONCE', '80.00')
    const browser = await desk.browser()
    const at = await draft(browser, 'DK-ONCE', '25.50', 'one of two items returned')
    const shown = textOf(at.page)
    expect(shown).toContain('Nothing has been sent yet')
    expect(shown).toContain('Order DK-ONCE Amount 25.50 THB Currency THB Order total 80.00 THB Channel wechat')
    expect(shown).toContain(`Gateway ${world.sandbox.info.base_url} (appid ${world.sandbox.info.merchants[0]!.appid})`)
    expect(shown).toContain('Account test: profile sandbox')
    // A reload of the confirmation sends nothing.
    expect((await browser.get(at.path)).status).toBe(200)
    expect(await refundsOf('DK-ONCE')).toEqual([])
    // A double click: two posts at once.
    const [one, two] = await Promise.all([send(browser, at), send(browser, at)])
    expect([one.status, two.status]).toEqual([303, 303])
    const outcome = textOf((await browser.follow(one)).text)
    expect(outcome).toMatch(
      /Refunded: 25\.50 THB of order DK-ONCE The gateway shows refund RF\w+ of 25\.50 THB succeeded \(gateway refund \d+\)\./,
    )
    expect(outcome).toContain('Reason: one of two items returned')
    // The confirmation posted again later (the browser's back, then send): its outcome again.
    expect(textOf((await browser.follow(await send(browser, at))).text)).toContain('Refunded: 25.50 THB')
    expect(await refundsOf('DK-ONCE')).toEqual([expect.objectContaining({refund_fee: 2550, state: 'SUCCESS'})])
    const story = textOf((await browser.get('/order?n=DK-ONCE')).text)
    expect(story).toContain('Paid 80.00 THB Refunded 25.50 THB Left 54.50 THB')
  })

  it('two tabs: the second refund of the same amount meets the again-check, and is sent only when said so', async () => {
    await paidHere('DK-TABS', '50.00')
    const [tabA, tabB] = [await desk.browser(), await desk.browser()]
    const [a, b] = [await draft(tabA, 'DK-TABS', '10.00'), await draft(tabB, 'DK-TABS', '10.00')]
    expect((await send(tabA, a)).status).toBe(303)
    const asked = await tabB.follow(await send(tabB, b))
    expect(textOf(asked.text)).toMatch(
      /Nothing was sent: refund RF\w+ of 10\.00 THB was made at .* Yes: the customer is owed another refund of 10\.00 THB/,
    )
    expect(await refundsOf('DK-TABS')).toHaveLength(1)
    const unticked = await send(tabB, {path: b.path, page: asked.text})
    expect(unticked.status).toBe(422)
    expect(await refundsOf('DK-TABS')).toHaveLength(1)
    const meant = await tabB.follow(await send(tabB, {path: b.path, page: asked.text}, {again: 'yes'}))
    expect(textOf(meant.text)).toContain('Refunded: 10.00 THB of order DK-TABS')
    expect(await refundsOf('DK-TABS')).toHaveLength(2)
  })

  it('an order refunded elsewhere (this machine made none of its refunds) is asked about; sent only when said so', async () => {
    await paidHere('DK-ELSEWHERE', '40.00')
    // Another desk (the merchant platform) refunds it, straight at the gateway.
    const wire = world.sandbox.wire()
    const elsewhere = await wire.call('order_refund', {
      mch_order_no: 'DK-ELSEWHERE',
      channel: 'wechat',
      total_fee: 4000,
      fee_type: 'THB',
      mch_refund_no: 'DK-PLATFORM-1',
      refund_fee: 1000,
    })
    expect(elsewhere.data.result).toBe('SUCCESS')
    const browser = await desk.browser()
    const at = await draft(browser, 'DK-ELSEWHERE', '5.00')
    const asked = await browser.follow(await send(browser, at))
    expect(textOf(asked.text)).toContain(
      'Nothing was sent: order DK-ELSEWHERE shows a refund made (REFUND), and this machine made none of its refunds: it was refunded elsewhere',
    )
    expect(await refundsOf('DK-ELSEWHERE')).toHaveLength(1)
    const meant = await browser.follow(await send(browser, {path: at.path, page: asked.text}, {again: 'yes'}))
    expect(textOf(meant.text)).toContain('Refunded: 5.00 THB of order DK-ELSEWHERE')
    expect((await refundsOf('DK-ELSEWHERE')).map((r) => r.refund_fee)).toEqual([1000, 500])
  })

  it('an amount the order cannot take is refused on its page, saying why; nothing is sent', async () => {
    await paidHere('DK-AMOUNT', '20.00')
    const browser = await desk.browser()
    const page = await browser.get('/order?n=DK-AMOUNT')
    const cases: [string, string][] = [
      ['25.00', '25.00 THB is more than what is left of the order: 20.00 THB.'],
      ['1.234', 'The amount:'],
      ['-5', 'A refund is an amount above zero.'],
      ['five', 'The amount:'],
      ['¥5', 'The order is in THB, not JPY.'],
    ]
    for (const [amount, why] of cases) {
      const tried = await browser.post('/refund/new', {
        token: tokenOf(page.text, '/refund/new'),
        n: 'DK-AMOUNT',
        amount,
        reason: '',
      })
      expect(tried.status, amount).toBe(422)
      expect(textOf(tried.text)).toContain(why)
      expect(tried.text).toContain(`value="${amount.replace('<', '&lt;')}"`)
    }
    expect(await refundsOf('DK-AMOUNT')).toEqual([])
  })

  it('a refund whose answer was lost is said not known yet, and settled by looking it up: one refund', async () => {
    await paidHere('DK-LOST', '30.00')
    const browser = await desk.browser()
    const at = await draft(browser, 'DK-LOST', '5.00')
    // Every answer to the refund lost after the gateway made it, and its lookup failing too: not known.
    const outcome = await world.underFaults('drop-after-commit=1@refund,http-500=1@refund_query', async () =>
      browser.follow(await send(browser, at)),
    )
    const unknown = textOf(outcome.text)
    expect(unknown).toMatch(
      /Not known yet: 5\.00 THB of order DK-LOST Refund RF\w+ of 5\.00 THB was sent, and its outcome is not known yet\./,
    )
    expect(unknown).toContain('never sends a second refund')
    const settled = await browser.follow(
      await browser.post(`${at.path}/settle`, {token: tokenOf(outcome.text, `${at.path}/settle`)}),
    )
    expect(textOf(settled.text)).toContain('Refunded: 5.00 THB of order DK-LOST')
    expect(textOf(settled.text)).toContain(
      'It was sent by an earlier run whose outcome was not known: nothing new was sent.',
    )
    expect(await refundsOf('DK-LOST')).toEqual([expect.objectContaining({refund_fee: 500, state: 'SUCCESS'})])
  })
})

describe('whose clock', () => {
  it('shows every time on the zone asked for, and says which on every page', async () => {
    await world.createOrder('DK-ZONE', 'wechat', '9.00')
    const tokyo = await startTestDesk(world, {zone: 'Asia/Tokyo'})
    try {
      const page = await (await tokyo.browser()).get('/orders?amount=9.00')
      expect(textOf(page.text)).toContain('Times on the clock of Asia/Tokyo (+09:00).')
      expect(page.text).toMatch(/<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+09:00">/)
    } finally {
      await tokyo.stop()
    }
  })
})

describe('a live profile', () => {
  it('says LIVE on every page, and sends a refund only once the order number is typed', async () => {
    await paidHere('DK-LIVE', '40.00')
    expect((await world.run(world.profileAdd('shop', '--live'))).code).toBe(0)
    const live = await startTestDesk(world, {profile: 'shop'})
    try {
      const browser = await live.browser()
      for (const path of ['/', '/orders', '/refunds', '/order?n=DK-LIVE'])
        expect(textOf((await browser.get(path)).text)).toContain(
          'LIVE: profile shop moves real money. Every refund here is real.',
        )
      const at = await draft(browser, 'DK-LIVE', '4.00')
      expect(textOf(at.page)).toContain('Account LIVE : profile shop, real money')
      expect(textOf(at.page)).toContain('Type the order number to send this refund')
      for (const typed of ['', 'DK-LIV', 'dk-live']) expect((await send(browser, at, {typed})).status, typed).toBe(422)
      expect(await refundsOf('DK-LIVE')).toEqual([])
      const sent = await browser.follow(await send(browser, at, {typed: 'DK-LIVE'}))
      expect(textOf(sent.text)).toContain('Refunded: 4.00 THB of order DK-LIVE')
      expect(await refundsOf('DK-LIVE')).toHaveLength(1)
    } finally {
      await live.stop()
    }
  })
})

describe('the lists', () => {
  it("today's orders with the list commands' filters, a page of 25 at a time, each a link to its story", async () => {
    for (let i = 1; i <= 27; i++) await world.createOrder(`DK-LIST-${i}`, 'wechat', '7.77')
    await world.createOrder('DK-LIST-PP', 'promptpay', '7.77')
    expect((await world.run(['order', 'close', 'DK-LIST-1'])).code).toBe(0)
    const browser = await desk.browser()
    const first = await browser.get('/orders?since=today&amount=7.77')
    expect(first.status).toBe(200)
    expect(textOf(first.text)).toContain('Page 1 of 2 (28 orders)')
    expect(first.text.match(/<tr>/g)).toHaveLength(26)
    expect(first.text).toContain('href="/order?n=DK-LIST-PP"')
    const second = await browser.get('/orders?since=today&amount=7.77&page=2')
    expect(textOf(second.text)).toContain('Page 2 of 2 (28 orders)')
    expect(second.text.match(/<tr>/g)).toHaveLength(4)
    expect(second.text).toContain('href="/order?n=DK-LIST-1"')
    const closed = await browser.get('/orders?amount=7.77&state=CLOSED')
    expect(textOf(closed.text)).toContain('Page 1 of 1 (1 orders)')
    const promptpay = await browser.get('/orders?amount=7.77&channel=promptpay')
    expect(textOf(promptpay.text)).toContain('DK-LIST-PP')
    expect(textOf(promptpay.text)).not.toContain('DK-LIST-2 ')
    const yesterday = await browser.get('/orders?since=yesterday&until=yesterday&amount=7.77')
    expect(textOf(yesterday.text)).toContain('No orders made on this machine match.')
  })

  it('refunds with the filters; a filter that is not one says so, naming it, and lists nothing', async () => {
    await paidHere('DK-RLIST', '60.00')
    expect((await world.run(['refund', 'create', 'DK-RLIST', '--amount', '6.66'])).code).toBe(0)
    const browser = await desk.browser()
    const listed = textOf((await browser.get('/refunds?amount=6.66&state=refunded')).text)
    expect(listed).toMatch(/RF\w+ DK-RLIST 6\.66 THB refunded \d+ gw refund create/)
    for (const [query, said] of [
      ['since=someday', '“From” someday is not a time gw reads.'],
      ['since=today&until=yesterday', '“From” today is not before “Before” yesterday'],
      ['state=gone', 'No refunds are in state gone.'],
      ['channel=paypal', 'There is no channel paypal.'],
      ['amount=lots', 'is not an amount'],
    ]) {
      const refused = await browser.get(`/refunds?${query}`)
      expect(refused.status, query).toBe(400)
      expect(textOf(refused.text)).toContain(said)
    }
  })
})

describe('the desk stopping (Ctrl-C) while a refund is in flight', () => {
  it('says it sent and not known, and its summary names the command that settles it; the next look settles it once', async () => {
    await paidHere('DK-STOP', '30.00')
    const stopping = await startTestDesk(world)
    const browser = await stopping.browser()
    const at = await draft(browser, 'DK-STOP', '3.00')
    await world.underFaults('latency=1500ms@refund', async () => {
      const before = (await world.requests()).order_refund ?? 0
      const sending = send(browser, at)
      while (((await world.requests()).order_refund ?? 0) === before) await new Promise((r) => setTimeout(r, 20))
      await stopping.stop()
      await sending.catch(() => undefined)
    })
    const summary = stopping.desk.summary()
    expect(summary.refunds).toEqual([
      expect.objectContaining({mch_order_no: 'DK-STOP', amount: '3.00 THB', outcome: 'not_known'}),
    ])
    const {deskSummaryLines} = await import('../../src/lib/desk/summary.js')
    const lines = deskSummaryLines(summary, {name: 'sandbox'})
    const settle = /settle it \(gw looks it up first, never refunds twice\): (gw .+)$/m.exec(lines.join('\n'))![1]!
    expect(settle).toMatch(/^gw refund create DK-STOP --amount 3\.00 --mch-refund-no RF\w+$/)
    const settled = await world.asPrinted(settle)
    expect(settled.code, settled.stderr).toBe(0)
    expect(await refundsOf('DK-STOP')).toEqual([expect.objectContaining({refund_fee: 300, state: 'SUCCESS'})])
  })
})
