import {generateKeyPairSync} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {sign, verifyData} from '../../../src/lib/gateway/signing.js'
import {DuplicateKeyError, parseStrictJson} from '../../../src/lib/io/strict-json.js'
import {judgeNotification} from '../../../src/lib/notify/verification.js'
import {paymentNotification} from '../../helpers/notification.js'

const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 1024})
const verifier = {key: publicKey, scheme: 'rsa-md5' as const, appid: 'mch1'}
const data = paymentNotification('N1')
const body = (d: Record<string, unknown> = data, signature = sign(d, privateKey, 'rsa-md5')) =>
  JSON.stringify({data: d, sign: signature})

describe('strict JSON', () => {
  it('refuses a key given twice, at any depth', () => {
    expect(() => parseStrictJson('{"a":1,"a":2}')).toThrow(DuplicateKeyError)
    expect(() => parseStrictJson('{"x":[{"b":1,"b":1}]}')).toThrow('the key "b" is given twice')
    expect(parseStrictJson('{"a":{"a":1}}')).toEqual({a: {a: 1}})
  })
})

describe('verifying a data object', () => {
  it('refuses a null field or a sign of its own, which the canonical string would leave out', () => {
    const signature = sign(data, privateKey, 'rsa-md5')
    expect(verifyData(data, signature, publicKey, 'rsa-md5')).toBe(true)
    expect(verifyData({...data, extra: null}, signature, publicKey, 'rsa-md5')).toBe(false)
    expect(verifyData({...data, sign: 'x'}, signature, publicKey, 'rsa-md5')).toBe(false)
  })
})

describe('judging a notification', () => {
  it('verifies one signed by the gateway for this appid, and gives what was verified', () => {
    const judged = judgeNotification(body(), verifier)
    expect(judged).toMatchObject({
      verified: true,
      fields: {mch_order_no: 'N1', total_fee: 1234},
      envelope: {data, sign: expect.any(String)},
    })
  })

  it('refuses with a reason, keeping the fields shown', () => {
    const cases: [string, string][] = [
      ['not json', 'body is not JSON'],
      ['[1]', 'not a notification'],
      [JSON.stringify({data: 'x', sign: 'ab'}), 'not a notification'],
      [body(data, '00'), 'signature does not verify'],
      [body({...data, appid: 'mch2'}), "for appid mch2, not this profile's mch1"],
      [body({...data, result: 'FAIL'}), 'result is FAIL, not SUCCESS'],
      [`{"data":{},${body().slice(1)}`, 'the key "data" is given twice'],
    ]
    for (const [raw, reason] of cases)
      expect(judgeNotification(raw, verifier)).toMatchObject({verified: false, reason: expect.stringContaining(reason)})
    expect(judgeNotification(body(data, '00'), verifier).fields).toMatchObject({mch_order_no: 'N1'})
  })

  it('refuses a signed notification whose text was moved between fields (the canonical string has no separators)', () => {
    // Each keeps the signature of the real one: the canonical strings are the same text.
    const {nonce_str: nonce, ...noNonce} = data
    const swallowedNonce = {...noNonce, mch_order_no: `N1nonce_str=${nonce}`}
    const {total_fee: total, ...noTotal} = data
    const swallowedTotal = {...noTotal, time_end: `2026-11-24 19:42:59total_fee=${total}`}
    const signature = sign(data, privateKey, 'rsa-md5')
    for (const resplit of [swallowedNonce, swallowedTotal]) {
      expect(verifyData(resplit, signature, publicKey, 'rsa-md5')).toBe(true)
      expect(judgeNotification(body(resplit, signature), verifier)).toMatchObject({
        verified: false,
        reason: expect.stringContaining('not a payment notification as section 6 requires'),
      })
    }
    expect(judgeNotification(body(swallowedTotal, signature), verifier)).toMatchObject({
      reason: expect.stringMatching(/time_end.*total_fee|total_fee.*time_end/),
    })
  })

  it('refuses a notification lacking a required field, or whose order_no is not its mch_order_no', () => {
    const {openid: _openid, ...noOpenid} = data
    expect(judgeNotification(body(noOpenid), verifier)).toMatchObject({
      verified: false,
      reason: expect.stringContaining('openid'),
    })
    expect(judgeNotification(body({...data, order_no: 'N2'}), verifier)).toMatchObject({
      verified: false,
      reason: expect.stringContaining('order_no'),
    })
    expect(judgeNotification(body({...data, total_fee: '12.5'}), verifier)).toMatchObject({verified: false})
  })
})
