/**
 * The one signed HTTP core. Every operation goes through `call`: check the parameters
 * against the document's tables (nothing bad is sent), add appid, nonce, time stamp and
 * signature, POST the form, verify the answer's signature with the gateway key, validate
 * its data, and classify it. Envelope code != 0, connection errors, timeouts, 5xx, non-JSON
 * answers and bad signatures are retried with the same business parameters and a fresh
 * nonce, a bounded number of times with jittered backoff. What may or may not have
 * happened is returned as `uncertain`, for the caller to resolve by querying.
 */
import type {Agent as HttpAgent} from 'node:http'
import type {KeyObject} from 'node:crypto'

import {GwError} from '../errors.js'
import {type RetryPolicy, jitteredBackoff, tries} from '../retry.js'
import {
  type Answer,
  type AttemptFailure,
  type Envelope,
  classify,
  describeNetworkError,
  readEnvelope,
} from './answers.js'
import {keepAliveAgent, send} from '../io/http.js'
import {plural} from '../plural.js'
import {type Operation, checkRequest} from './protocol/index.js'
import {type ZoneDisagreement, compactTimestamp, zoneDisagreement} from './protocol/time.js'
import {
  type SignScheme,
  canonicalString,
  newNonce,
  parsePrivateKey,
  parsePublicKey,
  signCanonical,
  verifyData,
} from './signing.js'

type BusinessParams = Record<string, string | number | undefined>

/** Operations that change the ledger: after a lost answer they may have happened. */
const MUTATING: readonly Operation[] = ['native_pay', 'order_refund', 'order_close']

/** One attempt on the wire, for --verbose: what was sent (nothing secret), and what came back. */
export type WireEvent =
  | {
      kind: 'request'
      operation: Operation
      attempt: number
      url: string
      params: Record<string, string>
      canonical: string
      sign: string
    }
  | {kind: 'answer'; operation: Operation; attempt: number; status?: number; ms: number; body?: string; error?: string}

export interface ClientOptions {
  /** Called with each attempt's request and answer (--verbose). */
  trace?: (event: WireEvent) => void
  /** Per-attempt time limit for the answer, in milliseconds. */
  timeoutMs?: number
  connectTimeoutMs?: number
  /** Attempts in all, the first included. */
  attempts?: number
  /** Base backoff in milliseconds (doubles each retry, full jitter, capped at 4 s). */
  backoffMs?: number
  connections?: number
  /** The passphrase of an encrypted private key. */
  keyPassphrase?: string
  /**
   * Called once, at the first answer whose time stamp writes another offset than the profile's
   * gateway zone has then: the times read in that zone are off by the difference.
   */
  zoneDisagrees?: (disagreement: ZoneDisagreement) => void
}

/** The envelope's time stamp as the gateway writes it: 2026-11-21T09:31:02.123+07:00. */
const ENVELOPE_STAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d{3}([+-]\d{2}:\d{2})$/

/**
 * A stamp of that form without its milliseconds (`2026-11-21T09:31:02+07:00`): its agreement
 * with a zone is the same for each of them (zones change offset on whole minutes). Undefined for
 * any other form, which is read each time.
 */
function secondOf(stamp: string): string | undefined {
  const parts = ENVELOPE_STAMP.exec(stamp)
  return parts ? `${parts[1]}${parts[2]}` : undefined
}

/** An answer of the gateway is a few KiB; one past this is cut off, never read whole. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024

/**
 * The keep-alive connections of one command, per origin (`connections` at most each: Node's own
 * agents; https's only for an https address). Closed when the command ends: a request still running then
 * (after Ctrl-C) starts no new attempt.
 */
export class Connections {
  readonly #agents = new Map<string, HttpAgent>()
  #closed = false

  get closed(): boolean {
    return this.#closed
  }

  agentFor(origin: string, connections: number): HttpAgent {
    let agent = this.#agents.get(origin)
    if (!agent) {
      const options = {keepAlive: true, maxSockets: connections, maxFreeSockets: connections, timeout: 30_000}
      agent = keepAliveAgent(origin, options)
      this.#agents.set(origin, agent)
    }
    return agent
  }

