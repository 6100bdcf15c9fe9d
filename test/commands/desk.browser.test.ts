/**
 * gw desk in Chromium (Debian's, driven by playwright-core, as the payer page's tests are), the
 * desk's server in-process against the sandbox: a support person's journey with the keyboard alone,
 * from a number read out to a partial refund, asserted on the page's text and the sandbox's ledger;
 * every page at 320 px and 1440 px (a screenshot each, written to GW_DESK_SCREENSHOTS or a folder
 * of the system's temporary one), readable without scrolling sideways, every control with an
 * accessible name; and the attacks a page elsewhere can try (a rebound Host, a cross-site and a
 * same-site form post, a post without its token, a framed desk, a gateway text with markup),
 * each refused with nothing sent.
 */
import {existsSync, mkdirSync} from 'node:fs'
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type TestDesk, startTestDesk} from '../helpers/desk.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'

const CHROMIUM = '/usr/bin/chromium'
// CI installs it (.ci/run); elsewhere these tests say they were skipped rather than pass.
const RUN = existsSync(CHROMIUM) || Boolean(process.env.CI)
const SHOTS = process.env.GW_DESK_SCREENSHOTS ?? join(tmpdir(), 'gw-desk-screenshots')
const WIDTHS = [320, 1440]

let world: GwWorld
let desk: TestDesk
let browser: Browser
/** A page elsewhere: the attacker's, at evil.example (another site) and at 127.0.0.1 on another port (the same site). */
let attacker: {server: Server; port: number; page: string}

beforeAll(async () => {
  if (!RUN) return
  mkdirSync(SHOTS, {recursive: true})
  world = await startWorld({spawned: false})
  desk = await startTestDesk(world)
  const {chromium} = await import('playwright-core')
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // evil.example is this machine, as a rebinding DNS makes it.
      '--host-resolver-rules=MAP evil.example 127.0.0.1',
    ],
  })
  attacker = {server: createServer((_req, res) => res.end(attacker.page)), port: 0, page: ''}
  await new Promise<void>((resolve) => attacker.server.listen(0, '127.0.0.1', resolve))
  attacker.port = (attacker.server.address() as AddressInfo).port
}, 120_000)

afterAll(async () => {
  await browser?.close()
  attacker?.server.close()
  await desk?.stop()
  await world?.close()
})

const refundsOf = async (order: string) => (await world.ledger(order))!.refunds
const sent = async () => (await world.requests()).order_refund ?? 0

/** A browser tab at `width`, holding the desk's session (opened by its printed address, as a person does). */
async function tabAt(width: number): Promise<Page> {
  const context = await browser.newContext({viewport: {width, height: 900}})
  const page = await context.newPage()
  const opened = await page.goto(desk.url)
  expect(opened!.status()).toBe(200)
  expect(new URL(page.url()).pathname).toBe('/')
  return page
}

/** In the page: how far it is wider than its window, and the controls a screen reader could not name. */
const WIDER = 'document.documentElement.scrollWidth - window.innerWidth'
const UNNAMED = `[...document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href]')]
  .filter((element) => ![...(element.labels ?? [])].map((label) => label.textContent).join('')
    .concat(element.getAttribute('aria-label') ?? '', element.textContent ?? '').trim())
  .map((element) => element.outerHTML)`

