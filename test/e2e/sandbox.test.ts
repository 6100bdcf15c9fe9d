import {readFileSync} from 'node:fs'

import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {NOTIFICATION_ACK} from '../../src/lib/gateway/protocol/index.js'
import {crc16ccittFalse} from '../../src/sandbox/promptpay.js'
import {ManualClock} from '../helpers/clock.js'
import {startReceiver, waitFor} from '../helpers/receiver.js'
import {startTestSandbox, type TestSandbox, type Wire} from '../helpers/sandbox.js'
import {SdkClient, refundOf} from '../helpers/sdk-client.js'
import {removeDir} from '../helpers/shared.js'

let seq = 0
const orderNo = (prefix = 'T') => `${prefix}-${process.pid}-${Date.now()}-${++seq}`

let sandbox: TestSandbox
let wire: Wire
let strict: Wire

const create = (w: Wire, extra: Record<string, string | number> = {}) =>
  w.call('native_pay', {channel: 'wechat', mch_order_no: orderNo(), total_fee: 15050, fee_type: 'THB', ...extra})

async function paidOrder(w: Wire, extra: Record<string, string | number> = {}) {
  const created = await create(w, extra)
  expect(created.data.result).toBe('SUCCESS')
  const paid = await sandbox.control('POST', '/sandbox/pay', {mch_order_no: created.data.mch_order_no, appid: w.appid})
  expect(paid.status).toBe(200)
  return created.data as {mch_order_no: string; gw_order_no: string}
}

beforeAll(async () => {
  sandbox = await startTestSandbox({
    merchants: [
      {appid: 'mch20001'},
      {
        appid: 'mch20002',
        channels: ['wechat', 'promptpay'],
        currencies: ['THB'],
        amount_limit: 100_000,
        min_amount: 100,
        partial_refund: false,
      },
    ],
  })
  wire = sandbox.wire('mch20001')
  strict = sandbox.wire('mch20002')
})
afterAll(async () => {
  await sandbox.close()
  removeDir(sandbox.dataDir)
})