  /** Closes every keep-alive connection so the process can end; nothing is sent after this. */
  close(): void {
    this.#closed = true
    for (const agent of this.#agents.values()) agent.destroy()
    this.#agents.clear()
  }
}

/**
 * A call that ended because no connection to the gateway could be made, after the client's own
 * tries: unlike a lost answer, an HTTP 5xx or a code the gateway answered, it says nothing of the
 * request itself, so the next request cannot fare better (`refreshAsker` stops asking).
 */
export class GatewayUnreachable extends GwError {}

/** What the client needs of a merchant's profile (profiles/store.ts's Profile is one). */
export interface GatewayProfile {
  name: string
  appid: string
  baseUrl: string
  signScheme: SignScheme
  live: boolean
  /** The IANA zone the gateway writes its times (time_end, refund_time) in. */
  gatewayZone: string
  privateKeyPem: string
  gatewayPublicKeyPem: string
  /** Chosen on the command line (--profile): the commands gw suggests name it too. */
  named?: boolean
}

export class GatewayClient {
  readonly profile: GatewayProfile
  readonly #options: Required<Omit<ClientOptions, 'keyPassphrase' | 'zoneDisagrees' | 'trace'>>
  /** --verbose's: an attempt's events are made only for it. */
  readonly #trace?: (event: WireEvent) => void
  /** Said once a command: undefined once said. */
  #zoneDisagrees?: (disagreement: ZoneDisagreement) => void
  readonly #retry: RetryPolicy
  /** Read on the first signature: a command that only reads the history never needs an encrypted key's passphrase. */
  readonly #readPrivateKey: () => KeyObject
  #privateKey?: KeyObject
  readonly #gatewayKey
  readonly #scheme: SignScheme
  readonly #origin: string
  readonly #basePath: string
  readonly #agent: HttpAgent
  /** Each operation's address, parsed once: a batch calls one operation thousands of times. */
  readonly #urls = new Map<Operation, URL>()
  /** The seconds (and offsets) of answers' time stamps found to agree with the profile's zone. */
  readonly #zoneAgreed = new Set<string>()

  constructor(
    profile: GatewayProfile,
    {keyPassphrase, zoneDisagrees, trace, ...options}: ClientOptions = {},
    readonly connections = new Connections(),
  ) {
    this.profile = profile
    this.#zoneDisagrees = zoneDisagrees
    this.#trace = trace
    this.#options = {
      timeoutMs: 15_000,
      connectTimeoutMs: 5000,
      attempts: 4,
      backoffMs: 250,
      connections: 16,
      ...options,
    }
    this.#retry = {tries: this.#options.attempts, delayMs: jitteredBackoff(this.#options.backoffMs, 4000)}
    this.#readPrivateKey = () => parsePrivateKey(profile.privateKeyPem, keyPassphrase)
    this.#gatewayKey = parsePublicKey(profile.gatewayPublicKeyPem)
    this.#scheme = profile.signScheme
    const base = new URL(profile.baseUrl)
    this.#origin = base.origin
    this.#basePath = base.pathname.replace(/\/+$/, '')
    this.#agent = connections.agentFor(this.#origin, this.#options.connections)
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
    // The parameters as they will be sent; appid, nonce, time stamp and sign stand in (no nonce is drawn for a check).
    const auth = {appid: this.profile.appid, nonce_str: 'n', time_stamp: compactTimestamp(), sign: 's'}
    const sent = Object.fromEntries(Object.entries(business).map(([k, v]) => [k, v === undefined ? v : String(v)]))
    const problems = checkRequest(operation, {...auth, ...sent})
    if (problems.length) {
      throw new GwError('usage', `Not sent: ${problems.map((p) => p.message).join('; ')}.`, {details: {problems}})
    }
  }

