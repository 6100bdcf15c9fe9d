/**
 * A temporary webhook receiver for the gateway's payment notifications. Each POST is read
 * (at most 64 KiB), judged (verification), and answered: exactly {"result":"SUCCESS","msg":"OK"}
 * when it verifies, a failure otherwise, so the gateway retries. With a forward target,
 * verified notifications go on to the merchant's own endpoint, re-serialised from what was
 * verified (never the raw bytes), and its answer is relayed, so the gateway's retries exercise
 * the merchant's code. Stopping closes idle and slow connections at once.
 */
import {randomUUID} from 'node:crypto'
import {closeSync} from 'node:fs'
import {type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {NOTIFICATION_ACK, isAcknowledgement, isoTime} from '../gateway/protocol/index.js'
import type {NotificationFields} from '../gateway/protocol/index.js'
import type {SignScheme} from '../gateway/signing.js'
import {type Posted, post, readBody, reply} from '../io/http.js'
import {logLines} from '../io/json-lines.js'
import {
  MAX_NOTIFICATION_BYTES,
  type Verifier,
  isGatewayContentType,
  judgeNotification,
  verifierOf,
} from './verification.js'

/** A delivery whose request is not whole within this is cut off (a slow client holds nothing for long). */
const REQUEST_TIMEOUT_MS = 15_000
const FORWARD_TIMEOUT_MS = 10_000

export interface NotificationEvent extends NotificationFields {
  at: string
  verdict: 'verified' | 'REJECTED'
  reason?: string
  /** 0 for the first delivery of an order's notification, n for its n-th repeat. */
  retry: number
  answer: {status: number; body: string}
  /** With a forward target: what the endpoint answered, and whether that acknowledges (section 6). */
  forwarded?: {url: string; status?: number; body?: string; error?: string; acknowledged: boolean}
}

interface ListenerOptions {
  host: string
  port: number
  gatewayPublicKeyPem: string
  signScheme: SignScheme
  /** The profile's appid: notifications for another merchant are refused. */
  appid: string
  forwardTo?: string
  /** The log, opened by openLog, closed with the listener. */
  log?: number
  onEvent: (event: NotificationEvent) => void
  /** The log could not be written (a full disk): said once; the listener goes on answering. */
  onLogFailure: (error: NodeJS.ErrnoException) => void
}

const FAILURE = (msg: string) => JSON.stringify({result: 'FAIL', msg})

/** Marks what a listener forwards, so one that receives its own forward (a loop, however routed) refuses it. */
const FORWARDED_BY = 'x-gw-forwarded-by'

export class NotificationListener {
  readonly #server: Server
  readonly #seen = new Map<string, number>()
  readonly #verifier: Verifier
  /** Requests whose body is still arriving: cut off at once when the listener stops. */
  readonly #receiving = new Set<IncomingMessage>()
  #answering = 0
  #idle?: () => void
  readonly #log?: (value: unknown) => void
  readonly #id = randomUUID()

  constructor(private readonly options: ListenerOptions) {
    this.#verifier = verifierOf(options)
    if (options.log !== undefined) this.#log = logLines(options.log, options.onLogFailure)
    this.#server = createServer({requestTimeout: REQUEST_TIMEOUT_MS}, (req, res) => {
      this.#handle(req, res)
        .catch((error: Error) => this.#answer(res, 500, FAILURE(`listener error: ${error.message}`)))
        .finally(() => {
          if (--this.#answering === 0) this.#idle?.()
        })
    })
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(this.options.port, this.options.host, () => resolve())
    })
    const {address, port, family} = this.#server.address() as AddressInfo
    const host = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : family === 'IPv6' ? `[${address}]` : address
    return `http://${host}:${port}/notify`
  }

  #answer(
    res: ServerResponse,
    status: number,
    body: string,
    type = 'application/json',
  ): {status: number; body: string} {
    reply(res, status, body, type)
    return {status, body}
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#answering++
    const at = isoTime()
    if (req.method !== 'POST') {
      req.resume()
      this.#answer(res, 405, FAILURE('notifications are POSTed'))
      return
    }
    this.#receiving.add(req)
    const body = await readBody(req, MAX_NOTIFICATION_BYTES).finally(() => this.#receiving.delete(req))
    const reject = (status: number, reason: string, raw: string, fields: NotificationFields = {}) => {
      const answer = this.#answer(res, status, FAILURE(reason))
      this.#record({at, verdict: 'REJECTED', reason, retry: 0, answer, ...fields}, req.headers, raw)
    }
    if (body === 'too_large') return reject(413, `body larger than ${MAX_NOTIFICATION_BYTES} bytes`, '')
    if (req.headers[FORWARDED_BY] === this.#id)
      return reject(508, 'forwarded back to this listener: --forward-to leads to the listener itself', '')
    const raw = body.toString('utf8')
    const judged = judgeNotification(raw, this.#verifier)
    if (!judged.verified) return reject(400, judged.reason, raw, judged.fields)
    const {fields} = judged
    const key = fields.gw_order_no ?? fields.mch_order_no ?? raw
    const retry = this.#seen.get(key) ?? 0
    this.#seen.set(key, retry + 1)
    if (!this.options.forwardTo) {
      const answer = this.#answer(res, 200, NOTIFICATION_ACK)
      this.#record({at, verdict: 'verified', retry, answer, ...fields}, req.headers, raw)
      return
    }
    // Forwarded as the gateway's content type; what a sender made up is not passed on.
    const sent = req.headers['content-type']
    const type = isGatewayContentType(sent) ? sent : 'text/plain;charset=utf-8'
    const limits = {limit: MAX_NOTIFICATION_BYTES, timeoutMs: FORWARD_TIMEOUT_MS, headers: {[FORWARDED_BY]: this.#id}}
    const forwarded = await post(this.options.forwardTo, JSON.stringify(judged.envelope), type, limits)
    const answer =
      'error' in forwarded
        ? this.#answer(res, 502, FAILURE(`forward target unreachable: ${forwarded.error}`))
        : this.#answer(res, forwarded.status, forwarded.body, forwarded.type)
    const {type: _type, ...said} = forwarded as Posted & {type?: string}
    const acknowledged = 'status' in said && isAcknowledgement(said.status, said.body)
    this.#record(
      {at, verdict: 'verified', retry, answer, forwarded: {...said, acknowledged}, ...fields},
      req.headers,
      raw,
    )
  }

  #record(event: NotificationEvent, headers: IncomingHttpHeaders, raw: string): void {
    this.#log?.({...event, headers, body: raw})
    this.options.onEvent(event)
  }

  /** Stops accepting; cuts off idle connections and those still sending a body; lets the notifications being answered finish. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()))
    for (const req of this.#receiving) req.socket.destroy()
    this.#server.closeIdleConnections()
    if (this.#answering > 0) await new Promise<void>((resolve) => (this.#idle = resolve))
    this.#server.closeAllConnections()
    await closed
    if (this.options.log !== undefined) closeSync(this.options.log)
  }
}