describe('the five operations', () => {
  it('creates a wechat order: signed envelope, payer page as code_url, PNG imgdat', async () => {
    const mch = orderNo()
    const answer = await wire.call('native_pay', {
      channel: 'wechat',
      mch_order_no: mch,
      total_fee: 15050,
      fee_type: 'THB',
      device_id: 'KIOSK-07',
    })
    expect(answer.verified).toBe(true)
    expect(answer.envelope).toMatchObject({code: 0, msg: 'ok', status_code: '', version: '3.0.0'})
    expect(String(answer.envelope.time_stamp)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/)
    expect(answer.data).toMatchObject({
      result: 'SUCCESS',
      appid: 'mch20001',
      mch_order_no: mch,
      device_id: 'KIOSK-07',
      trade_type: 'NATIVE',
    })
    expect(answer.data.gw_order_no).toMatch(/^900\d{20}$/)
    expect(answer.data.code_url).toBe(`${sandbox.info.origin}/pay/${answer.data.gw_order_no}`)
    expect(answer.data.imgdat).toMatch(/^data:image\/png;base64,iVBOR/)
    expect(answer.data.nonce_str).toMatch(/^[A-Za-z0-9]{32}$/)
  })

  it('creates an SVG QR when img_type=svg', async () => {
    const answer = await create(wire, {img_type: 'svg'})
    expect(answer.data.imgdat).toMatch(/^data:image\/svg\+xml;base64,/)
    expect(Buffer.from(String(answer.data.imgdat).split(',')[1]!, 'base64').toString()).toContain('<svg')
  })

  it('gives promptpay a real EMVCo payload with a valid CRC and the extra fields', async () => {
    const answer = await create(wire, {channel: 'promptpay', total_fee: 100})
    const payload = String(answer.data.code_url)
    expect(payload).toMatch(/^00020101021230\d{2}0016A000000677010112/)
    expect(payload).toContain('5303764')
    expect(payload).toContain('54041.00')
    expect(payload).toContain('5802TH')
    expect(payload.slice(-4)).toBe(crc16ccittFalse(payload.slice(0, -4)))
    expect(answer.data).toMatchObject({
      fee_type: 'THB',
      total_fee: 100,
      PaymentID: answer.data.gw_order_no,
      PaymentCode: payload,
      stalls_name: '90020001',
    })
  })

  it('computes the CRC of the gateway published PromptPay sample', () => {
    const sample =
      '00020101021230750016A0000006770101120115010556019950701022020230219183454924882030890035005530376454041.005802TH63046B6A'
    expect(crc16ccittFalse(sample.slice(0, -4))).toBe('6B6A')
  })

  it('gives airpay an image URL that the sandbox serves as a PNG', async () => {
    const answer = await create(wire, {channel: 'airpay'})
    expect(answer.data.code_url).toBe(`${sandbox.info.origin}/qr/${answer.data.gw_order_no}.png`)
    const image = await request(String(answer.data.code_url))
    expect(image.statusCode).toBe(200)
    expect(image.headers['content-type']).toBe('image/png')
    expect((await image.body.arrayBuffer()).byteLength).toBeGreaterThan(100)
  })

  it('queries an order by each of its three numbers, with every field of section 2.4', async () => {
    const order = await paidOrder(wire)
    const [ledger] = (
      await sandbox.control<{orders: {channel_order_no: string}[]}>(
        'GET',
        `/sandbox/orders?mch_order_no=${order.mch_order_no}`,
      )
    ).body.orders
    for (const by of [
      {mch_order_no: order.mch_order_no},
      {gw_order_no: order.gw_order_no},
      {channel_order_no: ledger!.channel_order_no},
    ]) {
      const answer = await wire.call('order_query', {channel: 'wechat', ...by})
      expect(answer.verified).toBe(true)
      expect(answer.data).toMatchObject({
        result: 'SUCCESS',
        mch_order_no: order.mch_order_no,
        total_fee: 15050,
        raw_total_fee: 15050,
        fee_type: 'THB',
        cash_fee_type: 'CNY',
        channel: 'wechat',
        operation: 'ORDER-QUERY',
      })
      for (const field of [
        'appid',
        'attach',
        'cash_fee',
        'channel_order_no',
        'device_id',
        'gw_order_no',
        'nonce_str',
        'openid',
        'operator_id',
        'rate',
        'time_end',
      ])
        expect(answer.data).toHaveProperty(field)
      expect(answer.data.time_end).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    }
  })

  it('refunds and answers a refund query for the whole order', async () => {
    const order = await paidOrder(wire)
    const refund = await wire.call('order_refund', {
      mch_order_no: order.mch_order_no,
      total_fee: 15050,
      fee_type: 'THB',
      mch_refund_no: `${order.mch_order_no}-R1`,
      refund_fee: 5000,
    })
    expect(refund.verified).toBe(true)
    expect(refund.data).toMatchObject({
      result: 'SUCCESS',
      mch_refund_no: `${order.mch_order_no}-R1`,
      refund_fee: 5000,
      total_fee: 15050,
      channel: 'wechat',
    })
    for (const field of [
      'cash_refund_fee',
      'channel_order_no',
      'channel_refund_no',
      'gw_refund_no',
      'refund_time',
      'gw_order_no',
    ])
      expect(refund.data).toHaveProperty(field)
    const query = await wire.call('refund_query', {
      mch_order_no: order.mch_order_no,
      total_fee: 15050,
      fee_type: 'THB',
      mch_refund_no: `${order.mch_order_no}-R1`,
      refund_fee: 5000,
    })
    expect(query.verified).toBe(true)
    expect(query.data).toMatchObject({result: 'SUCCESS', refund_count: 1, refund_fee: 5000, total_fee: 15050})
    expect(query.data.refund_orders).toEqual([
      expect.objectContaining({
        mch_refund_no: `${order.mch_order_no}-R1`,
        mch_refund_fee: 5000,
        refund_state: 'SUCCESS',
      }),
    ])
    const state = await wire.call('order_query', {channel: 'wechat', mch_order_no: order.mch_order_no})
    expect(state.data.result).toBe('REFUND')
  })

  it('closes an unpaid order', async () => {
    const created = await create(wire)
    const closed = await wire.call('order_close', {
      channel: 'wechat',
      mch_order_no: created.data.mch_order_no as string,
    })
    expect(closed.verified).toBe(true)
    expect(closed.data).toMatchObject({result: 'SUCCESS', appid: 'mch20001', mch_order_no: created.data.mch_order_no})
    expect(
      (await wire.call('order_query', {channel: 'wechat', mch_order_no: created.data.mch_order_no as string})).data
        .result,
    ).toBe('CLOSED')
  })

  it('verifies responses under the rsa-sha256 scheme for a merchant that uses it', async () => {
    const sha = await startTestSandbox({merchants: [{appid: 'mch30001', sign_scheme: 'rsa-sha256'}]})
    try {
      const {Wire} = await import('../helpers/sandbox.js')
      const w = new Wire(sha, 'mch30001', 'rsa-sha256')
      const answer = await create(w)
      expect(answer.data.result).toBe('SUCCESS')
      expect(answer.verified).toBe(true)
      const md5 = new Wire(sha, 'mch30001', 'rsa-md5')
      expect((await create(md5)).data.err_code).toBe('GW_SIGN_ERROR')
    } finally {
      await sha.close()
      removeDir(sha.dataDir)
    }
  })
})

