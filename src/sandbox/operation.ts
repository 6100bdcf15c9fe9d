/**
 * The five signed operations under /Gateway/<operation>, checked in the order the gateway
 * checks them: method, body, form, appid, signature, version, the document's parameter
 * table, the nonce; then faults, then the rules. Every answer is a signed envelope, malformed
 * input included, never a crash; every answer is recorded (request-log.ts). What the gateway
 * accepts beyond the document is accepted with a named warning, or refused under --strict.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {setTimeout as sleep} from 'node:timers/promises'

import {
  OPERATIONS,
  ORDER_NUMBER_FIELDS,
  type Operation,
  type RequestProblemKind,
  checkRequest,
} from '../lib/gateway/protocol/index.js'
import {type SignScheme, explainSignature, verify} from '../lib/gateway/signing.js'
import {readBody, reply} from '../lib/io/http.js'
import {judgeParameters} from './departures.js'
import {envelope, failureData} from './envelope.js'
import {type Faults, latencyOf, strikes} from './faults.js'
import {FormError, decodeForm} from './form.js'
import type {GatewayKeys, Merchant} from './merchants.js'
import {type RequestRecord, abbreviated} from './request-log.js'
import type {GatewayRules} from './rules/index.js'

export const MAX_BODY = 1024 * 1024
const ACCEPTED_VERSIONS = ['1.0.0', '2.0.0', '3.0.0']
const CODE_FOR_PROBLEM: Record<RequestProblemKind, string> = {
  missing: 'LACK_PARAMS',
  order_number_missing: 'GW_ERROR_ORDER_NO',
  too_long: 'GW_PARAM_OVERLENGTH',
  invalid: 'GW_INVALID_PARAM',
  channel_not_taken: 'NOAUTH',
  currency_not_taken: 'GW_FEETYPE_NOT_MATCH',
}
const NONCE_MEMORY = 200_000

interface OperationContext {
  gateway: GatewayKeys
  merchants: Map<string, Merchant>
  rules: GatewayRules
  faults(): Faults
  /** Refuse every departure from the API document, as the document says. */
  strict: boolean
  /** Each request, once answered. */
  record(record: RequestRecord): void
  /** An order was created (for --auto-pay). */
  created(appid: string, mchOrderNo: string): void
}

type Refusal = {code: string; msg: string}

export class Operations {
  readonly #seenNonces = new Set<string>()
  /** Requests received per operation, for tests and benchmarks that must know what was sent. */
  readonly requests: Record<string, number> = {}

  constructor(private readonly context: OperationContext) {}

  /** An answer for a path that names no operation; recorded too (a base URL set wrong shows at once). */
  unknown(req: IncomingMessage, res: ServerResponse, path: string, why: string): void {
    req.resume()
    const data = failureData('RADIS_DOES_NOT_EXIST', why)
    reply(res, 404, JSON.stringify(envelope(this.context.gateway, data, 'rsa-md5', 404, 'not found')))
    const time = new Date().toISOString()
    const at = {time, method: req.method ?? '', operation: path, appid: '', order: '', ms: 0, warnings: [], params: {}}
    this.context.record({...at, outcome: 'RADIS_DOES_NOT_EXIST', err_msg: why})
  }

