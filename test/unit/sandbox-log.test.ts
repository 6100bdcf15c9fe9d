import {generateKeyPairSync, sign as cryptoSign} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {errMsg} from '../../src/lib/gateway/protocol/index.js'
import {explainSignature, sign} from '../../src/lib/gateway/signing.js'
import {requestLines, safeRecord} from '../../src/lib/render/sandbox.js'
import type {RequestRecord} from '../../src/sandbox/request-log.js'

const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 1024})
const params = {appid: 'mch1', nonce_str: 'n', product: 'tea & cake', attach: ''}

describe('explainSignature: the likeliest cause of a signature that does not verify', () => {
  const signedOver = (text: string) => cryptoSign('md5', Buffer.from(text), privateKey).toString('hex')

  it('names no cause for a signature that verifies', () => {
    expect(explainSignature(params, sign(params, privateKey, 'rsa-md5'), publicKey, 'rsa-md5').cause).toBeUndefined()
  })

  it('pairs joined with &, values form-encoded, and a signature that is not one', () => {
    const joined = 'appid=mch1&attach=&nonce_str=n&product=tea & cake'
    expect(explainSignature(params, signedOver(joined), publicKey, 'rsa-md5').cause).toBe(
      'the pairs were joined with &; join them with nothing',
    )
    const form = 'appid=mch1attach=nonce_str=nproduct=tea+%26+cake'
    expect(explainSignature(params, signedOver(form), publicKey, 'rsa-md5').cause).toMatch(/^values were form-encoded/)
    expect(explainSignature(params, 'not a signature!', publicKey, 'rsa-md5').cause).toBe(
      'the signature is neither hex nor base64',
    )
  })

  it("values quoted as Python's urllib.parse.quote(v) quotes them, / left as it is, and with safe=''", () => {
    const slashed = {appid: 'mch1', nonce_str: 'n', notify_url: 'https://shop.example/hook', product: 'tea/cake (2)'}
    const python = 'appid=mch1nonce_str=nnotify_url=https%3A//shop.example/hookproduct=tea/cake%20%282%29'
    expect(explainSignature(slashed, signedOver(python), publicKey, 'rsa-md5').cause).toBe(
      "values were URL-encoded, / left as is (Python's quote(v) default), before signing; sign them as sent",
    )
    const nothingSafe = 'appid=mch1nonce_str=nnotify_url=https%3A%2F%2Fshop.example%2Fhookproduct=tea%2Fcake%20%282%29'
    expect(explainSignature(slashed, signedOver(nothingSafe), publicKey, 'rsa-md5').cause).toBe(
      'values were URL-encoded before signing; sign them as sent, decoded',
    )
  })

  it('an err_msg within its 128 characters, cut at a word', () => {
    expect(errMsg('short and whole')).toBe('short and whole')
    const long = `signature does not verify (rsa-md5): ${'word '.repeat(30)}end`
    const cut = errMsg(long)
    expect(cut.length).toBeLessThanOrEqual(128)
    expect(cut).toMatch(/ word…$/)
    expect(long.startsWith(cut.slice(0, -1))).toBe(true)
  })

  it('a key of the same size that is not this one, and a signature cut short', () => {
    const other = generateKeyPairSync('rsa', {modulusLength: 1024}).privateKey
    expect(explainSignature(params, sign(params, other, 'rsa-md5'), publicKey, 'rsa-md5')).toMatchObject({
      cause: 'it was signed with another key than this one',
      otherKey: true,
    })
    const cut = sign(params, privateKey, 'rsa-md5').slice(0, 200)
    expect(explainSignature(params, cut, publicKey, 'rsa-md5').cause).toMatch(
      /^the signature is 100 bytes, not the 128 \(256 hex digits\) of this key \(1024 bits\): cut short/,
    )
  })
})

describe("the sandbox's request lines", () => {
  const record: RequestRecord = {
    time: '2026-11-24T10:00:00.000Z',
    method: 'GET',
    operation: 'order_query',
    appid: 'mch1',
    order: 'INV-\u001b[31mRED',
    outcome: 'GW_SIGN_ERROR',
    err_msg: 'signature does not verify',
    ms: 3,
    warnings: ['GET accepted: the API document says POST'],
    params: {appid: 'mch1', sign: 'abcdef01…23456789 (512 characters)'},
    signature: {
      canonical: 'appid=mch1',
      fingerprint: 'aa:bb',
      cause: 'parameter x was sent but not signed',
      appid: 'mch1',
      scheme: 'rsa-md5',
    },
  }

  it('one line per request, then its warnings and why its signature failed; sent values shown safely, no colour', () => {
    const plain = {isTTY: false} as NodeJS.WriteStream
    expect(requestLines(record, plain).split('\n')).toEqual([
      '2026-11-24T10:00:00.000Z GET order_query mch1 INV-\\x1B[31mRED GW_SIGN_ERROR 3ms',
      '  warning: GET accepted: the API document says POST',
      '  canonical string built from what arrived: appid=mch1',
      '  verified with the public key of mch1 (rsa-md5), fingerprint aa:bb',
      '  signature received: abcdef01…23456789 (512 characters)',
      '  likeliest cause: parameter x was sent but not signed',
    ])
    expect(safeRecord(record).order).toBe('INV-\\x1B[31mRED')
  })
})