describe("requests shaped as the gateway's published Node SDK builds them", () => {
  // The SDK's own steps, written without gw's code (test/helpers/sdk-client.ts): time_stamp as
  // epoch milliseconds, a random nonce, key=value pairs sorted and joined, RSA with MD5, a
  // form-encoded body; answers verified the same way over "data".
  async function sdkCall(operation: string, business: Record<string, string | number>) {
    const merchant = sandbox.info.merchants.find((m) => m.appid === 'mch20001')!
    const read = (file: string) => readFileSync(file, 'utf8')
    const client = new SdkClient(
      sandbox.info.base_url,
      merchant.appid,
      read(merchant.private_key_file),
      read(sandbox.info.gateway_public_key_file),
    )
    const {envelope, verified} = await client.call(operation, {time_stamp: Date.now(), ...business})
    return {envelope, verified}
  }

  it('create, query, refund, refund query and close all succeed and verify, with time_stamp in epoch milliseconds', async () => {
    const mch = orderNo('SDK')
    const created = await sdkCall('native_pay', {
      channel: 'wechat',
      mch_order_no: mch,
      total_fee: 2000,
      fee_type: 'THB',
    })
    expect(created).toMatchObject({verified: true, envelope: {code: 0, data: {result: 'SUCCESS'}}})
    expect((await sandbox.control('POST', '/sandbox/pay', {mch_order_no: mch, appid: 'mch20001'})).status).toBe(200)
    const queried = await sdkCall('order_query', {channel: 'wechat', mch_order_no: mch})
    expect(queried).toMatchObject({verified: true, envelope: {data: {result: 'SUCCESS'}}})
    const refund = refundOf(mch)
    expect(await sdkCall('order_refund', refund)).toMatchObject({verified: true, envelope: {data: {result: 'SUCCESS'}}})
    const refunds = await sdkCall('refund_query', {...refund, refund_fee: 500})
    expect(refunds).toMatchObject({verified: true, envelope: {data: {result: 'SUCCESS'}}})
    const other = orderNo('SDK')
    await sdkCall('native_pay', {channel: 'wechat', mch_order_no: other, total_fee: 2000, fee_type: 'THB'})
    expect(await sdkCall('order_close', {channel: 'wechat', mch_order_no: other})).toMatchObject({
      verified: true,
      envelope: {data: {result: 'SUCCESS'}},
    })
    // Epoch seconds too; a 9-digit stamp is not a time.
    const seconds = await sdkCall('order_query', {
      channel: 'wechat',
      mch_order_no: mch,
      time_stamp: Math.floor(Date.now() / 1000),
    })
    expect(seconds.envelope.data.result).toBe('REFUND')
    const short = await sdkCall('order_query', {channel: 'wechat', mch_order_no: mch, time_stamp: 123456789})
    expect(short.envelope.data).toMatchObject({result: 'FAIL', err_code: 'GW_INVALID_PARAM'})
  })
})

