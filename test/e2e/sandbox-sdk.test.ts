import {execFileSync} from 'node:child_process'
import {createPrivateKey, createPublicKey, generateKeyPairSync} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RequestRecord} from '../../src/sandbox/request-log.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {SdkClient, refundOf, sdkCanonical} from '../helpers/sdk-client.js'
import {readShared, removeDir, tempDir} from '../helpers/shared.js'

let seq = 0
const orderNo = (prefix = 'SDK') => `${prefix}-${process.pid}-${Date.now()}-${++seq}`

interface Started {
  sandbox: TestSandbox
  client: SdkClient
  records: RequestRecord[]
  /** The record of the request whose nonce this is. */
  recordOf(nonce: string): RequestRecord
}

async function started(strict: boolean): Promise<Started> {
  const records: RequestRecord[] = []
  const sandbox = await startTestSandbox({
    strict,
    merchants: [{appid: 'mch30001'}, {appid: 'mch30002'}],
    onRequest: (record) => records.push(record),
  })
  const merchant = sandbox.info.merchants[0]!
  const client = new SdkClient(sandbox.info.base_url, merchant.appid, readFileSync(merchant.private_key_file, 'utf8'))
  const recordOf = (nonce: string) => records.findLast((r) => r.params.nonce_str === nonce)!
  return {sandbox, client, records, recordOf}
}

let lenient: Started
let strict: Started
beforeAll(async () => {
  ;[lenient, strict] = await Promise.all([started(false), started(true)])
})
afterAll(async () => {
  for (const {sandbox} of [lenient, strict]) {
    await sandbox.close()
    removeDir(sandbox.dataDir)
  }
})

/** A wechat order of the sandbox's first merchant, paid, and refunded 500 under `${mch}-R`. */
async function refundedOrder({sandbox, client}: Started): Promise<string> {
  const mch = orderNo()
  const created = await client.call('native_pay', {
    channel: 'wechat',
    mch_order_no: mch,
    total_fee: 2000,
    fee_type: 'THB',
  })
  expect(created.data.result).toBe('SUCCESS')
  expect((await sandbox.controls.pay(mch)).status).toBe(200)
  expect((await client.call('order_refund', refundOf(mch))).data.result).toBe('SUCCESS')
  return mch
}

