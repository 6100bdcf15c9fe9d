/**
 * A temporary webhook receiver for the gateway's payment notifications. Each POST is read
 * (at most 64 KiB), parsed, verified over `data` with the gateway key, and answered: exactly
 * {"result":"SUCCESS","msg":"OK"} when it verifies, a failure otherwise, so the gateway
 * retries. With a forward target, verified notifications go on to the merchant's own
 * endpoint and its answer is relayed, so the gateway's retries exercise the merchant's code.
 */
import {appendFileSync} from 'node:fs'
import {createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

import {request} from 'undici'

import {readBody} from '../io/http.js'
import {NOTIFICATION_ACK, notificationDataSchema} from '../gateway/protocol/index.js'
import {type SignScheme, parsePublicKey, verify} from '../gateway/signing.js'

const MAX_NOTIFICATION_BYTES = 64 * 1024

export interface NotificationEvent {
  at: string
  verdict: 'verified' | 'REJECTED'
  reason?: string
  mch_order_no?: string
  gw_order_no?: string
  total_fee?: number
  fee_type?: string
  channel?: string
  /** 0 for the first delivery of an order's notification, n for its n-th repeat. */
  retry: number
  answer: {status: number; body: string}
  forwarded?: {url: string; status?: number; body?: string; error?: string}
}

interface ListenerOptions {
  host: string
  port: number
  gatewayPublicKeyPem: string
  signScheme: SignScheme
  forwardTo?: string
  logFile?: string
  onEvent: (event: NotificationEvent) => void
}

const FAILURE = (msg: string) => JSON.stringify({result: 'FAIL', msg})
const FORWARD_TIMEOUT_MS = 10_000

export class NotificationListener {
  readonly #server: Server
  readonly #seen = new Map<string, number>()
  readonly #gatewayKey
  #inFlight = 0
  #idle?: () => void

  constructor(private readonly options: ListenerOptions) {
    this.#gatewayKey = parsePublicKey(options.gatewayPublicKeyPem)
    this.#server = createServer((req, res) => {
      this.#inFlight++
      this.#handle(req, res)
        .catch((error: Error) => this.#answer(res, 500, FAILURE(`listener error: ${error.message}`)))
        .finally(() => {
          this.#inFlight--
          if (this.#inFlight === 0) this.#idle?.()
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
    if (!res.headersSent) res.writeHead(status, {'content-type': type, 'content-length': Buffer.byteLength(body)})
    res.end(body)
    return {status, body}
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = new Date().toISOString()
    if (req.method !== 'POST') {
      req.resume()
      this.#answer(res, 405, FAILURE('notifications are POSTed'))
      return
    }
    const body = await readBody(req, MAX_NOTIFICATION_BYTES)
    const reject = (status: number, reason: string, raw: string, fields: Partial<NotificationEvent> = {}) => {
      const answer = this.#answer(res, status, FAILURE(reason))
      this.#record({at, verdict: 'REJECTED', reason, retry: 0, answer, ...fields}, req.headers, raw)
    }
    if (body === 'too_large') return reject(413, `body larger than ${MAX_NOTIFICATION_BYTES} bytes`, '')
    const raw = body.toString('utf8')
    let parsed: unknown
    try {
      parsed = JSON.parse(raw)
    } catch {
      return reject(400, 'body is not JSON', raw)
    }
    const envelope = parsed as {data?: unknown; sign?: unknown}
    if (
      !envelope ||
      typeof envelope !== 'object' ||
      !envelope.data ||
      typeof envelope.data !== 'object' ||
      typeof envelope.sign !== 'string'
    ) {
      return reject(400, 'not a notification: no data object or no sign', raw)
    }
    const data = notificationDataSchema.safeParse(envelope.data)
    const fields: Partial<NotificationEvent> = data.success
      ? {
          mch_order_no: data.data.mch_order_no ?? data.data.order_no,
          gw_order_no: data.data.gw_order_no,
          total_fee: data.data.total_fee,
          fee_type: data.data.fee_type,
          channel: data.data.channel,
        }
      : {}
    if (!verify(envelope.data as Record<string, unknown>, envelope.sign, this.#gatewayKey, this.options.signScheme)) {
      return reject(400, 'signature does not verify with the gateway public key', raw, fields)
    }
    if (!data.success || data.data.result !== 'SUCCESS')
      return reject(400, `result is ${data.success ? data.data.result : 'missing'}, not SUCCESS`, raw, fields)
    const key = fields.gw_order_no ?? fields.mch_order_no ?? raw
    const retry = this.#seen.get(key) ?? 0
    this.#seen.set(key, retry + 1)
    if (!this.options.forwardTo) {
      const answer = this.#answer(res, 200, NOTIFICATION_ACK)
      this.#record({at, verdict: 'verified', retry, answer, ...fields}, req.headers, raw)
      return
    }
    const forwarded = await this.#forward(raw, req.headers['content-type'] ?? 'text/plain;charset=utf-8')
    const answer =
      forwarded.status === undefined
        ? this.#answer(res, 502, FAILURE(`forward target unreachable: ${forwarded.error}`))
        : this.#answer(res, forwarded.status, forwarded.body ?? '', forwarded.type)
    this.#record(
      {
        at,
        verdict: 'verified',
        retry,
        answer,
        forwarded: {url: forwarded.url, status: forwarded.status, body: forwarded.body, error: forwarded.error},
        ...fields,
      },
      req.headers,
      raw,
    )
  }

  async #forward(
    raw: string,
    contentType: string,
  ): Promise<{url: string; status?: number; body?: string; type?: string; error?: string}> {
    const url = this.options.forwardTo!
    try {
      const response = await request(url, {
        method: 'POST',
        headers: {'content-type': contentType},
        body: raw,
        headersTimeout: FORWARD_TIMEOUT_MS,
        bodyTimeout: FORWARD_TIMEOUT_MS,
      })
      const body = (await response.body.text()).slice(0, MAX_NOTIFICATION_BYTES)
      return {
        url,
        status: response.statusCode,
        body,
        type: response.headers['content-type']?.toString() ?? 'text/plain',
      }
    } catch (error) {
      return {url, error: (error as Error).message || (error as {code?: string}).code || 'failed'}
    }
  }

  #record(event: NotificationEvent, headers: IncomingHttpHeaders, raw: string): void {
    if (this.options.logFile) {
      appendFileSync(this.options.logFile, `${JSON.stringify({...event, headers, body: raw})}\n`, {mode: 0o600})
    }
    this.options.onEvent(event)
  }

  /** Stops accepting, lets the notifications being answered finish. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()))
    if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#idle = resolve))
    // Keep-alive connections of the gateway would hold the server open.
    this.#server.closeAllConnections()
    await closed
  }
}