describe('checks and their codes', () => {
  const expectRefusal = async (
    answer: Promise<{data: Record<string, unknown>; verified: boolean}>,
    code: string,
    message?: RegExp,
  ) => {
    const {data, verified} = await answer
    expect(verified).toBe(true)
    expect(data).toMatchObject({result: 'FAIL', err_code: code})
    if (message) expect(String(data.err_msg)).toMatch(message)
  }

  it('REQUIRE_POST_METHOD for PUT', () => expectRefusal(wire.raw('order_query', '', 'PUT'), 'REQUIRE_POST_METHOD'))
  it('POST_DATA_EMPTY for an empty body', () => expectRefusal(wire.raw('order_query', ''), 'POST_DATA_EMPTY'))
  it('NOT_UTF8 for bytes that are not UTF-8', () =>
    expectRefusal(wire.raw('order_query', 'appid=mch20001&product=%FF%FE'), 'NOT_UTF8'))
  it('LACK_PARAMS without a signature', () =>
    expectRefusal(wire.raw('order_query', 'appid=mch20001&nonce_str=abc'), 'LACK_PARAMS', /sign/))
  it('LACK_PARAMS for a missing business parameter, naming it', () =>
    expectRefusal(
      wire.call('native_pay', {channel: 'wechat', mch_order_no: orderNo(), fee_type: 'THB'}),
      'LACK_PARAMS',
      /total_fee/,
    ))
  it('GW_PARAM_OVERLENGTH for a 33-character order number', () =>
    expectRefusal(create(wire, {mch_order_no: 'X'.repeat(33)}), 'GW_PARAM_OVERLENGTH', /mch_order_no/))
  it('GW_INVALID_PARAM for a decimal amount', () =>
    expectRefusal(create(wire, {total_fee: '150.50'}), 'GW_INVALID_PARAM', /total_fee/))
  it('GW_INVALID_PARAM for an unknown currency', () =>
    expectRefusal(create(wire, {fee_type: 'USD'}), 'GW_INVALID_PARAM', /fee_type/))
  it('GW_INVALID_MCHINFO for an unknown appid', async () => {
    const params = new URLSearchParams({
      ...wire.signed({channel: 'wechat', mch_order_no: 'x'}),
      appid: 'mch99999',
    }).toString()
    await expectRefusal(wire.raw('order_query', params), 'GW_INVALID_MCHINFO')
  })
  it('GW_SIGN_ERROR when a signed value is changed', async () => {
    const params = {
      ...wire.signed({channel: 'wechat', mch_order_no: orderNo(), total_fee: 100, fee_type: 'THB'}),
      total_fee: '1',
    }
    await expectRefusal(wire.raw('native_pay', new URLSearchParams(params).toString()), 'GW_SIGN_ERROR')
  })
  it('GW_VERSION_ERROR for an unknown version', () =>
    expectRefusal(create(wire, {version: '9.9.9'}), 'GW_VERSION_ERROR'))
  it('accepts the versions seen in the document', async () => {
    expect((await create(wire, {version: '1.0.0'})).data.result).toBe('SUCCESS')
  })
  it('NOAUTH for a channel the operation does not take', () =>
    expectRefusal(
      wire.call('order_query', {channel: 'scb_qrcard', mch_order_no: 'x'}),
      'NOAUTH',
      /order_query does not take channel scb_qrcard/,
    ))
  it('CHANNEL_LIST_ERROR for a channel the merchant lacks', () =>
    expectRefusal(create(strict, {channel: 'alipay'}), 'CHANNEL_LIST_ERROR'))
  it('GW_FEETYPE_NOT_MATCH for a currency not registered', () =>
    expectRefusal(create(strict, {fee_type: 'MYR'}), 'GW_FEETYPE_NOT_MATCH'))
  it('GW_FEETYPE_NOT_MATCH for a Thailand-only channel in another currency', () =>
    expectRefusal(create(wire, {channel: 'promptpay', fee_type: 'JPY'}), 'GW_FEETYPE_NOT_MATCH'))
  it('GW_EXCEED_AMOUNT_LIMIT above the merchant limit', () =>
    expectRefusal(create(strict, {total_fee: 100_001}), 'GW_EXCEED_AMOUNT_LIMIT'))
  it('GW_AMOUNT_IS_TOO_SMALL below the merchant minimum', () =>
    expectRefusal(create(strict, {total_fee: 99}), 'GW_AMOUNT_IS_TOO_SMALL'))
  it('GW_DUPLICATED_ORDERNO for a reused merchant order number', async () => {
    const mch = orderNo()
    await create(wire, {mch_order_no: mch})
    await expectRefusal(create(wire, {mch_order_no: mch}), 'GW_DUPLICATED_ORDERNO')
  })
  it('GW_ERROR_ORDER_NO with no order number', () =>
    expectRefusal(wire.call('order_query', {channel: 'wechat'}), 'GW_ERROR_ORDER_NO'))
  it('GW_INVALID_ORDER_NO for an unknown order', () =>
    expectRefusal(wire.call('order_query', {channel: 'wechat', mch_order_no: 'NO-SUCH'}), 'GW_INVALID_ORDER_NO'))
  it('GW_INVALID_ORDER_NO when the channel does not match the order', async () => {
    const created = await create(wire)
    await expectRefusal(
      wire.call('order_query', {channel: 'alipay', mch_order_no: created.data.mch_order_no as string}),
      'GW_INVALID_ORDER_NO',
    )
  })
  it("GW_INVALID_ORDER_NO for another merchant's order", async () => {
    const created = await create(wire)
    await expectRefusal(
      strict.call('order_query', {channel: 'wechat', mch_order_no: created.data.mch_order_no as string}),
      'GW_INVALID_ORDER_NO',
    )
  })
  it('CANCEL_ERROR when closing a paid order', async () => {
    const order = await paidOrder(wire)
    await expectRefusal(wire.call('order_close', {channel: 'wechat', mch_order_no: order.mch_order_no}), 'CANCEL_ERROR')
  })
  it('ORDER_ALREADY_CANCEL when acting on a closed order', async () => {
    const created = await create(wire)
    const mch = created.data.mch_order_no as string
    await wire.call('order_close', {channel: 'wechat', mch_order_no: mch})
    await expectRefusal(wire.call('order_close', {channel: 'wechat', mch_order_no: mch}), 'ORDER_ALREADY_CANCEL')
    await expectRefusal(
      wire.call('order_refund', {
        mch_order_no: mch,
        total_fee: 15050,
        fee_type: 'THB',
        mch_refund_no: `${mch}-R`,
        refund_fee: 1,
      }),
      'ORDER_ALREADY_CANCEL',
    )
    expect((await sandbox.control('POST', '/sandbox/pay', {mch_order_no: mch, appid: 'mch20001'})).status).toBe(409)
  })

  describe('refunds', () => {
    const refund = (w: Wire, mch: string, refundFee: number, refundNo = `${mch}-${++seq}`, total = 15050) =>
      w.call('order_refund', {
        mch_order_no: mch,
        total_fee: total,
        fee_type: 'THB',
        mch_refund_no: refundNo,
        refund_fee: refundFee,
      })

    it('ORDER_NOT_PAY for an unpaid order', async () => {
      const created = await create(wire)
      await expectRefusal(refund(wire, created.data.mch_order_no as string, 100), 'ORDER_NOT_PAY')
    })
    it('GW_INVALID_REFUND_FEE above the order total', async () => {
      const order = await paidOrder(wire)
      await expectRefusal(refund(wire, order.mch_order_no, 15051), 'GW_INVALID_REFUND_FEE')
    })
    it('GW_INVALID_REFUND_BALANCE above the balance left', async () => {
      const order = await paidOrder(wire)
      expect((await refund(wire, order.mch_order_no, 10_000)).data.result).toBe('SUCCESS')
      await expectRefusal(refund(wire, order.mch_order_no, 5051), 'GW_INVALID_REFUND_BALANCE')
    })
    it('GW_INVALID_REFUND_AMOUNT for a partial refund where only full ones are allowed', async () => {
      const order = await paidOrder(strict, {total_fee: 1000})
      await expectRefusal(refund(strict, order.mch_order_no, 500, undefined, 1000), 'GW_INVALID_REFUND_AMOUNT')
      expect((await refund(strict, order.mch_order_no, 1000, undefined, 1000)).data.result).toBe('SUCCESS')
    })
    it('GW_DUPLICATED_REFUND_ORDERNO for a reused refund number, even on another order', async () => {
      const a = await paidOrder(wire)
      const b = await paidOrder(wire)
      expect((await refund(wire, a.mch_order_no, 100, `${a.mch_order_no}-R`)).data.result).toBe('SUCCESS')
      await expectRefusal(refund(wire, a.mch_order_no, 100, `${a.mch_order_no}-R`), 'GW_DUPLICATED_REFUND_ORDERNO')
      await expectRefusal(refund(wire, b.mch_order_no, 100, `${a.mch_order_no}-R`), 'GW_DUPLICATED_REFUND_ORDERNO')
    })
    it('GW_INVALID_REFUND_FEE_OR_TYPE when total or currency differ from the order', async () => {
      const order = await paidOrder(wire)
      await expectRefusal(refund(wire, order.mch_order_no, 100, undefined, 99), 'GW_INVALID_REFUND_FEE_OR_TYPE')
    })
    it('NOAUTH for refunds and refund queries on promptpay', async () => {
      const order = await paidOrder(wire, {channel: 'promptpay'})
      await expectRefusal(refund(wire, order.mch_order_no, 100), 'NOAUTH', /promptpay/)
      await expectRefusal(
        wire.call('refund_query', {
          mch_order_no: order.mch_order_no,
          channel: 'promptpay',
          total_fee: 15050,
          fee_type: 'THB',
          mch_refund_no: 'x',
          refund_fee: 1,
        }),
        'NOAUTH',
        /refund_query does not take channel promptpay/,
      )
      await expectRefusal(
        wire.call('refund_query', {
          mch_order_no: order.mch_order_no,
          total_fee: 15050,
          fee_type: 'THB',
          mch_refund_no: 'x',
          refund_fee: 1,
        }),
        'NOAUTH',
        /promptpay/,
      )
    })
    it('GW_INVALID_ORDER_NO for a refund number that names no refund of the order', async () => {
      const order = await paidOrder(wire)
      await expectRefusal(
        wire.call('refund_query', {
          mch_order_no: order.mch_order_no,
          total_fee: 15050,
          fee_type: 'THB',
          mch_refund_no: 'NOPE',
          refund_fee: 1,
        }),
        'GW_INVALID_ORDER_NO',
      )
    })
  })
})

