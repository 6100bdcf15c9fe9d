import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {waitFor} from '../helpers/receiver.js'
import {readShared, removeDir, tempDir, tempFile} from '../helpers/shared.js'

/** Keys from ../shared/vectors: a key pair the sandbox has never seen. */
const strangerKeys = readShared<{keys: Record<string, {private_pkcs1?: string; public_spki: string}>}>(
  'vectors/signing.json',
).keys

let world: GwWorld
let n = 0
const orderNo = (prefix = 'C') => `${prefix}${process.pid}-${Date.now() % 1e8}-${++n}`

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

async function createPaid(amount = '150.50', channel = 'wechat') {
  const mch = orderNo()
  const created = await world.createOrder(mch, channel, amount)
  expect(created.code).toBe(0)
  await world.pay(mch)
  return mch
}

describe('gw order create', () => {
  it('creates an order and prints its numbers, amount, channel and expiry', async () => {
    const mch = orderNo()
    const result = await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '150.50',
      '--fee-type',
      'THB',
      '--mch-order-no',
      mch,
    ])
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
    expect(
      (
        await world.run([
          'order',
          'create',
          '--channel',
          'truemoney',
          '--amount',
          '10',
          '--fee-type',
          'THB',
          '--expire',
          '600',
          '--qr-out',
          png,
        ])
      ).code,
    ).toBe(0)
    expect(readFileSync(png).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
    const svg = join(world.configDir, 'qr.svg')
    expect(
      (
        await world.run([
          'order',
          'create',
          '--channel',
          'wechat',
          '--amount',
          '10',
          '--fee-type',
          'THB',
          '--img-type',
          'svg',
          '--qr-out',
          svg,
        ])
      ).code,
    ).toBe(0)
    expect(readFileSync(svg, 'utf8')).toContain('<svg')
  })

  it('treats the airpay code_url as an image: says so and saves that image', async () => {
    const file = join(world.configDir, 'airpay.png')
    const result = await world.run([
      'order',
      'create',
      '--channel',
      'airpay',
      '--amount',
      '10',
      '--fee-type',
      'THB',
      '--qr-out',
      file,
    ])
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
    ]) {
      const mch = orderNo()
      const result = await world.run([
        'order',
        'create',
        '--channel',
        'wechat',
        '--amount',
        amount!,
        '--fee-type',
        currency!,
        '--mch-order-no',
        mch,
      ])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(message)
      expect(await world.ledger(mch)).toBeUndefined()
    }
  })

  it('refuses a 33-character order number and --expire on a channel without it, before sending', async () => {
    const long = await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '1',
      '--fee-type',
      'THB',
      '--mch-order-no',
      'X'.repeat(33),
    ])
    expect(long.code).toBe(2)
    expect(long.stderr).toContain('mch_order_no must be at most 32 characters')
    const expire = await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '1',
      '--fee-type',
      'THB',
      '--expire',
      '60',
    ])
    expect(expire.code).toBe(2)
    expect(expire.stderr).toContain('Only truemoney and scb_qrcard take --expire')
  })

  it('reports a gateway refusal with its meaning and advice, exit 1', async () => {
    const mch = orderNo()
    await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '1',
      '--fee-type',
      'THB',
      '--mch-order-no',
      mch,
    ])
    const again = await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '1',
      '--fee-type',
      'THB',
      '--mch-order-no',
      mch,
      '--json',
    ])
    expect(again.code).toBe(1)
    expect(again.json()).toMatchObject({error: {kind: 'refused', exit_code: 1, err_code: 'GW_DUPLICATED_ORDERNO'}})
    expect(again.stderr).toContain('The merchant order number was already used. Use a new merchant order number')
  })

  it('--wait ends 0 once the order is paid', async () => {
    const mch = orderNo()
    const waiting = world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '5',
      '--fee-type',
      'THB',
      '--mch-order-no',
      mch,
      '--wait',
      '--wait-timeout',
      '20',
    ])
    // Paid as soon as the waiting command has made the order, however long its start takes.
    await waitFor(() => world.ledger(mch), 20_000)
    await world.pay(mch)
    const result = await waiting
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/state: +SUCCESS: paid/)
  })

  it('--wait ends 1 when the payment fails, 5 when the wait runs out', async () => {
    const mch = orderNo()
    const waiting = world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '5',
      '--fee-type',
      'THB',
      '--mch-order-no',
      mch,
      '--wait',
      '--wait-timeout',
      '20',
    ])
    // Paid as soon as the waiting command has made the order, however long its start takes.
    await waitFor(() => world.ledger(mch), 20_000)
    await world.pay(mch, true)
    expect((await waiting).code).toBe(1)
    const timeout = await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '5',
      '--fee-type',
      'THB',
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
      const args = ['order', 'create', '--channel', 'wechat', '--amount', '5', '--fee-type', 'THB', '--wait']
      const {child, result} = world.spawn([...args, '--mch-order-no', mch])
      await waitFor(() => world.ledger(mch), 20_000)
      child.kill(signal)
      expect(await result).toMatchObject({code, signal: null})
      const listed = (await world.run(['order', 'list', '--json'])).json<{orders: {mch_order_no: string}[]}>()
      expect(listed.orders.map((o) => o.mch_order_no)).toContain(mch)
    }
  })
})

