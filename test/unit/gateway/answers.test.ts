import {describe, expect, it} from 'vitest'

import {classify, describeNetworkError, readEnvelope} from '../../../src/lib/gateway/answers.js'

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
    })
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
    expect(read(200, {code: 1, msg: 'busy'}, false)).toEqual({code: 1, msg: 'busy', data: {}})
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
})
