/**
 * A client written as the gateway's published SDKs are, independent of gw's code: node:http and
 * node:crypto only. The canonical string is the sorted key=value pairs joined with nothing,
 * signed RSA with MD5 in lowercase hex; each step can be done the way a mistaken integration
 * does it (another digest, base64, values URL-encoded, a parameter left out of the signature).
 */
import {createSign, createVerify, randomBytes} from 'node:crypto'
import {request} from 'node:http'

type Params = Record<string, string>

/** Nested values (an answer's refund_orders) as JSON, as the Node SDK writes them. */
export const sdkCanonical = (params: Record<string, unknown>) =>
  Object.keys(params)
    .filter((key) => key !== 'sign')
    .sort()
    .map((key) => `${key}=${typeof params[key] === 'object' ? JSON.stringify(params[key]) : String(params[key])}`)
    .join('')

/** A refund of 500 of a wechat order of 2000 THB, numbered `${mch}-R`. */
export const refundOf = (mch: string) => ({
  channel: 'wechat',
  mch_order_no: mch,
  total_fee: 2000,
  fee_type: 'THB',
  mch_refund_no: `${mch}-R`,
  refund_fee: 500,
})

interface SigningWay {
  algorithm?: 'RSA-MD5' | 'RSA-SHA256'
  encoding?: 'hex' | 'base64'
  /** The string signed, from the parameters (default: the canonical string). */
  canonical?: (params: Params) => string
}

interface SdkAnswer {
  status: number
  envelope: {code: number; msg: string; sign: string; data: Record<string, unknown>}
  data: Record<string, unknown>
  /** Whether the answer's signature verifies over data with the gateway key (when the client has it). */
  verified?: boolean
}

export class SdkClient {
  constructor(
    readonly baseUrl: string,
    readonly appid: string,
    readonly privateKeyPem: string,
    /** The gateway's public key, to verify answers with. */
    readonly gatewayPublicKeyPem?: string,
  ) {}

  /** The business parameters with appid, a fresh nonce and time_stamp (yyyyMMddHHmmss, local time). */
  params(business: Record<string, string | number>, extra: Params = {}): Params {
    const now = new Date()
    const two = (n: number) => String(n).padStart(2, '0')
    const time = [now.getMonth() + 1, now.getDate(), now.getHours(), now.getMinutes(), now.getSeconds()]
    const params: Params = {
      appid: this.appid,
      nonce_str: randomBytes(16).toString('hex'),
      time_stamp: `${now.getFullYear()}${time.map(two).join('')}`,
    }
    for (const [key, value] of Object.entries(business)) params[key] = String(value)
    return {...params, ...extra}
  }

  /** The parameters with their sign, made the way given. */
  signed(params: Params, way: SigningWay = {}): Params {
    const signer = createSign(way.algorithm ?? 'RSA-MD5')
    signer.update((way.canonical ?? sdkCanonical)(params), 'utf8')
    return {...params, sign: signer.sign(this.privateKeyPem, way.encoding ?? 'hex')}
  }

  /**
   * Sends signed parameters: POST in the form body (the document), `query` also or only in the
   * query string, or GET with them in the query string (the Python SDK).
   */
  send(
    operation: string,
    params: Params,
    how: {method?: 'GET' | 'POST'; query?: 'also' | 'only'} = {},
  ): Promise<SdkAnswer> {
    const method = how.method ?? 'POST'
    const form = new URLSearchParams(params).toString()
    const inQuery = method === 'GET' || how.query !== undefined
    const inBody = method === 'POST' && how.query !== 'only'
    const url = new URL(`${this.baseUrl}/${operation}${inQuery ? `?${form}` : ''}`)
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {method, headers: inBody ? {'content-type': 'application/x-www-form-urlencoded'} : {}},
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => (text += chunk))
          res.on('end', () => {
            try {
              const envelope = JSON.parse(text) as SdkAnswer['envelope']
              resolve({status: res.statusCode ?? 0, envelope, data: envelope.data, ...this.#verified(envelope)})
            } catch (error) {
              reject(error as Error)
            }
          })
        },
      )
      req.on('error', reject)
      req.end(inBody ? form : undefined)
    })
  }

  #verified(envelope: SdkAnswer['envelope']): {verified?: boolean} {
    if (!this.gatewayPublicKeyPem) return {}
    const verifier = createVerify('RSA-MD5')
    verifier.update(sdkCanonical(envelope.data), 'utf8')
    return {verified: verifier.verify(this.gatewayPublicKeyPem, envelope.sign, 'hex')}
  }

  /** Signs the business parameters the SDK's way and sends them. */
  call(
    operation: string,
    business: Record<string, string | number>,
    how?: {method?: 'GET' | 'POST'},
  ): Promise<SdkAnswer> {
    return this.send(operation, this.signed(this.params(business)), how)
  }
}
