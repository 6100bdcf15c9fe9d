/** gw order create: an order and its QR code, refused before sending when it cannot be right; --wait. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {drawQr} from '../../../src/lib/render/qr.js'
import {suggested} from '../../helpers/cli.js'
import {type GwWorld, orderCreate, orderNo, startWorld} from '../../helpers/gw-env.js'
import {readDrawnQr} from '../../helpers/qr-screen.js'
import {waitFor} from '../../helpers/receiver.js'
import {HAS_TMUX, Terminal} from '../../helpers/terminal.js'

let world: GwWorld

const ESC = '\u001b'

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('gw order create', () => {
  it('creates an order and prints its numbers, amount, channel and expiry', async () => {
    const mch = orderNo()
    const result = await world.run(orderCreate(mch, 'wechat', '150.50', {qr: true}))
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`order: +${mch}`))
    expect(result.stdout).toMatch(/amount: +150\.50 THB/)
    expect(result.stdout).toMatch(/channel: +wechat/)
    expect(result.stdout).toMatch(/QR expires: +\S/)
    expect(await world.ledger(mch)).toMatchObject({state: 'NOTPAY', channel: 'wechat'})
  })

  it('generates the merchant order number and gives one JSON document under --json', async () => {
    const result = await world.run([
      'order',
      'create',
      '--channel',
      'alipay',
      '--total-fee',
      '2500',
      '--fee-type',
      'MYR',
      '--json',
    ])
    expect(result.code).toBe(0)
    const json = result.json<{
      order: {mch_order_no: string; gw_order_no: string; code_url: string}
      total_fee: number
      fee_type: string
      expires_at: string
    }>()
    expect(json.order.mch_order_no).toMatch(/^GW\d{14}[0-9A-F]{6}$/)
    expect(json).toMatchObject({total_fee: 2500, fee_type: 'MYR'})
    expect(Date.parse(json.expires_at) - Date.now()).toBeGreaterThan(2.9 * 3600 * 1000)
    expect(await world.ledger(json.order.mch_order_no)).toMatchObject({state: 'NOTPAY'})
  })

  it('saves the QR image: PNG by default, SVG when asked', async () => {
    const png = join(world.configDir, 'qr.png')
    const saved = (channel: string, ...flags: string[]) =>
      world.run([...orderCreate(undefined, channel, '10', {qr: true}), ...flags])
    expect((await saved('truemoney', '--expire', '600', '--qr-out', png)).code).toBe(0)
    expect(readFileSync(png).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
    const svg = join(world.configDir, 'qr.svg')
    expect((await saved('wechat', '--img-type', 'svg', '--qr-out', svg)).code).toBe(0)
    expect(readFileSync(svg, 'utf8')).toContain('<svg')
  })

  it('treats the airpay code_url as an image: says so and saves that image', async () => {
    const file = join(world.configDir, 'airpay.png')
    const result = await world.run([...orderCreate(undefined, 'airpay', '10', {qr: true}), '--qr-out', file])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('airpay: code_url is an image URL')
    // Saved as asked: no advice to do what was just done.
    expect(result.stderr).not.toContain('save it with --qr-out')
    expect(result.stderr).toContain(`saved to ${file}`)
    expect(readFileSync(file).subarray(0, 4).toString('hex')).toBe('89504e47')
  })

  it('refuses amounts that do not fit the currency, exit 2, nothing sent', async () => {
    for (const [amount, currency, message] of [
      ['150.505', 'THB', 'THB has 2 decimal places'],
      ['150.5', 'JPY', 'JPY has no minor unit'],
      ['-3', 'THB', 'is negative'],
      ['0', 'THB', 'above zero'],
    ] as const) {
      const mch = orderNo()
      const result = await world.run(orderCreate(mch, 'wechat', amount, {feeType: currency, qr: true}))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(message)
      expect(await world.ledger(mch)).toBeUndefined()
    }
  })

  it('refuses a 33-character order number and --expire on a channel without it, before sending', async () => {
    const long = await world.run(orderCreate('X'.repeat(33), 'wechat', '1', {qr: true}))
    expect(long.code).toBe(2)
    expect(long.stderr).toContain('mch_order_no must be at most 32 characters')
    const expire = await world.run([...orderCreate(undefined, 'wechat', '1', {qr: true}), '--expire', '60'])
    expect(expire.code).toBe(2)
    expect(expire.stderr).toContain('Only truemoney and scb_qrcard take --expire')
  })

  it('reports a gateway refusal with its meaning and advice, exit 1', async () => {
    const mch = orderNo()
    const create = orderCreate(mch, 'wechat', '1', {qr: true})
    await world.run(create)
    const again = await world.run([...create, '--json'])
    expect(again.code).toBe(1)
    expect(again.json()).toMatchObject({error: {kind: 'refused', exit_code: 1, err_code: 'GW_DUPLICATED_ORDERNO'}})
    expect(again.stderr).toContain('The merchant order number was already used. Use a new merchant order number')
  })

  /** `gw order create --wait` of a new order of 5.00 THB that its payer pays (or, `fail`, declines): gw's result. */
  async function waitedOn(fail: boolean) {
    const mch = orderNo()
    const waiting = world.run([...orderCreate(mch, 'wechat', '5', {qr: true}), '--wait', '--wait-timeout', '20'])
    // Paid as soon as the waiting command has made the order, however long its start takes.
    await waitFor(() => world.ledger(mch), 20_000)
    await world.pay(mch, fail)
    return waiting
  }

  it('--wait ends 0 once the order is paid', async () => {
    const result = await waitedOn(false)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/state: +SUCCESS: paid/)
  })

  it('--wait ends 1 when the payment fails, 5 when the wait runs out', async () => {
    expect((await waitedOn(true)).code).toBe(1)
    const timeout = await world.run([
      ...orderCreate(undefined, 'wechat', '5', {qr: true}),
      '--wait',
      '--wait-timeout',
      '2',
    ])
    expect(timeout.code).toBe(5)
    expect(timeout.stderr).toContain('Not paid before the wait ended')
  })

  it('--wait stopped by SIGTERM or Ctrl-C ends 143 or 130 (not killed outright), the order kept in the history', async () => {
    for (const [signal, code] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const) {
      const mch = orderNo()
      const {child, result} = world.spawn([...orderCreate(mch, 'wechat', '5', {qr: true}), '--wait'])
      await waitFor(() => world.ledger(mch), 20_000)
      child.kill(signal)
      expect(await result).toMatchObject({code, signal: null})
      const listed = (await world.run(['order', 'list', '--json'])).json<{orders: {mch_order_no: string}[]}>()
      expect(listed.orders.map((o) => o.mch_order_no)).toContain(mch)
    }
  })
})