describe('what the published SDKs send, accepted as the gateway accepts it, each with a named warning', () => {
  it('a GET with the parameters in the query string (the Python SDK)', async () => {
    const mch = await refundedOrder(lenient)
    const params = lenient.client.signed(lenient.client.params({channel: 'wechat', mch_order_no: mch}))
    const answer = await lenient.client.send('order_query', params, {method: 'GET'})
    expect(answer.data).toMatchObject({result: 'REFUND', mch_order_no: mch})
    expect(lenient.recordOf(params.nonce_str!)).toMatchObject({
      method: 'GET',
      operation: 'order_query',
      order: mch,
      outcome: 'REFUND',
      warnings: expect.arrayContaining(['GET accepted: the API document says POST']),
    })
  })

  it('a byte-identical repeat (the Python SDK fixes its nonce per process) and a reused nonce with other parameters', async () => {
    const mch = await refundedOrder(lenient)
    const params = lenient.client.signed(lenient.client.params({channel: 'wechat', mch_order_no: mch}))
    const first = await lenient.client.send('order_query', params)
    const again = await lenient.client.send('order_query', params)
    expect(first.data.result).toBe('REFUND')
    expect(again.data.result).toBe('REFUND')
    const reused = /a reused nonce_str accepted: the API document says it is unique/
    expect(lenient.recordOf(params.nonce_str!).warnings).toEqual([expect.stringMatching(reused)])
    const other = lenient.client.signed({...params, mch_order_no: 'NO-SUCH-ORDER'})
    const answer = await lenient.client.send('order_query', other)
    expect(answer.data).toMatchObject({result: 'FAIL', err_code: 'GW_INVALID_ORDER_NO'})
    expect(lenient.recordOf(params.nonce_str!).warnings).toEqual([expect.stringMatching(reused)])
    // A repeated refund is still refused by its duplicate number.
    const signedRefund = lenient.client.signed(lenient.client.params(refundOf(mch)))
    await lenient.client.send('order_refund', signedRefund)
    const twice = await lenient.client.send('order_refund', signedRefund)
    expect(twice.data).toMatchObject({result: 'FAIL', err_code: 'GW_DUPLICATED_REFUND_ORDERNO'})
    expect((await lenient.sandbox.controls.orders(mch))[0]!.refunds).toHaveLength(1)
  })

  it('an order query and a close without channel (the Go SDK), the order found by its number', async () => {
    const mch = orderNo()
    await lenient.client.call('native_pay', {channel: 'alipay', mch_order_no: mch, total_fee: 100, fee_type: 'THB'})
    const params = lenient.client.signed(lenient.client.params({mch_order_no: mch}))
    expect((await lenient.client.send('order_query', params)).data).toMatchObject({result: 'NOTPAY', channel: 'alipay'})
    expect(lenient.recordOf(params.nonce_str!).warnings).toEqual([
      'order_query without channel accepted (the order found by its number): the API document requires channel',
    ])
    expect((await lenient.client.call('order_close', {mch_order_no: mch})).data.result).toBe('SUCCESS')
    expect((await lenient.sandbox.controls.orders(mch))[0]!.state).toBe('CLOSED')
  })

  it('a refund query with only the order and refund numbers (the Go SDK)', async () => {
    const mch = await refundedOrder(lenient)
    const params = lenient.client.signed(lenient.client.params({mch_order_no: mch, mch_refund_no: `${mch}-R`}))
    const answer = await lenient.client.send('refund_query', params)
    expect(answer.data).toMatchObject({result: 'SUCCESS', refund_count: 1})
    expect(lenient.recordOf(params.nonce_str!).warnings).toEqual([
      expect.stringContaining('refund_query with only the order and refund numbers accepted'),
    ])
  })

  it('parameters repeated in the query string, as the document examples send them, without a warning', async () => {
    const mch = await refundedOrder(lenient)
    const params = lenient.client.signed(
      lenient.client.params({channel: 'wechat', mch_order_no: mch}, {time_stamp: String(Date.now())}),
    )
    expect((await lenient.client.send('order_query', params, {query: 'also'})).data.result).toBe('REFUND')
    // time_stamp in epoch milliseconds, as the Node SDK sends it, is the one departure.
    expect(lenient.recordOf(params.nonce_str!).warnings).toEqual([
      'time_stamp as epoch milliseconds accepted: the API document says 14 digits yyyyMMddHHmmss',
    ])
    const differing = {...params, mch_order_no: 'OTHER'}
    const both = await lenient.client.send('order_query', params, {query: 'also'})
    expect(both.data.result).toBe('REFUND')
    const url = `${lenient.sandbox.info.base_url}/order_query?${new URLSearchParams(differing).toString()}`
    const mixed = await fetch(url, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams(params).toString(),
    })
    expect(((await mixed.json()) as {data: object}).data).toMatchObject({
      err_code: 'GW_INVALID_PARAM',
      err_msg: 'parameter mch_order_no differs between the query string and the body',
    })
  })
})

describe('every request shown', () => {
  it('a path that names no operation too: a base URL set wrong shows in the log', async () => {
    const params = lenient.client.signed(lenient.client.params({mch_order_no: 'X'}))
    const answer = await lenient.client.send('orderquery', params)
    expect(answer.status).toBe(404)
    expect(lenient.records.at(-1)).toMatchObject({
      method: 'POST',
      operation: '/Gateway/orderquery',
      outcome: 'RADIS_DOES_NOT_EXIST',
      err_msg: expect.stringContaining('unknown operation orderquery; operations: native_pay'),
    })
  })
})

