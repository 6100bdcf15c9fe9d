import {generateKeyPairSync} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {sign, verifyData} from '../../../src/lib/gateway/signing.js'
import {DuplicateKeyError, parseStrictJson} from '../../../src/lib/io/strict-json.js'
import {judgeNotification} from '../../../src/lib/notify/verification.js'

const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 1024})
const verifier = {key: publicKey, scheme: 'rsa-md5' as const, appid: 'mch1'}
const data = {appid: 'mch1', mch_order_no: 'A', gw_order_no: '900A', result: 'SUCCESS', total_fee: 100, fee_type: 'THB'}
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
      fields: {mch_order_no: 'A', total_fee: 100},
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
    expect(judgeNotification(body(data, '00'), verifier).fields).toMatchObject({mch_order_no: 'A'})
  })
})