describe('gw order query and close', () => {
  it('shows an order by merchant or gateway number, state in words', async () => {
    const mch = await createPaid()
    const result = await world.run(['order', 'query', mch])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/state: +SUCCESS: paid/)
    expect(result.stdout).toMatch(/channel: +wechat \(from local history\)/)
    const json = (await world.run(['order', 'query', mch, '--json'])).json<{
      record: {gw_order_no: string; total_fee: number}
      channel: string
    }>()
    expect(json).toMatchObject({channel: 'wechat', record: {total_fee: 15050}})
    const byGateway = await world.run([
      'order',
      'query',
      '--gw-order-no',
      json.record.gw_order_no,
      '--channel',
      'wechat',
    ])
    expect(byGateway.stdout).toContain(mch)
  })

  it('finds the channel by trying each in turn when there is no history, and says which', async () => {
    const mch = await createPaid('12.00', 'truemoney')
    const fresh = tempDir('gw-fresh-')
    try {
      const env = world.environmentProfile({GW_CONFIG_DIR: fresh})
      const result = await world.run(['order', 'query', mch], {env})
      expect(result.code).toBe(0)
      expect(result.stderr).toContain('found on channel truemoney')
      expect(result.stdout).toMatch(/amount: +12\.00 THB/)
    } finally {
      removeDir(fresh)
    }
  })

  it('says when no channel knows the order, exit 1', async () => {
    const result = await world.run(['order', 'query', 'NO-SUCH-ORDER'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'No order has the number "NO-SUCH-ORDER": this machine\'s history does not know it, and no channel knows it as a merchant order number',
    )
  })

  it('closes an unpaid order; refuses to close it twice or to close a paid one', async () => {
    const mch = orderNo()
    await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '1',
      '--fee-type',
      'THB',
      '--mch-order-no',
      mch,
    ])
    const closed = await world.run(['order', 'close', mch])
    expect(closed.code).toBe(0)
    expect(closed.stdout).toContain(`Order ${mch} is closed.`)
    expect(await world.ledger(mch)).toMatchObject({state: 'CLOSED'})
    // The gateway's ORDER_ALREADY_CANCEL is the end asked for: said as such, exit 0.
    const twice = await world.run(['order', 'close', mch])
    expect(twice.code, twice.stderr).toBe(0)
    expect(twice.stdout).toContain(`Order ${mch} was already closed.`)
    const paid = await world.run(['order', 'close', await createPaid()])
    expect(paid.code).toBe(1)
    expect(paid.stderr).toContain('CANCEL_ERROR')
  })
})

