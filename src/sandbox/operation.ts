/**
 * The five signed operations under /Gateway/<operation>, checked in the order the gateway
 * checks them: method, body, form, appid, signature, version, the document's parameter
 * table, the nonce; then faults, then the rules. Every answer is a signed envelope, malformed
 * input included, never a crash.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {setTimeout as sleep} from 'node:timers/promises'

import {OPERATIONS, type Operation, type RequestProblemKind, checkRequest} from '../lib/gateway/protocol/index.js'
import {type SignScheme, verify} from '../lib/gateway/signing.js'
import {readBody, reply} from '../lib/io/http.js'
import {envelope, failureData} from './envelope.js'
import {type Faults, latencyOf, strikes} from './faults.js'
import {FormError, decodeForm} from './form.js'
import type {GatewayKeys, Merchant} from './merchants.js'
import type {GatewayRules} from './rules/index.js'

export const MAX_BODY = 1024 * 1024
const ACCEPTED_VERSIONS = ['1.0.0', '2.0.0', '3.0.0']
const CODE_FOR_PROBLEM: Record<RequestProblemKind, string> = {
  missing: 'LACK_PARAMS',
  order_number_missing: 'GW_ERROR_ORDER_NO',
  too_long: 'GW_PARAM_OVERLENGTH',
  invalid: 'GW_INVALID_PARAM',
  channel_not_taken: 'NOAUTH',
}
const NONCE_MEMORY = 200_000

interface OperationContext {
  gateway: GatewayKeys
  merchants: Map<string, Merchant>
  rules: GatewayRules
  faults(): Faults
  log(line: string): void
  /** An order was created (for --auto-pay). */
  created(appid: string, mchOrderNo: string): void
}

export class Operations {
  readonly #seenNonces = new Set<string>()
  /** Requests received per operation, for tests and benchmarks that must know what was sent. */
  readonly requests: Record<string, number> = {}

  constructor(private readonly context: OperationContext) {}

  /** An answer for a path that names no operation. */
  unknown(res: ServerResponse, why: string): void {
    const data = failureData('RADIS_DOES_NOT_EXIST', why)
    reply(res, 404, JSON.stringify(envelope(this.context.gateway, data, 'rsa-md5', 404, 'not found')))
  }

  async handle(req: IncomingMessage, res: ServerResponse, name: string, origin: string): Promise<void> {
    const {gateway, merchants, rules, log} = this.context
    const faults = this.context.faults()
    const started = Date.now()
    const answer = (data: Record<string, unknown>, scheme: SignScheme) => {
      const signed = envelope(gateway, data, scheme)
      if (strikes(faults, 'bad-signature', name))
        signed.sign = signed.sign.replace(/^./, (c) => (c === '0' ? '1' : '0'))
      reply(res, 200, JSON.stringify(signed))
      log(
        `${req.method} /Gateway/${name} ${String(data.appid ?? '')} ${String(data.err_code ?? data.result)} ${Date.now() - started}ms`,
      )
    }
    const refuse = (code: string, msg: string, scheme: SignScheme = 'rsa-md5') => answer(failureData(code, msg), scheme)

    if (!(OPERATIONS as readonly string[]).includes(name)) {
      return this.unknown(res, `unknown operation ${name}; operations: ${OPERATIONS.join(', ')}`)
    }
    const operation = name as Operation
    this.requests[operation] = (this.requests[operation] ?? 0) + 1
    if (req.method !== 'POST') {
      req.resume()
      return refuse('REQUIRE_POST_METHOD', `${req.method} is not allowed; use POST`)
    }
    const body = await readBody(req, MAX_BODY)
    if (body === 'too_large') {
      res.setHeader('connection', 'close')
      return refuse('GW_PARAM_OVERLENGTH', `the body is larger than ${MAX_BODY} bytes`)
    }
    if (body.length === 0) return refuse('POST_DATA_EMPTY', 'the POST body is empty')
    let params: Record<string, string>
    try {
      params = decodeForm(body)
    } catch (error) {
      if (error instanceof FormError) return refuse(error.code, error.message)
      throw error
    }
    const missingAuth = ['appid', 'nonce_str', 'sign'].filter((k) => !params[k])
    if (missingAuth.length) return refuse('LACK_PARAMS', `missing ${missingAuth.join(', ')}`)
    const merchant = merchants.get(params.appid!)
    if (!merchant) return refuse('GW_INVALID_MCHINFO', `appid ${params.appid} is unknown`)
    const scheme = merchant.sign_scheme
    if (!verify(params, params.sign!, merchant.publicKey, scheme)) {
      return refuse(
        'GW_SIGN_ERROR',
        `the signature does not verify with the key of ${merchant.appid} (${scheme})`,
        scheme,
      )
    }
    if (params.version !== undefined && !ACCEPTED_VERSIONS.includes(params.version)) {
      const accepted = ACCEPTED_VERSIONS.join(' or ')
      return refuse('GW_VERSION_ERROR', `version ${params.version} is not accepted; use ${accepted}`, scheme)
    }
    const problems = checkRequest(operation, params)
    if (problems.length) {
      const first = problems[0]!
      const same = problems.filter((p) => p.kind === first.kind).map((p) => p.message)
      return refuse(CODE_FOR_PROBLEM[first.kind], same.join('; '), scheme)
    }
    const nonceKey = `${merchant.appid}:${params.nonce_str}`
    if (this.#seenNonces.has(nonceKey)) {
      return refuse('GW_INVALID_PARAM', 'nonce_str was already used; every request needs a new one', scheme)
    }
    this.#rememberNonce(nonceKey)

    const latency = latencyOf(faults, operation)
    if (latency) await sleep(latency)
    if (strikes(faults, 'http-500', operation)) {
      log(`POST /Gateway/${name} ${merchant.appid} fault http-500`)
      return reply(res, 500, 'Internal Server Error', 'text/plain')
    }
    if (strikes(faults, 'code-nonzero', operation)) {
      log(`POST /Gateway/${name} ${merchant.appid} fault code-nonzero`)
      return reply(
        res,
        200,
        JSON.stringify(envelope(gateway, {}, scheme, 1, 'system busy; send the same parameters again')),
      )
    }
    const refundProcessing = strikes(faults, 'refund-processing', operation)
    const outcome = await rules.execute(operation, merchant, params, {origin, refundProcessing})
    if (outcome.ok && operation === 'native_pay') this.context.created(merchant.appid, params.mch_order_no!)
    if (strikes(faults, 'drop-after-commit', operation)) {
      log(`POST /Gateway/${name} ${merchant.appid} fault drop-after-commit (${outcome.ok ? 'applied' : outcome.code})`)
      res.socket?.destroy()
      return
    }
    if (strikes(faults, 'notsure', operation))
      return answer(failureData('SYSTEMERROR', 'system timeout; query the order', 'NOTSURE'), scheme)
    answer(outcome.ok ? outcome.data : failureData(outcome.code, outcome.msg, outcome.result), scheme)
  }

  #rememberNonce(key: string): void {
    if (this.#seenNonces.size >= NONCE_MEMORY) this.#seenNonces.delete(this.#seenNonces.values().next().value!)
    this.#seenNonces.add(key)
  }
}