  /** The signed parameters of one attempt: a new nonce and time stamp every time. */
  #signed(business: BusinessParams): {params: Record<string, string>; canonical: string} {
    const params = this.#params(business)
    const canonical = canonicalString(params)
    params.sign = signCanonical(canonical, (this.#privateKey ??= this.#readPrivateKey()), this.#scheme)
    return {params, canonical}
  }

  /**
   * `known`: what else gw knows of the order asked about (its gw_order_no from a query), which a
   * successful answer must not contradict, beside the parameters sent and the appid. `signal`:
   * once it aborts, no retry is made.
   */
  async call<O extends Operation>(
    operation: O,
    business: BusinessParams,
    known: BusinessParams = {},
    options: {signal?: AbortSignal} = {},
  ): Promise<Answer<O>> {
    this.check(operation, business)
    const url = this.#urlOf(operation)
    let failure: AttemptFailure | undefined
    let mayHaveArrived = false
    for await (const attempt of tries(this.#retry)) {
      // After a stop (Ctrl-C, SIGTERM, a hang-up) no retry leaves: the request under way (its first attempt) is awaited.
      if (this.connections.closed || (attempt > 1 && options.signal?.aborted)) {
        failure = {kind: 'transport', message: 'gw stopped before an answer came', mayHaveArrived, final: true}
        break
      }
      const result = await this.#attempt(operation, business, url, attempt)
      if ('kind' in result) {
        failure = result
        mayHaveArrived ||= result.mayHaveArrived
        if (result.final) break
        continue
      }
      this.#checkZone(result.time)
      const asked = {...known, ...business, appid: this.profile.appid}
      const answer = classify(operation, result, attempt, mayHaveArrived, asked, this.profile.gatewayZone)
      if (answer && 'kind' in answer) {
        failure = answer
        mayHaveArrived = true
        continue
      }
      if (answer) return answer
      const said = result.msg ? ` ("${result.msg}")` : ''
      failure = {
        kind: 'transport',
        message: `the gateway answered code ${String(result.code)}${said}: the call was not processed`,
        mayHaveArrived: false,
        httpStatus: result.httpStatus,
      }
    }
    const last = failure!
    if (MUTATING.includes(operation) && mayHaveArrived) {
      const reason = last.mismatch ? 'not_about_request' : last.kind === 'signature' ? 'bad_signature' : 'no_answer'
      return {status: 'uncertain', reason, message: last.message, attempts: this.#retry.tries}
    }
    if (last.kind === 'signature') {
      throw new GwError('signature', `${last.message}; nothing in it was trusted.`, {
        advice: last.mismatch
          ? 'A signed answer to another request came back: something between gw and the gateway (a proxy or cache) mixes answers up. Nothing was taken from it.'
          : 'Check the gateway public key of the profile (gw profile show, gw doctor); if it is right, the answer was altered on the way.',
      })
    }
    const attempts = last.final ? '' : ` (${plural(this.#retry.tries, 'attempt')})`
    throw new (last.unreached ? GatewayUnreachable : GwError)('transport', `${last.message}${attempts}.`, {
      advice: `Check the base URL of profile "${this.profile.name}" (${this.profile.baseUrl}) and the network, then run gw doctor.`,
      ...(last.httpStatus === undefined ? {} : {details: {http_status: last.httpStatus}}),
    })
  }

  #urlOf(operation: Operation): URL {
    let url = this.#urls.get(operation)
    if (!url) this.#urls.set(operation, (url = new URL(`${this.#origin}${this.#basePath}/${operation}`)))
    return url
  }

  /**
   * The answer's time stamp against the profile's zone: a disagreement said once. A batch's
   * answers are stamped within a few seconds: a second found to agree is not read again.
   */
  #checkZone(stamp: string | undefined): void {
    if (!this.#zoneDisagrees) return
    const second = stamp && secondOf(stamp)
    if (second && this.#zoneAgreed.has(second)) return
    const disagreement = zoneDisagreement(stamp, this.profile.gatewayZone)
    if (!disagreement) {
      if (second) this.#zoneAgreed.add(second)
      return
    }
    const said = this.#zoneDisagrees
    this.#zoneDisagrees = undefined
    said(disagreement)
  }

  async #attempt(
    operation: Operation,
    business: BusinessParams,
    target: URL,
    attempt: number,
  ): Promise<Envelope | AttemptFailure> {
    let statusCode: number
    let text: string
    const url = target.href
    const trace = this.#trace
    const {params, canonical} = this.#signed(business)
    if (trace) {
      const {sign: signature, ...sent} = params
      trace({kind: 'request', operation, attempt, url, params: sent, canonical, sign: signature!})
    }
    const started = trace && performance.now()
    const answered = (status?: number, body?: string, error?: string) =>
      trace?.({kind: 'answer', operation, attempt, status, ms: performance.now() - started!, body, error})
    try {
      const answer = await send(target, {
        headers: {'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json'},
        body: new URLSearchParams(params).toString(),
        agent: this.#agent,
        timeoutMs: this.#options.timeoutMs,
        connectTimeoutMs: this.#options.connectTimeoutMs,
        limit: MAX_ANSWER_BYTES,
      })
      statusCode = answer.status
      if (answer.tooLarge) {
        const message = `the answer from ${url} is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; it was cut off`
        answered(statusCode, undefined, message)
        return {kind: 'transport', message, mayHaveArrived: true}
      }
      text = answer.body.toString('utf8')
      answered(statusCode, text)
    } catch (error) {
      const failure = describeNetworkError(error, url)
      answered(undefined, undefined, failure.message)
      return failure
    }
    return readEnvelope({statusCode, text, url, operation, profile: this.profile.name}, (data, signature) =>
      verifyData(data, signature, this.#gatewayKey, this.#scheme),
    )
  }
}