describe('gw refund create and query', () => {
  it('refunds part of an order, then shows every refund of it', async () => {
    const mch = await createPaid()
    const result = await world.run(['refund', 'create', mch, '--amount', '50.00', '--mch-refund-no', `${mch}-R1`])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/status: +refunded/)
    expect(result.stdout).toMatch(/balance left: +100\.50 THB/)
    expect((await world.ledger(mch))!.refunds).toEqual([
      expect.objectContaining({mch_refund_no: `${mch}-R1`, refund_fee: 5000, state: 'SUCCESS'}),
    ])
    const second = await world.run(['refund', 'create', mch, '--refund-fee', '1000', '--json'])
    // The balance is what is left after this refund, as the text's "balance left" says; each _fee beside its _amount.
    expect(second.json()).toMatchObject({
      status: 'refunded',
      mch_refund_no: expect.stringMatching(/^RF\d{14}[0-9A-F]{6}$/),
      refund_fee: 1000,
      refund_amount: '10.00',
      total_fee: 15050,
      total_amount: '150.50',
      balance_fee: 9050,
      balance_amount: '90.50',
    })
    // The refund number is said once: in the view (or the --json document), not again on stderr.
    expect(second.stderr).toBe('')
    const third = await world.run(['refund', 'create', mch, '--amount', '0.50'])
    expect(third.stdout).toMatch(/balance left: +90\.00 THB/)
    expect(third.stdout.match(/RF\d{14}[0-9A-F]{6}/g)).toHaveLength(1)
    expect(third.stderr).toBe('')
    const query = await world.run(['refund', 'query', mch])
    expect(query.code).toBe(0)
    expect(query.stdout).toMatch(/refunded: +60\.50 THB/)
    expect(query.stdout).toContain(`${mch}-R1`)
    expect(query.stdout).toContain('SUCCESS: refunded')
    const queryJson = (await world.run(['refund', 'query', mch, '--mch-refund-no', `${mch}-R1`, '--json'])).json<{
      refund: {refund_count: number; refund_fee: number}
    }>()
    expect(queryJson.refund).toMatchObject({refund_count: 3, refund_fee: 6050})
  })

  it('refuses a refund above the balance before sending, exit 2', async () => {
    const mch = await createPaid('100.00')
    await world.run(['refund', 'create', mch, '--amount', '60'])
    const result = await world.run(['refund', 'create', mch, '--amount', '50'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`50.00 THB is more than the balance of order ${mch}: 40.00 THB`)
    expect(result.stderr).toContain('Nothing was sent')
    expect((await world.ledger(mch))!.refunds).toHaveLength(1)
  })

  it('refuses a refund of an unpaid order before sending, exit 2', async () => {
    const mch = orderNo()
    await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '1',
      '--fee-type',
      'THB',
      '--mch-order-no',
      mch,
    ])
    const result = await world.run(['refund', 'create', mch, '--amount', '1'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('NOTPAY (created, not paid yet); only paid orders can be refunded')
  })

  it('a delayed refund ends processing, exit 5, with the command to check later', async () => {
    const mch = await createPaid()
    await world.faults('refund-processing=1')
    try {
      const result = await world.run(['refund', 'create', mch, '--amount', '1', '--mch-refund-no', `${mch}-P`])
      expect(result.code).toBe(5)
      expect(result.stdout).toMatch(/status: +processing/)
      expect(result.stderr).toContain(`gw refund query ${mch} --mch-refund-no ${mch}-P`)
    } finally {
      await world.faults('')
    }
  })

  it('asks for a refund number when it knows none for the order', async () => {
    const fresh = tempDir('gw-fresh-')
    try {
      const mch = await createPaid()
      const env = world.environmentProfile({GW_CONFIG_DIR: fresh})
      const result = await world.run(['refund', 'query', mch, '--channel', 'wechat'], {env})
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('has completed: the gateway shows it paid in full')
      expect(result.stdout).toContain('--mch-refund-no')
    } finally {
      removeDir(fresh)
    }
  })
})

