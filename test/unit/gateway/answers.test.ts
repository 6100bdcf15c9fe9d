import {describe, expect, it} from 'vitest'

import {classify, describeNetworkError, mismatchOf, readEnvelope} from '../../../src/lib/gateway/answers.js'

const url = 'http://gw.example/Gateway/order_query'
const read = (statusCode: number, body: unknown, verifies = true) =>
  readEnvelope(
    {
      statusCode,
      text: typeof body === 'string' ? body : JSON.stringify(body),
      url,
      operation: 'order_query',
      profile: 'shop',
    },
    () => verifies,
  )
const envelope = (data: Record<string, unknown>) => ({code: 0, msg: 'ok', time: 't', data})

describe('reading an answer', () => {
  it('a 5xx, a body that is not JSON or not the envelope are transport failures that may have arrived', () => {
    expect(read(502, 'Bad Gateway')).toEqual({
      kind: 'transport',
      message: 'the gateway answered HTTP 502',
      mayHaveArrived: true,
      httpStatus: 502,
    })
    // The status of an answer that was not the gateway's is kept (404: no operation at that path).
    expect(read(404, '<html>Not Found</html>')).toMatchObject({kind: 'transport', httpStatus: 404})
    expect(read(200, '<html>')).toMatchObject({
      kind: 'transport',
      message: expect.stringContaining('is not JSON (HTTP 200: "<html>")'),
    })
    expect(read(200, [1, 2])).toMatchObject({
      kind: 'transport',
      message: expect.stringContaining("not the gateway's envelope"),
    })
    expect(read(200, {code: 0, sign: 'x'})).toMatchObject({kind: 'transport', message: 'the answer has no data object'})
  })

  it('a signature that does not verify is a signature failure, naming the profile', () => {
    expect(read(200, {code: 0, sign: 'ab', data: {result: 'SUCCESS'}}, false)).toEqual({
      kind: 'signature',
      message:
        'the signature of the answer to order_query does not verify with the gateway public key of profile "shop"',
      mayHaveArrived: true,
    })
  })

  it('a code other than 0 is read without data (and without checking a signature)', () => {
    expect(read(200, {code: 1, msg: 'busy'}, false)).toEqual({code: 1, msg: 'busy', data: {}, httpStatus: 200})
  })

  it('takes the code as a numeric string too', () => {
    expect(read(200, {code: '0', sign: 'ab', data: {result: 'SUCCESS'}})).toMatchObject({
      code: 0,
      data: {result: 'SUCCESS'},
    })
  })
})

describe('classifying a verified answer', () => {
  it('code != 0 means "not processed": retry', () => {
    expect(classify('order_query', {code: 1, data: {}}, 1, false)).toBeUndefined()
  })

  it('an order record is a success whatever the order state; amounts as numeric strings pass', () => {
    const answer = classify('order_query', envelope({result: 'NOTPAY', mch_order_no: 'A', total_fee: '48'}), 1, false)
    expect(answer).toMatchObject({status: 'success', data: {result: 'NOTPAY', total_fee: 48}, gatewayTime: 't'})
  })

  it('a success lacking required fields is uncertain, not trusted', () => {
    expect(classify('native_pay', envelope({result: 'SUCCESS'}), 1, false)).toMatchObject({
      status: 'uncertain',
      reason: 'no_answer',
    })
  })

  it('NOTSURE and the ambiguous codes are uncertain', () => {
    expect(classify('order_refund', envelope({result: 'NOTSURE'}), 2, false)).toMatchObject({
      status: 'uncertain',
      reason: 'notsure',
      attempts: 2,
    })
    for (const code of ['SYSTEMERROR', 'GW_SYSTEMERROR', 'TRADE_STATE_ERROR']) {
      expect(classify('order_refund', envelope({result: 'FAIL', err_code: code}), 1, false)).toMatchObject({
        status: 'uncertain',
        reason: 'ambiguous_code',
        code,
      })
    }
  })

  it('a duplicate number is a refusal at first, uncertain after an attempt that may have arrived', () => {
    const duplicate = envelope({result: 'FAIL', err_code: 'GW_DUPLICATED_REFUND_ORDERNO', err_msg: 'used'})
    expect(classify('order_refund', duplicate, 1, false)).toMatchObject({
      status: 'refused',
      code: 'GW_DUPLICATED_REFUND_ORDERNO',
    })
    expect(classify('order_refund', duplicate, 2, true)).toMatchObject({
      status: 'uncertain',
      reason: 'duplicate_on_retry',
    })
  })

  it('a refusal carries the catalogue meaning and advice, and survives an unknown code', () => {
    expect(
      classify(
        'order_refund',
        envelope({result: 'FAIL', err_code: 'GW_INVALID_REFUND_BALANCE', err_msg: 'no'}),
        1,
        false,
      ),
    ).toMatchObject({
      status: 'refused',
      explanation: expect.stringContaining('The order balance'),
      advice: 'Query the order and refund at most its balance.',
    })
    expect(classify('order_close', envelope({result: 'FAIL', err_code: 'NEW_CODE'}), 1, false)).toMatchObject({
      status: 'refused',
      explanation: expect.stringContaining('a code this version of gw does not know'),
    })
  })
})