describe('--strict: as the API document says', () => {
  it('GET is REQUIRE_POST_METHOD', async () => {
    const params = strict.client.signed(strict.client.params({channel: 'wechat', mch_order_no: 'X'}))
    expect((await strict.client.send('order_query', params, {method: 'GET'})).data).toMatchObject({
      result: 'FAIL',
      err_code: 'REQUIRE_POST_METHOD',
    })
  })

  it('a query and a close without channel, and a refund query without its amounts, are LACK_PARAMS', async () => {
    const mch = await refundedOrder(strict)
    for (const operation of ['order_query', 'order_close'])
      expect((await strict.client.call(operation, {mch_order_no: mch})).data).toMatchObject({
        err_code: 'LACK_PARAMS',
        err_msg: 'channel is required',
      })
    const minimal = await strict.client.call('refund_query', {mch_order_no: mch, mch_refund_no: `${mch}-R`})
    expect(minimal.data).toMatchObject({
      err_code: 'LACK_PARAMS',
      err_msg: expect.stringContaining('total_fee is required'),
    })
  })

  it('any reused nonce is refused, a byte-identical repeat included', async () => {
    const params = strict.client.signed(strict.client.params({channel: 'wechat', mch_order_no: 'NONE'}))
    expect((await strict.client.send('order_query', params)).data.err_code).toBe('GW_INVALID_ORDER_NO')
    expect((await strict.client.send('order_query', params)).data).toMatchObject({
      err_code: 'GW_INVALID_PARAM',
      err_msg: expect.stringContaining('nonce_str was already used'),
    })
  })

  it('a time_stamp in epoch milliseconds is GW_INVALID_PARAM; 14 digits pass', async () => {
    const mch = await refundedOrder(strict)
    const stamped = strict.client.params({channel: 'wechat', mch_order_no: mch}, {time_stamp: String(Date.now())})
    const millis = await strict.client.send('order_query', strict.client.signed(stamped))
    expect(millis.data).toMatchObject({
      err_code: 'GW_INVALID_PARAM',
      err_msg: expect.stringContaining('epoch milliseconds'),
    })
    const digits = strict.client.params({channel: 'wechat', mch_order_no: mch}, {time_stamp: '20261124093015'})
    expect((await strict.client.send('order_query', strict.client.signed(digits))).data.result).toBe('REFUND')
  })
})