describe('retries never duplicate money', () => {
  it('a create whose answers are all dropped is found by a query: one order, exit 0', async () => {
    const mch = orderNo()
    await world.underFaults('drop-after-commit=1@native_pay', async () => {
      const result = await world.run(orderCreate(mch, 'wechat', '3', {qr: true}))
      expect(result.code).toBe(0)
      expect(result.stderr).toContain('the answer carrying its QR code was lost')
    })
    const {body} = await world.sandbox.control<{orders: unknown[]}>('GET', `/sandbox/orders?mch_order_no=${mch}`)
    expect(body.orders).toHaveLength(1)
  })
})

describe('an order not paid while waiting', () => {
  it('says how to check it later, and that check runs', async () => {
    const create = orderCreate(undefined, 'wechat', '1')
    const waited = await world.run([...create, '--wait', '--wait-timeout', '1'])
    expect(waited.code).toBe(5)
    const check = suggested(waited.stderr, 'Check later: ')
    expect(check).toMatch(/^gw order query GW\w+ --channel wechat$/)
    const checked = await world.asPrinted(check)
    expect(checked.code, checked.stderr).toBe(0)
    expect(checked.stdout).toMatch(/state: +NOTPAY/)
  })
})

describe('refused before sending', () => {
  it('a currency the channel does not take: promptpay and the other Thai channels take THB only', async () => {
    const before = await world.requests()
    for (const [channel, currency] of [
      ['promptpay', 'JPY'],
      ['truemoney', 'MYR'],
    ] as const) {
      const refused = await world.run(orderCreate(undefined, channel, '10', {feeType: currency}))
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
      const refused = await world.run([...orderCreate(undefined, 'wechat', '1'), '--notify-url', url])
      expect(refused.code, url).toBe(2)
      expect(refused.stderr, url).toMatch(/--notify-url ".*" is not (an http:\/\/ or https:\/\/ address|an address)/)
    }
    expect((await world.requests()).native_pay ?? 0).toBe(before.native_pay ?? 0)
  })
})

describe.skipIf(!HAS_TMUX && !process.env.CI)('the QR code on a terminal', () => {
  it('is drawn so a reader reads it without inversion, for the theme said or reported, with a quiet zone of 4', async () => {
    for (const [args, env, theme] of [
      [['--qr-style', 'light-on-dark'], {}, 'light-on-dark'],
      [[], {COLORFGBG: '15;0'}, 'light-on-dark'],
      [[], {}, 'dark-on-light'],
    ] as const) {
      const terminal = new Terminal([...orderCreate(undefined, 'wechat', '1', {qr: true}), ...args], {
        GW_CONFIG_DIR: world.configDir,
        ...env,
      })
      try {
        const screen = await terminal.waitFor(/EXIT=\d+/)
        const codeUrl = /code_url: +(\S+)/.exec(screen)![1]!
        // What a reader sees on the screen reads as the order's URL; the drawing is the one the unit test measures.
        expect(readDrawnQr(screen.slice(0, screen.indexOf('EXIT=')), theme).text).toBe(codeUrl)
        const lines = screen.split('\n').map((line) => line.trimEnd())
        for (const line of drawQr(codeUrl, theme).split('\n')) expect(lines).toContain(line.trimEnd())
      } finally {
        terminal.close()
      }
    }
  })
})

