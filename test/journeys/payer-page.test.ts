/** A journey across the sandbox: an order made with gw, paid or declined on the sandbox's payer page in a browser. */
import {join} from 'node:path'

import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {HAS_CHROMIUM, launchChromium} from '../helpers/browser.js'
import {type GwWorld, orderCreate, startWorld} from '../helpers/gw-env.js'
import {startReceiver, waitFor} from '../helpers/receiver.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

/** The order's result as `gw order query` shows it. */
const resultOf = async (mchOrderNo: string) =>
  (await world.run(['order', 'query', mchOrderNo, '--json'])).json<{record: {result: string}}>().record.result

/** `gw order create --json` of ARGS, and its payer page opened in `browser`: the order and the page. */
async function payerPage(browser: Browser, args: string[]) {
  const created = await world.run([...args, '--json'])
  const {order} = created.json<{order: {mch_order_no: string; code_url: string}}>()
  const page = await browser.newPage()
  await page.goto(order.code_url)
  return {order, page}
}

describe.skipIf(!HAS_CHROMIUM)('the sandbox payer page in a browser', () => {
  it('shows the order; pressing Pay pays it and the notification is sent', async () => {
    const receiver = await startReceiver(() => ({status: 200, body: '{"result":"SUCCESS","msg":"OK"}'}))
    const browser = await launchChromium()
    try {
      const {order, page} = await payerPage(browser, [
        ...orderCreate(undefined, 'truemoney', '42.50', {qr: true}),
        ...['--expire', '600', '--product', 'Iced tea', '--notify-url', receiver.url],
      ])
      expect(await page.textContent('#amount')).toBe('42.50 THB')
      expect(await page.textContent('#merchant')).toBe(world.sandbox.info.merchants[0]!.appid)
      expect(await page.textContent('#channel')).toBe('truemoney')
      expect(await page.textContent('#expiry')).toMatch(/^in (9|10) min \d+ s$/)
      expect(await page.textContent('body')).toContain('Iced tea')
      expect(await resultOf(order.mch_order_no)).toBe('USERPAYING')
      await page.click('#pay')
      await page.waitForSelector('text=Paid. Thank you.')
      expect(await resultOf(order.mch_order_no)).toBe('SUCCESS')
      await waitFor(() => (receiver.received.length > 0 ? true : undefined))
      expect(JSON.parse(receiver.received[0]!.body).data).toMatchObject({
        mch_order_no: order.mch_order_no,
        total_fee: 4250,
        result: 'SUCCESS',
      })
      await page.screenshot({path: join(world.configDir, 'payer-page.png')})
    } finally {
      await browser.close()
      await receiver.close()
    }
  })

  it('declines on Decline', async () => {
    const browser = await launchChromium()
    try {
      const {order, page} = await payerPage(browser, orderCreate(undefined, 'wechat', '1', {qr: true}))
      await page.click('#decline')
      await page.waitForSelector('text=Payment declined.')
      expect(await resultOf(order.mch_order_no)).toBe('PAYERROR')
    } finally {
      await browser.close()
    }
  })
})