/** Python's urllib.parse.quote(v, safe): what an SDK written in Python signs when it quotes values first. */
const pythonQuote = (value: string, safe = '/') =>
  [...Buffer.from(value, 'utf8')]
    .map((byte) => {
      const c = String.fromCharCode(byte)
      return /[A-Za-z0-9_.~-]/.test(c) || safe.includes(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
    })
    .join('')

describe('a signature that does not verify is explained: in the log, and to the client in err_msg', () => {
  const business = () => ({
    channel: 'wechat',
    mch_order_no: orderNo(),
    total_fee: 100,
    fee_type: 'THB',
    product: 'tea for two',
    attach: '',
  })

  /** The cause the log gives; the client's err_msg says the same, whole within String(128), or cut at a word. */
  async function explained(params: Record<string, string>) {
    const answer = await lenient.client.send('native_pay', params)
    expect(answer.data).toMatchObject({result: 'FAIL', err_code: 'GW_SIGN_ERROR'})
    const record = lenient.recordOf(params.nonce_str!)
    expect(record.outcome).toBe('GW_SIGN_ERROR')
    const {canonical, fingerprint, cause} = record.signature!
    expect(canonical).toBe(sdkCanonical(params))
    expect(fingerprint).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/)
    const said = String(answer.data.err_msg)
    const whole = `signature does not verify (rsa-md5): ${cause}`
    expect(said).not.toContain('log')
    expect(said.length).toBeLessThanOrEqual(128)
    if (whole.length <= 128) expect(said).toBe(whole)
    else {
      // Cut at a word: what it keeps is the start of the whole, and the next character of the whole is a space.
      expect(said).toMatch(/…$/)
      const kept = said.slice(0, -1)
      expect(whole.startsWith(kept)).toBe(true)
      expect(whole.slice(kept.length)).toMatch(/^[\s,;:]/)
    }
    return cause
  }

  it('a parameter sent but not signed', async () => {
    const params = lenient.client.params(business())
    const {product: _product, ...signedPart} = params
    const {sign} = lenient.client.signed(signedPart)
    expect(await explained({...params, sign: sign!})).toBe('parameter product was sent but not signed')
  })

  it('empty values left out of the signed string', async () => {
    const params = lenient.client.params(business())
    const canonical = (p: Record<string, string>) =>
      sdkCanonical(Object.fromEntries(Object.entries(p).filter(([, v]) => v !== '')))
    expect(await explained(lenient.client.signed(params, {canonical}))).toMatch(
      /^empty values were left out of the signed string \(attach\)/,
    )
  })

  it('values URL-encoded before signing', async () => {
    const params = lenient.client.params(business())
    const canonical = (p: Record<string, string>) =>
      sdkCanonical(Object.fromEntries(Object.entries(p).map(([k, v]) => [k, encodeURIComponent(v)])))
    expect(await explained(lenient.client.signed(params, {canonical}))).toMatch(
      /^values were URL-encoded before signing/,
    )
  })

  it("values quoted by Python's urllib.parse.quote(v), which leaves / unencoded, and by quote(v, safe='')", async () => {
    const slashed = {...business(), product: 'tea/coffee for two', notify_url: 'https://shop.example/hooks/pay'}
    const quoted = (safe: string) => (p: Record<string, string>) =>
      sdkCanonical(Object.fromEntries(Object.entries(p).map(([k, v]) => [k, pythonQuote(v, safe)])))
    const byDefault = lenient.client.signed(lenient.client.params(slashed), {canonical: quoted('/')})
    const cause = await explained(byDefault)
    expect(cause).toBe(
      "values were URL-encoded, / left as is (Python's quote(v) default), before signing; sign them as sent",
    )
    const nothingSafe = lenient.client.signed(lenient.client.params(slashed), {canonical: quoted('')})
    expect(await explained(nothingSafe)).toMatch(/^values were URL-encoded before signing/)
  })

  it('SHA-256 instead of MD5, and a signature in base64', async () => {
    const sha = lenient.client.signed(lenient.client.params(business()), {algorithm: 'RSA-SHA256'})
    expect(await explained(sha)).toBe('it was signed with SHA-256 (rsa-sha256), not MD5 (rsa-md5)')
    const base64 = lenient.client.signed(lenient.client.params(business()), {encoding: 'base64'})
    expect(await explained(base64)).toBe('the signature is base64; send it as lowercase hex')
  })

  it("another merchant's key, and a key the sandbox does not know", async () => {
    const other = lenient.sandbox.info.merchants[1]!
    const mistaken = new SdkClient(
      lenient.client.baseUrl,
      lenient.client.appid,
      readFileSync(other.private_key_file, 'utf8'),
    )
    expect(await explained(mistaken.signed(mistaken.params(business())))).toBe(
      `it was signed with the key of ${other.appid}`,
    )
    const {privateKey} = generateKeyPairSync('rsa', {modulusLength: 1024})
    const own = new SdkClient(
      lenient.client.baseUrl,
      lenient.client.appid,
      privateKey.export({type: 'pkcs1', format: 'pem'}).toString(),
    )
    expect(await explained(own.signed(own.params(business())))).toMatch(
      /^the signature is 128 bytes, not the 256 \(512 hex digits\) of this key \(2048 bits\): cut short, or another key's; .*gw sandbox merchant add$/,
    )
  })

  it('upper-case hex is accepted with a warning, refused under --strict with its cause', async () => {
    const upper = (s: Started): Record<string, string> => {
      const params = s.client.signed(s.client.params(business(), {time_stamp: '20261124093015'}))
      return {...params, sign: params.sign!.toUpperCase()}
    }
    const accepted = upper(lenient)
    expect((await lenient.client.send('native_pay', accepted)).data.result).toBe('SUCCESS')
    expect(lenient.recordOf(accepted.nonce_str!).warnings).toContain(
      'a signature in upper-case hex accepted: the API document says lowercase hex',
    )
    const refused = upper(strict)
    expect((await strict.client.send('native_pay', refused)).data).toMatchObject({
      err_code: 'GW_SIGN_ERROR',
      err_msg: expect.stringContaining('the signature is upper-case hex; send it as lowercase hex'),
    })
  })
})