describe('time: expiry, refund window, delayed refunds, notification retries (--time-scale)', () => {
  let fast: TestSandbox
  let w: Wire
  beforeAll(async () => {
    fast = await startTestSandbox({timeScale: 1000, merchants: [{appid: 'mch40001', refund_window_days: 0.01}]})
    w = fast.wire()
  })
  afterAll(async () => {
    await fast.close()
    removeDir(fast.dataDir)
  })

  it('closes an order whose QR code expired (scb_qrcard expire_time)', async () => {
    const created = await w.call('native_pay', {
      channel: 'scb_qrcard',
      mch_order_no: orderNo(),
      total_fee: 100,
      fee_type: 'THB',
      expire_time: 5,
    })
    expect(created.data.result).toBe('SUCCESS')
    await new Promise((r) => setTimeout(r, 20))
    expect((await fast.control('POST', '/sandbox/pay', {mch_order_no: created.data.mch_order_no})).body).toMatchObject({
      error: expect.stringMatching(/expired/),
    })
    const state = await w.call('native_pay', {
      channel: 'truemoney',
      mch_order_no: orderNo(),
      total_fee: 100,
      fee_type: 'THB',
      expire_time: 5,
    })
    expect(state.data.err_code).toBe('GW_INVALID_PARAM')
  })

  it('GW_REFUND_EXPIRE after the merchant refund window', async () => {
    const created = await w.call('native_pay', {
      channel: 'wechat',
      mch_order_no: orderNo(),
      total_fee: 100,
      fee_type: 'THB',
    })
    await fast.control('POST', '/sandbox/pay', {mch_order_no: created.data.mch_order_no})
    await new Promise((r) => setTimeout(r, 900))
    const answer = await w.call('order_refund', {
      mch_order_no: created.data.mch_order_no as string,
      total_fee: 100,
      fee_type: 'THB',
      mch_refund_no: orderNo('R'),
      refund_fee: 100,
    })
    expect(answer.data.err_code).toBe('GW_REFUND_EXPIRE')
  })

  it('answers TRADE_STATE_ERROR for a delayed refund, shows it PROCESSING, then SUCCESS', async () => {
    const created = await w.call('native_pay', {
      channel: 'wechat',
      mch_order_no: orderNo(),
      total_fee: 100,
      fee_type: 'THB',
    })
    const mch = created.data.mch_order_no as string
    await fast.control('POST', '/sandbox/pay', {mch_order_no: mch})
    await fast.control('POST', '/sandbox/faults', {spec: 'refund-processing=1'})
    const refundNo = orderNo('R')
    const answer = await w.call('order_refund', {
      mch_order_no: mch,
      total_fee: 100,
      fee_type: 'THB',
      mch_refund_no: refundNo,
      refund_fee: 40,
    })
    await fast.control('POST', '/sandbox/faults', {spec: ''})
    expect(answer.data.err_code).toBe('TRADE_STATE_ERROR')
    const query = () =>
      w.call('refund_query', {
        mch_order_no: mch,
        total_fee: 100,
        fee_type: 'THB',
        mch_refund_no: refundNo,
        refund_fee: 40,
      })
    expect((await query()).data).toMatchObject({
      refund_fee: 0,
      refund_orders: [expect.objectContaining({refund_state: 'PROCESSING'})],
    })
    await new Promise((r) => setTimeout(r, 1300))
    expect((await query()).data).toMatchObject({
      refund_fee: 40,
      refund_orders: [expect.objectContaining({refund_state: 'SUCCESS'})],
    })
  })

  it('retries a notification until the exact acknowledgement, recording every attempt', async () => {
    const receiver = await startReceiver((n) =>
      n < 2
        ? {status: 500, body: 'down'}
        : n === 2
          ? {status: 200, body: '{"result":"SUCCESS","msg":"ok"}'}
          : {status: 200, body: NOTIFICATION_ACK},
    )
    try {
      const created = await w.call('native_pay', {
        channel: 'wechat',
        mch_order_no: orderNo(),
        total_fee: 100,
        fee_type: 'THB',
        notify_url: receiver.url,
        attach: 'table=12',
      })
      await fast.control('POST', '/sandbox/pay', {mch_order_no: created.data.mch_order_no})
      const attempts = await waitFor(async () => {
        const {body} = await fast.control<{notifications: {delivered: boolean}[]}>(
          'GET',
          `/sandbox/notifications?mch_order_no=${created.data.mch_order_no}`,
        )
        return body.notifications.some((n) => n.delivered) ? body.notifications : undefined
      })
      expect(attempts.map((a) => a.delivered)).toEqual([false, false, false, true])
      expect(receiver.received).toHaveLength(4)
      const first = receiver.received[0]!
      expect(first.headers['content-type']).toBe('text/plain;charset=utf-8')
      expect(w.verifyNotification(first.body)).toBe(true)
      expect(JSON.parse(first.body)).toMatchObject({
        code: 0,
        version: '3.0.0',
        data: {
          result: 'SUCCESS',
          mch_order_no: created.data.mch_order_no,
          order_no: created.data.mch_order_no,
          total_fee: 100,
          attach: 'table=12',
          operation: 'NATIVE-PAY',
        },
      })
    } finally {
      await receiver.close()
    }
  })

  it('gives up after the first delivery and 12 retries, 1s 2s 2s 10s 30s 1m 10m 1h 3h 5h 8h 12h apart', async () => {
    // Each retry comes when the test moves the sandbox's clock: the schedule is checked to the second.
    const clock = new ManualClock()
    const timed = await startTestSandbox({retryClock: clock})
    const receiver = await startReceiver(() => ({status: 503, body: ''}))
    try {
      const created = await timed.wire().call('native_pay', {
        channel: 'wechat',
        mch_order_no: orderNo(),
        total_fee: 100,
        fee_type: 'THB',
        notify_url: receiver.url,
      })
      await timed.control('POST', '/sandbox/pay', {mch_order_no: created.data.mch_order_no})
      const orderOf = async () => {
        const {body} = await timed.control<{orders: {notify: string; notifications: {at: string}[]}[]}>(
          'GET',
          `/sandbox/orders?mch_order_no=${created.data.mch_order_no}`,
        )
        return body.orders[0]!
      }
      // Every delivery is made once its timer is run, and the next is set once its answer came.
      for (let delivered = 1; delivered <= 13; delivered++) {
        await waitFor(() => clock.waiting === 1)
        clock.next()
        await waitFor(async () => (await orderOf()).notifications.length === delivered)
      }
      const order = await orderOf()
      expect(order.notify).toBe('gave_up')
      expect(clock.waiting).toBe(0)
      const at = order.notifications.map((n) => Date.parse(n.at) / 1000)
      expect(at.slice(1).map((t, i) => t - at[i]!)).toEqual([
        1, 2, 2, 10, 30, 60, 600, 3600, 10800, 18000, 28800, 43200,
      ])
      expect(receiver.received).toHaveLength(13)
    } finally {
      await receiver.close()
      await timed.close()
      removeDir(timed.dataDir)
    }
  })
})