describe('retries never duplicate money', () => {
  it('a create whose answers are all dropped is found by a query: one order, exit 0', async () => {
    const mch = orderNo()
    await world.faults('drop-after-commit=1@native_pay')
    try {
      const result = await world.run([
        'order',
        'create',
        '--channel',
        'wechat',
        '--amount',
        '3',
        '--fee-type',
        'THB',
        '--mch-order-no',
        mch,
      ])
      expect(result.code).toBe(0)
      expect(result.stderr).toContain('the answer carrying its QR code was lost')
    } finally {
      await world.faults('')
    }
    const {body} = await world.sandbox.control<{orders: unknown[]}>('GET', `/sandbox/orders?mch_order_no=${mch}`)
    expect(body.orders).toHaveLength(1)
  })

  it('a refund whose answers are all dropped is looked up, not resent: one refund, exit 0', async () => {
    const mch = await createPaid()
    await world.faults('drop-after-commit=1@order_refund')
    try {
      const result = await world.run(['refund', 'create', mch, '--amount', '10', '--mch-refund-no', `${mch}-D`])
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/status: +refunded/)
    } finally {
      await world.faults('')
    }
    expect((await world.ledger(mch))!.refunds).toEqual([
      expect.objectContaining({mch_refund_no: `${mch}-D`, refund_fee: 1000}),
    ])
  })

  it('refunds through 30% HTTP 500s and 30% dropped answers: each refund made at most once, and as reported', async () => {
    const orders = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createPaid('20.00')))
    await world.faults('http-500=0.3,drop-after-commit=0.3')
    const results = []
    try {
      for (const mch of orders)
        results.push(
          await world.run(['refund', 'create', mch, '--amount', '5', '--mch-refund-no', `${mch}-F`, '--json']),
        )
    } finally {
      await world.faults('')
    }
    for (const [i, mch] of orders.entries()) {
      const refunds = (await world.ledger(mch))!.refunds
      expect(refunds.length).toBeLessThanOrEqual(1)
      const code = results[i]!.code
      // 0: refunded; 5: unknown after resolving; 3: the order query before sending failed, so nothing was sent.
      expect([0, 3, 5]).toContain(code)
      if (code === 0)
        expect(refunds).toEqual([
          expect.objectContaining({mch_refund_no: `${mch}-F`, refund_fee: 500, state: 'SUCCESS'}),
        ])
      if (code === 3) expect(refunds).toEqual([])
    }
  })

  it('an envelope code that stays non-zero is retried a bounded number of times, then exit 3', async () => {
    const mch = await createPaid()
    await world.faults('code-nonzero=1@order_query')
    try {
      const result = await world.run(['order', 'query', mch, '--channel', 'wechat'])
      expect(result.code).toBe(3)
      expect(result.stderr).toContain(
        'the gateway answered code 1 ("system busy; send the same parameters again"): the call was not processed (4 attempts)',
      )
    } finally {
      await world.faults('')
    }
  })
})

describe('exit codes', () => {
  it('3 when nothing listens at the base URL, also under --json', async () => {
    const env = world.environmentProfile({GW_BASE_URL: 'http://127.0.0.1:9/Gateway'})
    const text = await world.run(['order', 'query', 'X1', '--channel', 'wechat'], {env})
    expect(text.code).toBe(3)
    expect(text.stderr).toContain('nothing is listening at http://127.0.0.1:9/Gateway/order_query (connection refused)')
    const json = await world.run(['order', 'query', 'X1', '--channel', 'wechat', '--json'], {env})
    expect(json.code).toBe(3)
    expect(json.json()).toMatchObject({error: {kind: 'transport', exit_code: 3}})
  })

  it('4 when the answer signature does not verify, and nothing of it is shown', async () => {
    const mch = await createPaid()
    await world.faults('bad-signature=1')
    try {
      const result = await world.run(['order', 'query', mch, '--json'])
      expect(result.code).toBe(4)
      expect(result.json()).toMatchObject({error: {kind: 'signature', exit_code: 4}})
      expect(result.stdout).not.toContain('SUCCESS')
    } finally {
      await world.faults('')
    }
  })

  it('5 when the gateway stays NOTSURE', async () => {
    const mch = await createPaid()
    await world.faults('notsure=1@order_query')
    try {
      const result = await world.run(['order', 'query', mch])
      expect(result.code).toBe(5)
      expect(result.stderr).toContain('the outcome is not known')
    } finally {
      await world.faults('')
    }
  })

  it('2 for an unknown flag, a missing profile and a missing amount', async () => {
    expect((await world.run(['order', 'query', 'X', '--bogus'])).code).toBe(2)
    const noProfile = await world.run(['order', 'query', 'X'], {env: {GW_CONFIG_DIR: join(world.configDir, 'empty')}})
    expect(noProfile.code).toBe(2)
    expect(noProfile.stderr).toContain('No profile is set up')
    expect((await world.run(['refund', 'create', 'X'])).code).toBe(2)
  })

  it('2 for a missing order number, never taken from a pipe on standard input; nothing asked of the gateway', async () => {
    const mch = await createPaid()
    const before = await world.requests()
    const piped = await world.run(['refund', 'create', '--amount', '1.00', '--yes'], {input: `${mch}\n`})
    expect(piped.code, piped.stderr).toBe(2)
    expect(await world.requests()).toEqual(before)
  })
})