describe('keys as the gateway issues them', () => {
  it('the merchant private key is PKCS#1, the gateway public key both PKCS#1 and SPKI, named in sandbox.json', () => {
    const info = JSON.parse(readFileSync(join(lenient.sandbox.dataDir, 'sandbox.json'), 'utf8'))
    const {spki, pkcs1} = info.gateway_public_key_files
    expect(info.gateway_public_key_file).toBe(spki)
    const privateFile = info.merchants[0].private_key_file
    expect(readFileSync(privateFile, 'utf8')).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/)
    expect(readFileSync(pkcs1, 'utf8')).toMatch(/^-----BEGIN RSA PUBLIC KEY-----\n/)
    expect(readFileSync(spki, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----\n/)
    execFileSync('openssl', ['rsa', '-RSAPublicKey_in', '-in', pkcs1, '-noout'])
    execFileSync('openssl', ['pkey', '-pubin', '-in', spki, '-noout'])
    execFileSync('openssl', ['pkey', '-in', privateFile, '-noout'])
    // Both forms are the same key.
    const der = (file: string) => createPublicKey(readFileSync(file, 'utf8')).export({type: 'spki', format: 'der'})
    expect(der(pkcs1).equals(der(spki))).toBe(true)
  })

  it('a data dir made earlier, with PKCS#8 keys, keeps working', async () => {
    const dataDir = tempDir('gw-sandbox-pkcs8-')
    const keys = join(dataDir, 'keys')
    const {mkdirSync} = await import('node:fs')
    mkdirSync(keys, {recursive: true})
    const pair = (name: string) => {
      const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
      writeFileSync(join(keys, `${name}.private.pem`), privateKey.export({type: 'pkcs8', format: 'pem'}))
      writeFileSync(join(keys, `${name}.public.pem`), publicKey.export({type: 'spki', format: 'pem'}))
    }
    pair('gateway')
    pair('mch30009')
    writeFileSync(join(dataDir, 'merchants.json'), JSON.stringify({merchants: [{appid: 'mch30009'}]}))
    const old = await startTestSandbox({dataDir})
    try {
      const merchant = old.info.merchants[0]!
      expect(readFileSync(merchant.private_key_file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/)
      const client = new SdkClient(old.info.base_url, merchant.appid, readFileSync(merchant.private_key_file, 'utf8'))
      const answer = await client.call('native_pay', {
        channel: 'wechat',
        mch_order_no: orderNo(),
        total_fee: 100,
        fee_type: 'THB',
      })
      expect(answer.data.result).toBe('SUCCESS')
      expect(readFileSync(old.info.gateway_public_key_files.pkcs1, 'utf8')).toMatch(/^-----BEGIN RSA PUBLIC KEY-----/)
    } finally {
      await old.close()
      removeDir(dataDir)
    }
  })
})

describe("the published SDK's own request", () => {
  interface Published {
    request: {private_key: string; params: Record<string, string>; sign: string}
  }
  const {request} = readShared<Published>('vectors/published.json')

  it('verifies once its merchant is registered: only its departures are warned about', async () => {
    const {registerMerchant} = await import('../../src/sandbox/merchants.js')
    const publicKeyPem = createPublicKey(createPrivateKey(request.private_key))
      .export({type: 'spki', format: 'pem'})
      .toString()
    expect(
      registerMerchant(lenient.sandbox.dataDir, {appid: request.params.appid!, publicKeyPem, signScheme: 'rsa-md5'}),
    ).toBe(true)
    await lenient.sandbox.controls.reloadMerchants()
    const params: Record<string, string> = {...request.params, sign: request.sign}
    const answer = await lenient.client.send('order_query', params)
    // Its signature verified: the order it names is simply not in this sandbox.
    expect(answer.data).toMatchObject({result: 'FAIL', err_code: 'GW_INVALID_ORDER_NO'})
    const warnings = lenient.recordOf(params.nonce_str!).warnings
    expect(warnings).toEqual(
      expect.arrayContaining([
        'time_stamp as 14 digits with more characters after them accepted: the API document says 14 digits yyyyMMddHHmmss',
        expect.stringMatching(
          /^parameters the API document does not name accepted \(signed like the rest\): channel_list, /,
        ),
      ]),
    )
  })
})
