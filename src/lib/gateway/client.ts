/**
 * The one signed HTTP core. Every operation goes through `call`: check the parameters
 * against the document's tables (nothing bad is sent), add appid, nonce, time stamp and
 * signature, POST the form, verify the answer's signature with the gateway key, validate
 * its data, and classify it. Envelope code != 0, connection errors, timeouts, 5xx, non-JSON
 * answers and bad signatures are retried with the same business parameters and a fresh
 * nonce, a bounded number of times with jittered backoff. What may or may not have
 * happened is returned as `uncertain`, for the caller to resolve by querying.
 */
import {Pool, errors as undiciErrors} from 'undici'

import {GwError} from '../errors.js'
import type {Profile} from '../profiles/store.js'
import {
  AMBIGUOUS_CODES,
  DUPLICATE_CODES,
  type Operation,
  RESPONSE_SCHEMAS,
  type ResponseData,
  checkRequest,
  envelopeSchema,
  explainError,
  lookupError,
} from './protocol/index.js'
import {compactTimestamp} from './protocol/time.js'
import {type SignScheme, newNonce, parsePrivateKey, parsePublicKey, sign, verify} from './signing.js'

export type BusinessParams = Record<string, string | number | undefined>

/** Operations that change the ledger: after a lost answer they may have happened. */
const MUTATING: readonly Operation[] = ['native_pay', 'order_refund', 'order_close']

export interface Success<O extends Operation> {
  status: 'success'
  data: ResponseData<O>
  attempts: number
  /** The envelope's time_stamp: the gateway's clock. */
  gatewayTime?: string
}

export interface Refusal {
  status: 'refused'
  code: string
  message: string
  /** The catalogue's meaning and advice, in one or two sentences. */
  explanation: string
  advice?: string
  attempts: number
  gatewayTime?: string
}

export interface Uncertain {
  status: 'uncertain'
  reason: 'notsure' | 'ambiguous_code' | 'duplicate_on_retry' | 'no_answer' | 'bad_signature'
  code?: string
  message: string
  attempts: number
}

export type Answer<O extends Operation> = Success<O> | Refusal | Uncertain

export interface ClientOptions {
  /** Per-attempt time limit for the answer, in milliseconds. */
  timeoutMs?: number
  connectTimeoutMs?: number
  /** Attempts in all, the first included. */
  attempts?: number
  /** Base backoff in milliseconds (doubles each retry, full jitter, capped at 4 s). */
  backoffMs?: number
  connections?: number
}

interface AttemptFailure {
  kind: 'transport' | 'signature'
  message: string
  /** The request may have reached the gateway (anything but a failure to connect). */
  mayHaveArrived: boolean
}

const pools = new Map<string, Pool>()

function poolFor(origin: string, options: Required<ClientOptions>): Pool {
  let pool = pools.get(origin)
  if (!pool) {
    pool = new Pool(origin, {
      connections: options.connections,
      connect: {timeout: options.connectTimeoutMs},
      keepAliveTimeout: 30_000,
    })
    pools.set(origin, pool)
  }
  return pool
}

/** Closes every keep-alive pool so the process can end. */
export async function closeConnections(): Promise<void> {
  const open = [...pools.values()]
  pools.clear()
  await Promise.allSettled(open.map((p) => p.close()))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function describeNetworkError(error: unknown, url: string): AttemptFailure {
  const code = (error as {code?: string}).code ?? ''
  const notConnected = [
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'UND_ERR_CONNECT_TIMEOUT',
  ].includes(code)
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return {kind: 'transport', message: `no answer from ${url} in time`, mayHaveArrived: true}
  }
  if (code === 'ECONNREFUSED')
    return {kind: 'transport', message: `nothing is listening at ${url} (connection refused)`, mayHaveArrived: false}
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return {kind: 'transport', message: `the host of ${url} is not known`, mayHaveArrived: false}
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return {kind: 'transport', message: `could not connect to ${url} in time`, mayHaveArrived: false}
  return {
    kind: 'transport',
    message: `the connection to ${url} failed (${(error as Error).message || code})`,
    mayHaveArrived: !notConnected,
  }
}