describe('forgiving input', () => {
  it('a mistyped flag gets "did you mean", exit 2, nothing sent', async () => {
    const before = (await world.requests()).native_pay ?? 0
    const result = await world.run(['order', 'create', '--channel', 'wechat', '--amout', '5', '--fee-type', 'THB'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Nonexistent flag: --amout')
    expect(result.stderr).toContain('Did you mean --amount?')
    expect((await world.requests()).native_pay ?? 0).toBe(before)
  })

  it('choices are taken in any case: --channel WeChat, --fee-type thb, --channel=ALIPAY', async () => {
    const created = await world.run([
      'order',
      'create',
      '--channel',
      'WeChat',
      '--fee-type',
      'thb',
      '--amount',
      '1',
      '--no-qr',
      '--json',
    ])
    expect(created.code, created.stderr).toBe(0)
    expect(created.json()).toMatchObject({channel: 'wechat', fee_type: 'THB'})
    const other = await world.run([
      'order',
      'create',
      '--channel=ALIPAY',
      '--fee-type=Thb',
      '--amount',
      '1',
      '--no-qr',
      '--json',
    ])
    expect(other.json()).toMatchObject({channel: 'alipay', fee_type: 'THB'})
    const wrong = await world.run(['order', 'create', '--channel', 'paypal', '--amount', '1'])
    expect(wrong.code).toBe(2)
  })
})

describe('hints that lead the right way', () => {
  it('--qr is never silently ignored: drawn when asked for, and said when not drawn because stdout is no terminal', async () => {
    const create = orderCreate(undefined, 'wechat', '1.00', {qr: true})
    const asked = await world.run([...create, '--qr'])
    expect(asked.code, asked.stderr).toBe(0)
    expect(asked.stdout).toMatch(/█/)
    const quiet = await world.run(create)
    expect(quiet.stdout).not.toMatch(/█/)
    expect(quiet.stderr).toContain('QR code not drawn: stdout is not a terminal. --qr draws it anyway')
    const json = await world.run([...create, '--qr', '--json'])
    expect(json.json<{order: {code_url: string}}>().order.code_url).toBeTruthy()
    expect(json.stderr).toMatch(/█/)
    const none = await world.run([...create, '--no-qr'])
    expect(none.stdout + none.stderr).not.toMatch(/█|not drawn/)
  })
})

describe('records committed together', () => {
  it('gw order create, which asks the history nothing, leaves its order in the next order list', async () => {
    const {env} = world.machine([])
    const made = await world.run(orderCreate('FIRST-1', 'wechat', '1.00'), {env})
    expect(made.code, made.stderr).toBe(0)
    const listed = await world.run(['order', 'list', '--json'], {env})
    expect(listed.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual(['FIRST-1'])
  })
})

describe('untrusted text on a terminal', () => {
  it("a gateway message with escapes (it quotes the request's order number) is shown with the escapes visible", async () => {
    const mch = orderNo(`${ESC}[31mX`)
    const create = orderCreate(mch, 'wechat', '1')
    expect((await world.run(create)).code).toBe(0)
    const again = await world.run(create)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('GW_DUPLICATED_ORDERNO')
    expect(again.stderr).not.toContain(ESC)
    expect(again.stderr).toContain('\\x1B[31m')
  })
})

describe('gw order create', () => {
  let world: GwWorld

  beforeAll(async () => {
    world = await startWorld({spawned: false})
  })

  afterAll(() => world.close())

  it('makes a THB order the sandbox holds, and says its number', async () => {
    const result = await world.run([...orderCreate('INP-1'), '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.json<{order: {mch_order_no: string}}>().order.mch_order_no).toBe('INP-1')
    expect((await world.ledger('INP-1'))?.state).toBe('NOTPAY')
  })

  it('reads --amount as amounts in files are read: 50 baht, ฿5.00, Thai digits', async () => {
    for (const [mch, typed, fee] of [
      ['INP-BAHT', '50 baht', 5000],
      ['INP-SIGN', '฿5.00', 500],
      ['INP-THAI', '๕๐.๒๕', 5025],
    ] as const) {
      const made = await world.run(orderCreate(mch, 'wechat', typed, {qr: true}))
      expect(made.code, made.stderr).toBe(0)
      expect((await world.ledger(mch)) as unknown).toMatchObject({total_fee: fee})
    }
    const other = await world.run(orderCreate('INP-RM', 'wechat', 'RM 5', {qr: true}))
    expect(other.code).toBe(2)
    expect(other.stderr).toContain('--amount "RM 5" is in MYR, but --fee-type says THB. Nothing was sent.')
    expect(await world.ledger('INP-RM')).toBeUndefined()
  })

  it('refuses an amount with more decimals than the currency has, exit 2, nothing sent', async () => {
    const result = await world.run(orderCreate('INP-2', 'wechat', '1.555'))
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/1\.555/)
    expect(await world.ledger('INP-2')).toBeUndefined()
  })
})