describe('a --live profile', () => {
  it('refuses to move money without --yes when there is no terminal to ask on, and nothing is sent', async () => {
    const live = ['--profile', 'live']
    expect((await world.run(world.profileAdd('live', '--live'))).code).toBe(0)
    const mch = orderNo('LIVE')
    const refused = await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '1',
      '--fee-type',
      'THB',
      '--mch-order-no',
      mch,
      ...live,
    ])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('Profile "live" is live and this would create an order of 1.00 THB on wechat.')
    expect(refused.stderr).toContain('Add --yes to confirm')
    expect(await world.ledger(mch)).toBeUndefined()
    expect(
      (
        await world.run([
          'order',
          'create',
          '--channel',
          'wechat',
          '--amount',
          '1',
          '--fee-type',
          'THB',
          '--mch-order-no',
          mch,
          '--yes',
          ...live,
        ])
      ).code,
    ).toBe(0)
    await world.pay(mch)
    expect((await world.run(['refund', 'create', mch, '--amount', '1', ...live])).code).toBe(2)
    expect((await world.run(['order', 'close', mch, ...live])).code).toBe(2)
    expect((await world.ledger(mch))!.refunds).toEqual([])
    expect((await world.run(['order', 'query', mch, ...live])).code).toBe(0)
  })
})

describe('gw doctor', () => {
  it('passes every check against the sandbox', async () => {
    const result = await world.run(['doctor'])
    expect(result.code).toBe(0)
    for (const name of [
      'profile',
      'private key',
      'gateway key',
      'reachable',
      'signed request',
      'answer signature',
      'clock',
    ])
      expect(result.stdout).toMatch(new RegExp(`✔ ${name}:`))
  })

  it('diagnoses a wrong private key as a rejected signature', async () => {
    const other = tempFile('stranger.pem', strangerKeys.merchant!.private_pkcs1!)
    const env = world.environmentProfile({GW_PRIVATE_KEY: other})
    const result = await world.run(['doctor', '--json'], {env})
    expect(result.code).toBe(1)
    const report = result.json<{checks: {name: string; verdict: string; advice?: string}[]}>()
    expect(report.checks.find((c) => c.name === 'signed request')).toMatchObject({
      verdict: 'fail',
      advice: expect.stringContaining('private key is not the one registered'),
    })
  })

  it("a wrong private key's advice holds commands to paste: the key's public half to compare, the other scheme", async () => {
    const other = tempFile('stranger.pem', strangerKeys.merchant!.private_pkcs1!)
    const merchant = world.sandbox.info.merchants[0]!
    const added = await world.run([
      ...world.profileAdd('stranger').slice(0, 2),
      'stranger',
      '--appid',
      merchant.appid,
      '--base-url',
      world.sandbox.info.base_url,
      '--private-key',
      other,
      '--gateway-public-key',
      world.sandbox.info.gateway_public_key_file,
    ])
    expect(added.code, added.stderr).toBe(0)
    const result = await world.run(['doctor', '--profile', 'stranger'])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      'the gateway expects the other sign scheme: gw profile set stranger --sign-scheme rsa-sha256.',
    )
    const openssl = /openssl pkey -pubout -in \S+/.exec(result.stdout)![0]
    const {execSync} = await import('node:child_process')
    expect(execSync(openssl, {encoding: 'utf8', shell: '/bin/sh'})).toBe(strangerKeys.merchant!.public_spki)
    const scheme = await world.asPrinted('gw profile set stranger --sign-scheme rsa-sha256')
    expect(scheme.stdout).toContain('rsa-sha256')
    await world.run(['profile', 'remove', 'stranger'])
  })

  it('a live profile on plain http:// to another machine fails doctor with the address to use; nothing is sent', async () => {
    const before = await world.requests()
    const env = world.environmentProfile({GW_LIVE: '1', GW_BASE_URL: 'http://gateway.example/Gateway'})
    const result = await world.run(['doctor'], {env})
    expect(result.code).toBe(2)
    expect(result.stdout).toContain(
      '✘ https: a live profile sending to gateway.example over plain http://: requests, amounts and answers cross the network unencrypted',
    )
    expect(result.stdout).toContain("Use the gateway's https:// address: GW_BASE_URL=https://gateway.example/Gateway")
    expect(result.stdout).not.toMatch(/reachable|signed request/)
    expect(await world.requests()).toEqual(before)
  })

  it('an unreachable live gateway is said without a word of the sandbox', async () => {
    const env = world.environmentProfile({GW_LIVE: '1', GW_BASE_URL: 'http://127.0.0.1:9/Gateway'})
    const result = await world.run(['doctor'], {env})
    expect(result.code).toBe(3)
    expect(result.stdout).toMatch(/✘ reachable/)
    expect(result.stdout).toContain('the network, a proxy or firewall between')
    expect(result.stdout).not.toMatch(/sandbox/i)
  })

  it('diagnoses a wrong gateway key, exit 4', async () => {
    const merchant = world.sandbox.info.merchants[0]!
    const env = {
      GW_APPID: merchant.appid,
      GW_PRIVATE_KEY: merchant.private_key_file,
      GW_GATEWAY_PUBLIC_KEY: tempFile('stranger.pub', strangerKeys.gateway!.public_spki),
      GW_BASE_URL: world.sandbox.info.base_url,
    }
    const result = await world.run(['doctor'], {env})
    expect(result.code).toBe(4)
    expect(result.stdout).toMatch(/✘ answer signature/)
  })

  it('diagnoses an unknown appid and a closed port', async () => {
    const merchant = world.sandbox.info.merchants[0]!
    const base = {
      GW_PRIVATE_KEY: merchant.private_key_file,
      GW_GATEWAY_PUBLIC_KEY: world.sandbox.info.gateway_public_key_file,
    }
    const appid = await world.run(['doctor'], {
      env: {...base, GW_APPID: 'mch1', GW_BASE_URL: world.sandbox.info.base_url},
    })
    expect(appid.code).toBe(1)
    expect(appid.stdout).toContain('does not know this appid')
    const closed = await world.run(['doctor'], {
      env: {...base, GW_APPID: merchant.appid, GW_BASE_URL: 'http://127.0.0.1:9/Gateway'},
    })
    expect(closed.code).toBe(3)
    expect(closed.stdout).toMatch(/✘ reachable/)
  })
})