describe('network errors', () => {
  it('say whether the request may have reached the gateway', () => {
    expect(describeNetworkError({code: 'ECONNREFUSED'}, url)).toMatchObject({
      mayHaveArrived: false,
      message: expect.stringContaining('connection refused'),
    })
    expect(describeNetworkError({code: 'ENOTFOUND'}, url)).toMatchObject({mayHaveArrived: false})
    expect(describeNetworkError({code: 'GW_CONNECT_TIMEOUT'}, url)).toMatchObject({mayHaveArrived: false})
    expect(describeNetworkError({code: 'GW_ANSWER_TIMEOUT'}, url)).toMatchObject({
      mayHaveArrived: true,
      message: `no answer from ${url} in time`,
    })
    expect(describeNetworkError({code: 'ECONNRESET', message: 'socket hang up'}, url)).toMatchObject({
      mayHaveArrived: true,
    })
    const tls = {
      code: 'EPROTO',
      message: 'write EPROTO 80:error:0A00010B:SSL routines:ssl3_get_record:wrong version number',
    }
    expect(describeNetworkError(tls, url)).toMatchObject({
      mayHaveArrived: false,
      final: true,
      message: expect.stringContaining('does not speak HTTPS'),
    })
  })

  it('say whether no connection was made at all (--refresh then asks no more): never for a lost answer', () => {
    for (const code of [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'EHOSTUNREACH',
      'GW_CONNECT_TIMEOUT',
      'CERT_HAS_EXPIRED',
    ])
      expect(describeNetworkError({code}, url), code).toMatchObject({unreached: true})
    for (const code of ['GW_ANSWER_TIMEOUT', 'ECONNRESET', 'EPIPE'])
      expect(describeNetworkError({code}, url), code).toMatchObject({unreached: false})
  })
})

describe('an answer bound to its request', () => {
  const refund = {
    mch_order_no: 'W28',
    channel: 'wechat',
    total_fee: 10000,
    fee_type: 'THB',
    mch_refund_no: 'R28',
    refund_fee: 2800,
  }
  const answer = {
    result: 'SUCCESS',
    mch_order_no: 'W28',
    mch_refund_no: 'R28',
    refund_fee: 2800,
    total_fee: '10000',
    fee_type: 'THB',
  }

  it('is about what was asked: the same order, refund number and amount (amounts as numeric strings too)', () => {
    expect(mismatchOf('order_refund', refund, answer)).toBeUndefined()
    expect(classify('order_refund', envelope(answer), 1, false, refund)).toMatchObject({status: 'success'})
  })

  it('about another refund, order or amount is a failed verification, naming what differs', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{...answer, mch_refund_no: 'R27'}, 'is about mch_refund_no "R27", not mch_refund_no "R28" as asked'],
      [{...answer, mch_order_no: 'W27'}, 'is about mch_order_no "W27", not mch_order_no "W28"'],
      [{...answer, refund_fee: 2700}, 'is about refund_fee "2700", not refund_fee "2800"'],
      [{...answer, refund_fee: undefined}, 'is about refund_fee missing'],
      [{...answer, fee_type: 'MYR'}, 'is about fee_type "MYR"'],
    ]
    for (const [data, why] of cases) {
      expect(mismatchOf('order_refund', refund, data)).toContain(why)
      expect(classify('order_refund', envelope(data), 1, false, refund)).toMatchObject({
        kind: 'signature',
        mismatch: true,
        message: expect.stringContaining(why),
      })
    }
  })

  it('for a query: the order number asked by must come back; a close answer carries only the merchant number', () => {
    expect(mismatchOf('order_query', {gw_order_no: 'G1'}, {result: 'SUCCESS', gw_order_no: 'G1'})).toBeUndefined()
    expect(mismatchOf('order_query', {gw_order_no: 'G1'}, {result: 'SUCCESS', gw_order_no: 'G2'})).toContain('"G2"')
    // A NOTSURE record with its numbers empty (as a published sample has it) is not about another order.
    expect(mismatchOf('order_query', {gw_order_no: 'G1'}, {result: 'NOTSURE', gw_order_no: ''})).toBeUndefined()
    expect(mismatchOf('order_query', {appid: 'mch1', mch_order_no: 'M'}, {mch_order_no: 'M', appid: 'mch2'})).toContain(
      'is about appid "mch2", not appid "mch1"',
    )
    expect(mismatchOf('order_close', {gw_order_no: 'G1'}, {result: 'SUCCESS', mch_order_no: 'M'})).toBeUndefined()
    expect(mismatchOf('order_close', {mch_order_no: 'M1'}, {result: 'SUCCESS', mch_order_no: 'M2'})).toContain('"M2"')
  })

  it('for a query: an order of another channel than the one asked is not the answer (every channel is asked at once)', () => {
    const asked = {mch_order_no: 'M', channel: 'wechat'}
    expect(mismatchOf('order_query', asked, {result: 'SUCCESS', mch_order_no: 'M', channel: 'wechat'})).toBeUndefined()
    expect(mismatchOf('order_query', asked, {result: 'SUCCESS', mch_order_no: 'M', channel: 'alipay'})).toContain(
      'is about channel "alipay", not channel "wechat"',
    )
    // A published sample's answer carries an empty channel: it says nothing of it, so it is not another's.
    expect(mismatchOf('order_query', asked, {result: 'SUCCESS', mch_order_no: 'M', channel: ''})).toBeUndefined()
  })

  it('shows what an answer says safely: control characters made visible', () => {
    expect(mismatchOf('order_refund', refund, {...answer, mch_refund_no: 'R\u001b[31m7'})).not.toContain('\u001b')
  })
})