  async handle(req: IncomingMessage, res: ServerResponse, name: string, origin: string, url: URL): Promise<void> {
    const {gateway, rules, strict} = this.context
    const faults = this.context.faults()
    const started = Date.now()
    const record: RequestRecord = {
      time: '',
      method: req.method ?? '',
      operation: name,
      appid: '',
      order: '',
      outcome: '',
      ms: 0,
      warnings: [],
      params: {},
    }
    const done = (outcome: string, msg?: string) => {
      record.time = new Date().toISOString()
      record.ms = Date.now() - started
      record.outcome = outcome
      if (msg !== undefined) record.err_msg = msg
      this.context.record(record)
    }
    const answer = (data: Record<string, unknown>, scheme: SignScheme) => {
      const signed = envelope(gateway, data, scheme)
      if (strikes(faults, 'bad-signature', name))
        signed.sign = signed.sign.replace(/^./, (c) => (c === '0' ? '1' : '0'))
      reply(res, 200, JSON.stringify(signed))
      done(String(data.err_code ?? data.result), data.err_code === undefined ? undefined : String(data.err_msg))
    }
    const refuse = ({code, msg}: Refusal, scheme: SignScheme = 'rsa-md5') => answer(failureData(code, msg), scheme)

    if (!(OPERATIONS as readonly string[]).includes(name)) {
      return this.unknown(req, res, url.pathname, `unknown operation ${name}; operations: ${OPERATIONS.join(', ')}`)
    }
    const operation = name as Operation
    this.requests[operation] = (this.requests[operation] ?? 0) + 1
    const read = await this.#parameters(req, url, record.warnings)
    if ('code' in read) {
      if (read.code === 'GW_PARAM_OVERLENGTH') res.setHeader('connection', 'close')
      return refuse(read)
    }
    const {params} = read
    record.params = {...params, ...(params.sign ? {sign: abbreviated(params.sign)} : {})}
    record.appid = params.appid ?? ''
    record.order = ORDER_NUMBER_FIELDS.map((field) => params[field]).find(Boolean) ?? ''
    const missingAuth = ['appid', 'nonce_str', 'sign'].filter((k) => !params[k])
    if (missingAuth.length) return refuse({code: 'LACK_PARAMS', msg: `missing ${missingAuth.join(', ')}`})
    const merchant = this.context.merchants.get(params.appid!)
    if (!merchant) return refuse({code: 'GW_INVALID_MCHINFO', msg: `appid ${params.appid} is unknown`})
    const scheme = merchant.sign_scheme
    const signatureRefusal = this.#signature(merchant, params, record)
    if (signatureRefusal) return refuse(signatureRefusal, scheme)
    if (params.version !== undefined && !ACCEPTED_VERSIONS.includes(params.version)) {
      const accepted = ACCEPTED_VERSIONS.join(' or ')
      return refuse(
        {code: 'GW_VERSION_ERROR', msg: `version ${params.version} is not accepted; use ${accepted}`},
        scheme,
      )
    }
    const judged = judgeParameters(operation, params, checkRequest(operation, params), strict)
    record.warnings.push(...judged.warnings)
    if (judged.refused) return refuse(judged.refused, scheme)
    if (judged.problems.length) {
      const first = judged.problems[0]!
      const same = judged.problems.filter((p) => p.kind === first.kind).map((p) => p.message)
      return refuse({code: CODE_FOR_PROBLEM[first.kind], msg: same.join('; ')}, scheme)
    }
    const nonceKey = `${merchant.appid}:${params.nonce_str}`
    if (this.#seenNonces.has(nonceKey)) {
      if (strict) {
        const msg = 'nonce_str was already used; every request needs a new one'
        return refuse({code: 'GW_INVALID_PARAM', msg}, scheme)
      }
      record.warnings.push('a reused nonce_str accepted: the API document says it is unique for every signature')
    }
    this.#rememberNonce(nonceKey)

    const latency = latencyOf(faults, operation)
    if (latency) await sleep(latency)
    if (strikes(faults, 'http-500', operation)) {
      reply(res, 500, 'Internal Server Error', 'text/plain')
      return done('fault http-500')
    }
    if (strikes(faults, 'code-nonzero', operation)) {
      reply(res, 200, JSON.stringify(envelope(gateway, {}, scheme, 1, 'system busy; send the same parameters again')))
      return done('fault code-nonzero')
    }
    const refundProcessing = strikes(faults, 'refund-processing', operation)
    const outcome = await rules.execute(operation, merchant, params, {origin, refundProcessing})
    if (outcome.ok && operation === 'native_pay') this.context.created(merchant.appid, params.mch_order_no!)
    if (strikes(faults, 'drop-after-commit', operation)) {
      res.socket?.destroy()
      return done(`fault drop-after-commit (${outcome.ok ? 'applied' : outcome.code})`)
    }
    if (strikes(faults, 'notsure', operation))
      return answer(failureData('SYSTEMERROR', 'system timeout; query the order', 'NOTSURE'), scheme)
    answer(outcome.ok ? outcome.data : failureData(outcome.code, outcome.msg, outcome.result), scheme)
  }