export class GatewayClient {
  readonly profile: Profile
  readonly #options: Required<ClientOptions>
  readonly #privateKey
  readonly #gatewayKey
  readonly #scheme: SignScheme
  readonly #origin: string
  readonly #basePath: string

  constructor(profile: Profile, options: ClientOptions = {}) {
    this.profile = profile
    this.#options = {
      timeoutMs: 15_000,
      connectTimeoutMs: 5000,
      attempts: 4,
      backoffMs: 250,
      connections: 16,
      ...options,
    }
    this.#privateKey = parsePrivateKey(profile.privateKeyPem)
    this.#gatewayKey = parsePublicKey(profile.gatewayPublicKeyPem)
    this.#scheme = profile.signScheme
    const base = new URL(profile.baseUrl)
    this.#origin = base.origin
    this.#basePath = base.pathname.replace(/\/+$/, '')
  }

  /** The wire parameters of a request: appid, nonce, time stamp and the business values as text. */
  #params(business: BusinessParams): Record<string, string> {
    const params: Record<string, string> = {
      appid: this.profile.appid,
      nonce_str: newNonce(),
      time_stamp: compactTimestamp(),
    }
    for (const [key, value] of Object.entries(business)) if (value !== undefined) params[key] = String(value)
    return params
  }

  /** Refuses, before sending, parameters the document does not allow. */
  check(operation: Operation, business: BusinessParams): void {
    const problems = checkRequest(operation, {...this.#params(business), sign: 'x'})
    if (problems.length) {
      throw new GwError('usage', `Not sent: ${problems.map((p) => p.message).join('; ')}.`, {details: {problems}})
    }
  }

  /** The signed form body for one attempt: a new nonce and time stamp every time. */
  #signedBody(business: BusinessParams): string {
    const params = this.#params(business)
    params.sign = sign(params, this.#privateKey, this.#scheme)
    return new URLSearchParams(params).toString()
  }

  async call<O extends Operation>(operation: O, business: BusinessParams): Promise<Answer<O>> {
    this.check(operation, business)
    const url = `${this.#origin}${this.#basePath}/${operation}`
    const mutating = MUTATING.includes(operation)
    let failure: AttemptFailure | undefined
    let mayHaveArrived = false
    for (let attempt = 1; attempt <= this.#options.attempts; attempt++) {
      if (attempt > 1) await sleep(Math.random() * Math.min(4000, this.#options.backoffMs * 2 ** (attempt - 2)))
      const result = await this.#attempt(operation, business, url)
      if ('kind' in result) {
        failure = result
        mayHaveArrived ||= result.mayHaveArrived
        continue
      }
      const answer = this.#classify(operation, result, attempt, mayHaveArrived)
      if (answer) return answer
      failure = {
        kind: 'transport',
        message: `the gateway answered code ${String(result.code)}${result.msg ? ` ("${result.msg}")` : ''}: the call was not processed`,
        mayHaveArrived: false,
      }
    }
    const last = failure!
    if (mutating && mayHaveArrived) {
      return {
        status: 'uncertain',
        reason: last.kind === 'signature' ? 'bad_signature' : 'no_answer',
        message: last.message,
        attempts: this.#options.attempts,
      }
    }
    if (last.kind === 'signature') {
      throw new GwError('signature', `${last.message}; nothing in it was trusted.`, {
        advice:
          'Check the gateway public key of the profile (gw profile show, gw doctor); if it is right, the answer was altered on the way.',
      })
    }
    throw new GwError('transport', `${last.message} (${this.#options.attempts} attempts).`, {
      advice: `Check the base URL of profile "${this.profile.name}" (${this.profile.baseUrl}) and the network, then run gw doctor.`,
    })
  }

  async #attempt(
    operation: Operation,
    business: BusinessParams,
    url: string,
  ): Promise<{code: number; msg?: string; time?: string; data: Record<string, unknown>} | AttemptFailure> {
    let statusCode: number
    let text: string
    try {
      const response = await poolFor(this.#origin, this.#options).request({
        path: `${this.#basePath}/${operation}`,
        method: 'POST',
        headers: {'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json'},
        body: this.#signedBody(business),
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
      })
      statusCode = response.statusCode
      text = await response.body.text()
    } catch (error) {
      return describeNetworkError(error, url)
    }
    if (statusCode >= 500)
      return {kind: 'transport', message: `the gateway answered HTTP ${statusCode}`, mayHaveArrived: true}
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return {
        kind: 'transport',
        message: `the answer from ${url} is not JSON (HTTP ${statusCode}: ${JSON.stringify(text.slice(0, 80))})`,
        mayHaveArrived: true,
      }
    }
    const envelope = envelopeSchema.safeParse(json)
    if (!envelope.success)
      return {
        kind: 'transport',
        message: `the answer from ${url} is not the gateway's envelope (HTTP ${statusCode})`,
        mayHaveArrived: true,
      }
    const {code, msg, sign: signature, data, time_stamp: time} = envelope.data
    if (code !== 0) return {code, msg, data: {}}
    if (!data || typeof data !== 'object' || Array.isArray(data))
      return {kind: 'transport', message: 'the answer has no data object', mayHaveArrived: true}
    if (!signature || !verify(data as Record<string, unknown>, signature, this.#gatewayKey, this.#scheme)) {
      return {
        kind: 'signature',
        message: `the signature of the answer to ${operation} does not verify with the gateway public key of profile "${this.profile.name}"`,
        mayHaveArrived: true,
      }
    }
    return {code, msg, time, data: data as Record<string, unknown>}
  }

  /** Undefined means "retry": the envelope said the call was not processed. */
  #classify<O extends Operation>(
    operation: O,
    answer: {code: number; time?: string; data: Record<string, unknown>},
    attempt: number,
    retried: boolean,
  ): Answer<O> | undefined {
    if (answer.code !== 0) return undefined
    const data = answer.data
    const result = String(data.result ?? '')
    const errCode = typeof data.err_code === 'string' && data.err_code ? data.err_code : undefined
    const message = typeof data.err_msg === 'string' ? data.err_msg : ''
    // An order record reports the order's state in `result`; a failure carries err_code.
    const failed = errCode !== undefined || result === 'FAIL' || (operation !== 'order_query' && result !== 'SUCCESS')
    if (!failed) {
      const parsed = RESPONSE_SCHEMAS[operation].safeParse(data)
      if (!parsed.success) {
        return {
          status: 'uncertain',
          reason: 'no_answer',
          message: `the answer to ${operation} lacks fields the document requires (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`,
          attempts: attempt,
        }
      }
      return {status: 'success', data: parsed.data as ResponseData<O>, attempts: attempt, gatewayTime: answer.time}
    }
    if (result === 'NOTSURE')
      return {
        status: 'uncertain',
        reason: 'notsure',
        code: errCode,
        message: message || 'the gateway is not sure of the outcome',
        attempts: attempt,
      }
    if (errCode && AMBIGUOUS_CODES.includes(errCode))
      return {status: 'uncertain', reason: 'ambiguous_code', code: errCode, message, attempts: attempt}
    // A duplicate number after an attempt that may have arrived is likely our own earlier attempt.
    if (errCode && DUPLICATE_CODES.includes(errCode) && retried)
      return {status: 'uncertain', reason: 'duplicate_on_retry', code: errCode, message, attempts: attempt}
    const known = lookupError(errCode)
    return {
      status: 'refused',
      code: errCode ?? result,
      message,
      explanation: explainError(errCode, message),
      advice: known?.action,
      attempts: attempt,
      gatewayTime: answer.time,
    }
  }
}