describe('gw signature', () => {
  it('signs parameters and verifies a saved response; a changed body fails with exit 4', async () => {
    const signed = await world.run(['signature', 'sign', '--param', 'b=2', '--param', 'a=1', '--json'])
    expect(signed.json()).toMatchObject({
      canonical: 'a=1b=2',
      scheme: 'rsa-md5',
      sign: expect.stringMatching(/^[0-9a-f]{512}$/),
    })
    const answer = await world.sandbox.wire().call('order_query', {channel: 'wechat', mch_order_no: 'NOPE'})
    const file = join(world.configDir, 'answer.json')
    const {writeFileSync} = await import('node:fs')
    writeFileSync(file, JSON.stringify(answer.envelope))
    const ok = await world.run(['signature', 'verify', file])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('valid')
    writeFileSync(file, JSON.stringify({...answer.envelope, data: {...answer.data, err_msg: 'changed'}}))
    const bad = await world.run(['signature', 'verify', file, '--json'])
    expect(bad.code).toBe(4)
    expect(bad.json()).toMatchObject({valid: false})
    const stdin = await world.run(['signature', 'verify', '-'], {input: JSON.stringify(answer.envelope)})
    expect(stdin.code).toBe(0)
    const junk = await world.run(['signature', 'verify', '-'], {input: 'not json'})
    expect(junk.code).toBe(2)
  })

  it("explains a request whose signature fails as the sandbox's log does", async () => {
    const merchant = world.sandbox.info.merchants[0]!
    const params = {...world.sandbox.wire().signed({channel: 'wechat', mch_order_no: 'X-1'}), product: 'added later'}
    const args = ['signature', 'verify', '-', '--public-key', merchant.public_key_file]
    const text = await world.run(args, {input: JSON.stringify(params)})
    expect(text.code).toBe(4)
    expect(text.stdout).toContain('  likeliest cause: parameter product was sent but not signed')
    expect(text.stdout).toMatch(
      / {2}canonical string: appid=mch\d+channel=wechatmch_order_no=X-1nonce_str=\w+product=added latertime_stamp=\d{14}\n/,
    )
    const json = await world.run([...args, '--json'], {input: JSON.stringify(params)})
    expect(json.json()).toMatchObject({valid: false, explanation: {cause: 'parameter product was sent but not signed'}})
  })
})