  /**
   * The parameters of a request. The document: POST, in the form body (its examples repeat
   * them in the query string). Accepted besides, with a warning: GET with the parameters in
   * the query string, and parameters only in the query string of a POST; under --strict, GET
   * is REQUIRE_POST_METHOD and the query string is not read.
   */
  async #parameters(
    req: IncomingMessage,
    url: URL,
    warnings: string[],
  ): Promise<{params: Record<string, string>} | Refusal> {
    const {strict} = this.context
    const get = req.method === 'GET' && !strict
    if (req.method !== 'POST' && !get) {
      req.resume()
      return {code: 'REQUIRE_POST_METHOD', msg: `${req.method} is not allowed; use POST`}
    }
    let body: Record<string, string> = {}
    let query: Record<string, string> = {}
    try {
      query = strict ? {} : decodeForm(Buffer.from(url.search.slice(1), 'latin1'))
      if (get) req.resume()
      else {
        const raw = await readBody(req, MAX_BODY)
        if (raw === 'too_large') return {code: 'GW_PARAM_OVERLENGTH', msg: `the body is larger than ${MAX_BODY} bytes`}
        body = decodeForm(raw)
      }
    } catch (error) {
      if (error instanceof FormError) return {code: error.code, msg: error.message}
      throw error
    }
    if (get) warnings.push('GET accepted: the API document says POST')
    const onlyInQuery = Object.keys(query).filter((name) => !Object.hasOwn(body, name))
    const differing = Object.keys(query).find((name) => Object.hasOwn(body, name) && body[name] !== query[name])
    if (differing)
      return {code: 'GW_INVALID_PARAM', msg: `parameter ${differing} differs between the query string and the body`}
    if (!get && onlyInQuery.length)
      warnings.push(
        `parameters only in the query string accepted (${onlyInQuery.join(', ')}): the API document says the form body`,
      )
    const params = {...query, ...body}
    if (Object.keys(params).length === 0)
      return {code: 'POST_DATA_EMPTY', msg: get ? 'the request carries no parameters' : 'the POST body is empty'}
    return {params}
  }

  /**
   * The signature checked with the merchant's registered key; a failure explained in the record
   * (the canonical string, the key's fingerprint, the likeliest cause) and, briefly, in err_msg.
   * A signature in upper-case hex verifies (with a warning), or under --strict is refused.
   */
  #signature(merchant: Merchant, params: Record<string, string>, record: RequestRecord): Refusal | undefined {
    const scheme = merchant.sign_scheme
    const signature = params.sign!
    const upperCase = /[A-F]/.test(signature)
    const valid = verify(params, signature, merchant.publicKey, scheme)
    if (valid && !upperCase) return undefined
    if (valid && !this.context.strict) {
      record.warnings.push('a signature in upper-case hex accepted: the API document says lowercase hex')
      return undefined
    }
    const others = [...this.context.merchants.values()]
      .filter((m) => m !== merchant)
      .map((m) => ({name: m.appid, key: m.publicKey}))
    const explanation = explainSignature(params, signature, merchant.publicKey, scheme, others)
    if (explanation.otherKey)
      explanation.cause = `${explanation.cause}; sign with ${merchant.appid}'s key, or register yours: gw sandbox merchant add`
    record.signature = {...explanation, appid: merchant.appid, scheme}
    // The client gets the diagnosis itself (err_msg, String(128)), not a pointer to a log it cannot see;
    // the log adds the canonical string and the key's fingerprint.
    const cause = explanation.cause ?? 'none of the usual causes; compare the canonical string with the one signed'
    return {code: 'GW_SIGN_ERROR', msg: `signature does not verify (${scheme}): ${cause}`}
  }

  #rememberNonce(key: string): void {
    if (this.#seenNonces.size >= NONCE_MEMORY) this.#seenNonces.delete(this.#seenNonces.values().next().value!)
    this.#seenNonces.add(key)
  }
}