describe('faults', () => {
  const withFault = async <T>(spec: string, run: () => Promise<T>) => {
    await sandbox.control('POST', '/sandbox/faults', {spec})
    try {
      return await run()
    } finally {
      await sandbox.control('POST', '/sandbox/faults', {spec: ''})
    }
  }
  const ledgerOrder = async (mch: string) =>
    (
      await sandbox.control<{orders: {state: string; refunds: unknown[]}[]}>(
        'GET',
        `/sandbox/orders?mch_order_no=${mch}`,
      )
    ).body.orders[0]

  it('drop-after-commit applies the operation and closes the connection unanswered', async () => {
    const mch = orderNo()
    await withFault('drop-after-commit=1', async () => {
      await expect(create(wire, {mch_order_no: mch})).rejects.toThrow()
    })
    expect(await ledgerOrder(mch)).toMatchObject({state: 'NOTPAY'})
  })

  it('http-500 applies nothing', async () => {
    const mch = orderNo()
    const response = await withFault('http-500=1', () =>
      request(`${sandbox.info.base_url}/native_pay`, {
        method: 'POST',
        body: new URLSearchParams(
          wire.signed({channel: 'wechat', mch_order_no: mch, total_fee: 1, fee_type: 'THB'}),
        ).toString(),
      }),
    )
    expect(response.statusCode).toBe(500)
    await response.body.dump()
    expect(await ledgerOrder(mch)).toBeUndefined()
  })

  it('code-nonzero answers envelope code 1 and applies nothing', async () => {
    const mch = orderNo()
    const answer = await withFault('code-nonzero=1', () => create(wire, {mch_order_no: mch}))
    expect(answer.envelope.code).toBe(1)
    expect(answer.verified).toBe(true)
    expect(await ledgerOrder(mch)).toBeUndefined()
  })

  it('notsure applies the operation and answers NOTSURE', async () => {
    const order = await paidOrder(wire)
    const answer = await withFault('notsure=1', () =>
      wire.call('order_refund', {
        mch_order_no: order.mch_order_no,
        total_fee: 15050,
        fee_type: 'THB',
        mch_refund_no: `${order.mch_order_no}-N`,
        refund_fee: 100,
      }),
    )
    expect(answer.data).toMatchObject({result: 'NOTSURE', err_code: 'SYSTEMERROR'})
    expect((await ledgerOrder(order.mch_order_no))!.refunds).toHaveLength(1)
  })

  it('bad-signature answers correctly but the signature fails', async () => {
    const answer = await withFault('bad-signature=1', () => create(wire))
    expect(answer.data.result).toBe('SUCCESS')
    expect(answer.verified).toBe(false)
  })

  it('latency delays answers', async () => {
    const started = Date.now()
    await withFault('latency=150-150ms', () => create(wire))
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
  })

  it('refuses an unknown fault spec', async () => {
    const answer = await sandbox.control('POST', '/sandbox/faults', {spec: 'gremlins=1'})
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({error: expect.stringMatching(/unknown fault "gremlins"/)})
  })
})