/** What a page must be at every width: its screenshot; nothing wider than the window, every control named. */
async function lookAt(page: Page, name: string, width: number): Promise<void> {
  await page.screenshot({path: join(SHOTS, `${name}-${width}.png`), fullPage: true})
  expect(await page.evaluate(WIDER), `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0)
  expect(await page.evaluate(UNNAMED), `controls without an accessible name on ${name}`).toEqual([])
}

/** Presses Tab until the element of `id` has the focus: it is reached with the keyboard alone. */
async function tabTo(page: Page, id: string): Promise<void> {
  for (let presses = 0; presses < 60; presses++) {
    if ((await page.evaluate('document.activeElement?.id')) === id) return
    await page.keyboard.press('Tab')
  }
  throw new Error(`#${id} is not reached with Tab`)
}

const text = (page: Page) => page.locator('main').innerText()

describe.skipIf(!RUN)('a support person at the desk, in Chromium', () => {
  it('from a number read out to a partial refund, with the keyboard alone; every page at 320 and 1440 px', async () => {
    await world.createOrder('DB-CAFE-17', 'wechat', '100.00')
    await world.pay('DB-CAFE-17')
    const {record} = (await world.run(['order', 'query', 'DB-CAFE-17', '--json'])).json<{
      record: {channel_order_no: string}
    }>()
    await world.createOrder('DB-UNPAID', 'promptpay', '35.00')
    // A refund at each width, of another amount (the same again would meet the again-check).
    const amounts: Record<number, string> = {320: '12.50', 1440: '7.25'}
    for (const width of WIDTHS) {
      const amount = amounts[width]!
      const page = await tabAt(width)
      await expect(page.title()).resolves.toBe('Find an order · gw desk')
      expect(await page.locator('.banner').innerText()).toBe('Test account: profile sandbox. No real money moves.')
      await lookAt(page, 'find', width)
      // The customer reads out the number on their wallet's receipt: the find box has the focus.
      await page.keyboard.type(record.channel_order_no)
      await page.keyboard.press('Enter')
      await page.waitForURL(/\/order\?n=/)
      const story = await text(page)
      expect(story).toContain('Order DB-CAFE-17')
      expect(story).toContain("Found by its channel's order number.")
      // Paid (at 320 px), then refunded once already (at 1440 px).
      expect(story).toMatch(
        /(SUCCESS: paid|REFUND: paid, and at least one refund succeeded), as of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(the gateway, asked now\)/,
      )
      expect(story).toMatch(/Paid\s+100\.00 THB\s+Refunded\s+\d+\.\d\d THB\s+Left/)
      await lookAt(page, 'order', width)
      await tabTo(page, 'amount')
      await page.keyboard.type(amount)
      await page.keyboard.press('Tab')
      await page.keyboard.type('one cake missing')
      const before = await sent()
      await page.keyboard.press('Enter')
      await page.waitForURL(/\/refund\/[\w-]+$/)
      const confirm = await text(page)
      expect(confirm).toContain('Nothing has been sent yet. This is exactly what will be sent:')
      expect(confirm).toMatch(
        new RegExp(`Order\\s+DB-CAFE-17\\s+Amount\\s+${amount.replace('.', '\\.')} THB\\s+Currency\\s+THB`),
      )
      expect(confirm).toContain('test: profile sandbox')
      expect(await sent()).toBe(before)
      await lookAt(page, 'confirmation', width)
      await tabTo(page, 'send')
      expect(await page.getByRole('button', {name: `Send the refund of ${amount} THB`}).evaluate((b) => b.id)).toBe(
        'send',
      )
      await page.keyboard.press('Enter')
      await page.waitForSelector('.outcome')
      const amountPattern = amount.replace('.', '\\.')
      expect(await text(page)).toMatch(
        new RegExp(
          `Refunded: ${amountPattern} THB of order DB-CAFE-17\\s+The gateway shows refund RF\\w+ of ${amountPattern} THB succeeded \\(gateway refund \\d+\\)\\.`,
        ),
      )
      expect(await sent()).toBe(before + 1)
      await lookAt(page, 'outcome', width)
      await page.getByRole('link', {name: 'Orders'}).focus()
      await page.keyboard.press('Enter')
      await page.waitForURL(/\/orders$/)
      expect(await text(page)).toContain('DB-UNPAID')
      await lookAt(page, 'orders', width)
      await page.getByRole('link', {name: 'Refunds'}).focus()
      await page.keyboard.press('Enter')
      await page.waitForURL(/\/refunds$/)
      expect(await text(page)).toMatch(new RegExp(`RF\\w+\\s+DB-CAFE-17\\s+${amountPattern} THB\\s+refunded`))
      await lookAt(page, 'refunds', width)
      await page.goto(`${desk.origin}/order?n=DB-UNPAID`)
      expect(await text(page)).toContain('Not paid yet: the payer can scan it.')
      expect(await page.getByRole('img', {name: 'QR code of order DB-UNPAID'}).count()).toBe(1)
      await lookAt(page, 'order-unpaid', width)
      await page.context().close()
    }
    // Once at each width, as the ledger has them.
    expect((await refundsOf('DB-CAFE-17')).map((r) => [r.refund_fee, r.state])).toEqual([
      [1250, 'SUCCESS'],
      [725, 'SUCCESS'],
    ])
  }, 120_000)
})

describe.skipIf(!RUN)('what a page elsewhere can do, in Chromium: nothing reaches gw’s data or its refund', () => {
  it('a rebound Host is refused; a framed desk is not shown; cross-site and same-site posts send nothing', async () => {
    await world.createOrder('DB-ATTACK', 'wechat', '50.00')
    await world.pay('DB-ATTACK')
    const victim = await tabAt(1440)
    // The victim has a refund waiting on its confirmation: the attacker knows (or guesses) its address.
    await victim.goto(`${desk.origin}/order?n=DB-ATTACK`)
    await victim.getByLabel('Amount to refund, in THB').fill('50.00')
    await victim.getByRole('button', {name: 'Review the refund'}).click()
    await victim.waitForURL(/\/refund\/[\w-]+$/)
    const draft = new URL(victim.url()).pathname
    const port = new URL(desk.origin).port
    const before = await sent()

    const rebound = await victim.goto(`http://evil.example:${port}/order?n=DB-ATTACK`)
    expect(rebound!.status()).toBe(421)
    expect(await victim.locator('body').innerText()).not.toContain('DB-ATTACK')

    for (const origin of [`http://evil.example:${attacker.port}`, `http://127.0.0.1:${attacker.port}`]) {
      attacker.page = `<!doctype html><title>win a prize</title>
<iframe id="framed" src="${desk.origin}/order?n=DB-ATTACK"></iframe>
<form id="new" method="post" action="${desk.origin}/refund/new"><input name="n" value="DB-ATTACK"><input name="amount" value="50.00"></form>
<form id="send" method="post" action="${desk.origin}${draft}/send"></form>`
      const page = await victim.context().newPage()
      await page.goto(`${origin}/`)
      // The frame holds no page of the desk (frame-ancestors 'none', X-Frame-Options: DENY).
      const frame = page.frames().find((f) => f !== page.mainFrame())!
      expect(await frame.evaluate("document.body?.innerText ?? ''").catch(() => '')).not.toContain('DB-ATTACK')
      for (const form of ['new', 'send']) {
        const [answer] = await Promise.all([
          page.waitForNavigation(),
          page.evaluate(`document.getElementById('${form}').submit()`),
        ])
        expect(answer!.status(), `${origin} posting #${form}`).toBe(403)
        expect(await page.locator('body').innerText()).not.toContain('DB-ATTACK')
        await page.goBack()
      }
      await page.close()
    }
    expect(await sent()).toBe(before)
    expect(await refundsOf('DB-ATTACK')).toEqual([])

    // The desk's own page, its form stripped of its token (as a forged form would be): refused.
    const again = await victim.goto(`${desk.origin}${draft}`)
    expect(again!.status(), await victim.locator('body').innerText()).toBe(200)
    await victim.evaluate("document.querySelector('input[name=token]').remove()")
    const [stripped] = await Promise.all([
      victim.waitForNavigation(),
      victim.getByRole('button', {name: 'Send the refund of 50.00 THB'}).click(),
    ])
    expect(stripped!.status()).toBe(403)
    expect(await sent()).toBe(before)
    expect(await refundsOf('DB-ATTACK')).toEqual([])
    await victim.context().close()
  }, 120_000)

  it('a gateway text with markup is shown as text: no element, no script', async () => {
    const hostile = '<img src=x onerror=alert(1)>'
    // An order the gateway knows by a number holding markup, made elsewhere (not by gw).
    const wire = world.sandbox.wire()
    expect(
      (await wire.call('native_pay', {channel: 'wechat', mch_order_no: hostile, total_fee: 500, fee_type: 'THB'})).data
        .result,
    ).toBe('SUCCESS')
    expect((await world.sandbox.controls.pay(hostile)).status).toBe(200)
    const page = await tabAt(1440)
    const dialogs: string[] = []
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    await page.getByLabel('Any number of the order or of a refund').fill(hostile)
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/order\?n=/)
    expect(await page.locator('h1').innerText()).toBe(`Order ${hostile}`)
    expect(await page.locator('main img').count()).toBe(0)
    // And a number no order has, echoed back with the gateway's own words: text too.
    await page.goto(`${desk.origin}/find?number=${encodeURIComponent(`${hostile}2`)}`)
    expect(await text(page)).toContain(`No order has the number "${hostile}2"`)
    expect(await page.locator('main img').count()).toBe(0)
    expect(dialogs).toEqual([])
    await page.context().close()
  }, 60_000)
})