describe('robustness', () => {
  it('answers malformed bodies with an envelope and keeps serving', async () => {
    const bodies: (string | Buffer)[] = [
      '%',
      '%zz=1',
      '===',
      '&&&',
      'a=1&a=2',
      Buffer.from([0xff, 0x00, 0xc3]),
      'x'.repeat(70_000),
      `appid=${'%E0%B8'.repeat(10)}`,
    ]
    for (const body of bodies) {
      const answer = await wire.raw('native_pay', body)
      expect(answer.envelope.code).toBe(0)
      expect(answer.data.result).toBe('FAIL')
      expect(answer.verified).toBe(true)
    }
    expect((await create(wire)).data.result).toBe('SUCCESS')
  })

  it('refuses a body over 1 MiB', async () => {
    const answer = await wire.raw('native_pay', `product=${'x'.repeat(1_100_000)}`)
    expect(answer.data.err_code).toBe('GW_PARAM_OVERLENGTH')
  })

  it('answers unknown operations with a non-zero code', async () => {
    const answer = await wire.raw('pay_everything', 'a=1')
    expect(answer.status).toBe(404)
    expect(answer.envelope.code).not.toBe(0)
  })
})

describe('persistence', () => {
  it('keeps the ledger across a restart, and keys and merchants too', async () => {
    const first = await startTestSandbox()
    const w1 = first.wire()
    const created = await create(w1)
    await first.control('POST', '/sandbox/pay', {mch_order_no: created.data.mch_order_no})
    await first.close()
    const second = await startTestSandbox({dataDir: first.dataDir})
    try {
      expect(second.info.merchants[0]!.appid).toBe(first.info.merchants[0]!.appid)
      const query = await second
        .wire()
        .call('order_query', {channel: 'wechat', mch_order_no: created.data.mch_order_no as string})
      expect(query.verified).toBe(true)
      expect(query.data.result).toBe('SUCCESS')
      expect((await create(second.wire(), {mch_order_no: created.data.mch_order_no as string})).data.err_code).toBe(
        'GW_DUPLICATED_ORDERNO',
      )
    } finally {
      await second.close()
      removeDir(first.dataDir)
    }
  })
})

describe('payer page', () => {
  it('shows the order, marks it scanned, and pays on Pay', async () => {
    const created = await create(wire, {product: 'ชาเขียว <2>'})
    const page = await request(String(created.data.code_url))
    const html = await page.body.text()
    expect(html).toContain('150.50 THB')
    expect(html).toContain('ชาเขียว &#60;2&#62;')
    expect(html).toContain('value="pay"')
    expect(
      (await wire.call('order_query', {channel: 'wechat', mch_order_no: created.data.mch_order_no as string})).data
        .result,
    ).toBe('USERPAYING')
    const paid = await request(String(created.data.code_url), {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: 'action=pay',
    })
    expect(await paid.body.text()).toContain('Paid')
    expect(
      (await wire.call('order_query', {channel: 'wechat', mch_order_no: created.data.mch_order_no as string})).data
        .result,
    ).toBe('SUCCESS')
  })

  it('declines on Decline', async () => {
    const created = await create(wire)
    await (
      await request(String(created.data.code_url), {
        method: 'POST',
        body: 'action=decline',
        headers: {'content-type': 'application/x-www-form-urlencoded'},
      })
    ).body.dump()
    expect(
      (await wire.call('order_query', {channel: 'wechat', mch_order_no: created.data.mch_order_no as string})).data
        .result,
    ).toBe('PAYERROR')
  })
})

describe('a whole life cycle', () => {
  it('create, pay, notify, refund in parts down to zero, close another, let a third expire; auto-pay pays by itself', async () => {
    const life = await startTestSandbox({timeScale: 100, autoPay: 60})
    const receiver = await startReceiver(() => ({status: 200, body: NOTIFICATION_ACK}))
    try {
      const w = life.wire()
      const mch = orderNo('LIFE')
      const created = await w.call('native_pay', {
        channel: 'wechat',
        mch_order_no: mch,
        total_fee: 1000,
        fee_type: 'MYR',
        notify_url: receiver.url,
      })
      expect(created.data.result).toBe('SUCCESS')
      // Nobody pays: auto-pay does, 60 s / 100 later; the payment is notified once and acknowledged.
      await waitFor(() => (receiver.received.length === 1 ? true : undefined))
      expect(w.verifyNotification(receiver.received[0]!.body)).toBe(true)
      expect((await w.call('order_query', {channel: 'wechat', mch_order_no: mch})).data.result).toBe('SUCCESS')
      for (const [i, fee] of [400, 350, 250].entries()) {
        const refund = await w.call('order_refund', {
          mch_order_no: mch,
          total_fee: 1000,
          fee_type: 'MYR',
          mch_refund_no: `${mch}-R${i}`,
          refund_fee: fee,
        })
        expect(refund.data).toMatchObject({result: 'SUCCESS', refund_fee: fee})
      }
      const over = await w.call('order_refund', {
        mch_order_no: mch,
        total_fee: 1000,
        fee_type: 'MYR',
        mch_refund_no: `${mch}-R9`,
        refund_fee: 1,
      })
      expect(over.data.err_code).toBe('GW_INVALID_REFUND_BALANCE')
      const refunds = await w.call('refund_query', {
        mch_order_no: mch,
        total_fee: 1000,
        fee_type: 'MYR',
        mch_refund_no: `${mch}-R0`,
        refund_fee: 400,
      })
      expect(refunds.data).toMatchObject({refund_count: 3, refund_fee: 1000})
      expect((await w.call('order_query', {channel: 'wechat', mch_order_no: mch})).data.result).toBe('REFUND')

      const other = await w.call('native_pay', {
        channel: 'wechat',
        mch_order_no: orderNo('LIFE'),
        total_fee: 10,
        fee_type: 'THB',
      })
      expect(
        (await w.call('order_close', {channel: 'wechat', mch_order_no: other.data.mch_order_no as string})).data.result,
      ).toBe('SUCCESS')
      expect(
        (await w.call('order_query', {channel: 'wechat', mch_order_no: other.data.mch_order_no as string})).data.result,
      ).toBe('CLOSED')

      // A QR code of 10 s lives 0.1 s at this scale, less than auto-pay's 0.6 s: it expires unpaid.
      const third = await w.call('native_pay', {
        channel: 'scb_qrcard',
        mch_order_no: orderNo('LIFE'),
        total_fee: 10,
        fee_type: 'THB',
        expire_time: 10,
      })
      await new Promise((r) => setTimeout(r, 150))
      const pay = await life.control('POST', '/sandbox/pay', {mch_order_no: third.data.mch_order_no})
      expect(pay.body).toMatchObject({error: expect.stringMatching(/closed \(its QR code expired\)/)})
      const ledger = await life.control<{orders: {state: string}[]}>(
        'GET',
        `/sandbox/orders?mch_order_no=${third.data.mch_order_no}`,
      )
      expect(ledger.body.orders[0]!.state).toBe('CLOSED')
      expect(
        (await life.control<{notifications: unknown[]}>('GET', '/sandbox/notifications')).body.notifications,
      ).toHaveLength(1)
    } finally {
      await receiver.close()
      await life.close()
      removeDir(life.dataDir)
    }
  })
})
