/**
 * Delivers payment notifications: POST text/plain JSON to notify_url, signed over `data`.
 * Only the exact answer {"result":"SUCCESS","msg":"OK"} ends delivery; otherwise retries
 * follow section 6 (1s 2s 2s 10s 30s 1m 10m 1h 3h 5h 8h 12h), each delay divided by the
 * time scale. Every attempt is recorded on the order; pending ones resume after a restart.
 */
import {request} from 'undici'

import {NOTIFICATION_ACK, NOTIFICATION_RETRY_DELAYS} from '../lib/gateway/protocol/index.js'
import type {Ledger, SandboxOrder} from './ledger.js'

interface NotifierOptions {
  ledger: Ledger
  timeScale: number
  /** The signed body of a notification for this order. */
  body: (order: SandboxOrder) => string
  log: (line: string) => void
}

const ATTEMPT_TIMEOUT_MS = 10_000

export class Notifier {
  readonly #timers = new Set<NodeJS.Timeout>()
  readonly #inFlight = new Set<Promise<void>>()
  #closed = false

  constructor(private readonly options: NotifierOptions) {}

  /** Resumes deliveries that were pending when the sandbox stopped. */
  resume(): void {
    for (const order of this.options.ledger.orders()) {
      if (order.notify !== 'pending' || order.paid_at === null) continue
      const last = order.notifications.at(-1)
      const delay = last ? this.#delayAfter(order.notifications.length, Date.parse(last.at)) : 0
      this.#schedule(order, delay)
    }
  }

  deliver(order: SandboxOrder): void {
    if (order.notify_url) this.#schedule(order, 0)
  }

  /** Delay before attempt number `attempts` (0 is the first delivery), from `since`. */
  #delayAfter(attempts: number, since: number): number {
    const seconds = NOTIFICATION_RETRY_DELAYS[attempts - 1] ?? 0
    return Math.max(0, since + (seconds * 1000) / this.options.timeScale - Date.now())
  }

  #schedule(order: SandboxOrder, delay: number): void {
    if (this.#closed) return
    const timer = setTimeout(() => {
      this.#timers.delete(timer)
      const attempt = this.#attempt(order).finally(() => this.#inFlight.delete(attempt))
      this.#inFlight.add(attempt)
    }, delay)
    this.#timers.add(timer)
  }

  async #attempt(order: SandboxOrder): Promise<void> {
    const number = order.notifications.length
    let status: number | null = null
    let reply = ''
    let error: string | undefined
    try {
      const response = await request(order.notify_url, {
        method: 'POST',
        headers: {'content-type': 'text/plain;charset=utf-8'},
        body: this.options.body(order),
        headersTimeout: ATTEMPT_TIMEOUT_MS,
        bodyTimeout: ATTEMPT_TIMEOUT_MS,
      })
      status = response.statusCode
      reply = (await response.body.text()).slice(0, 512)
    } catch (caught) {
      error = (caught as Error).message
    }
    const delivered = status !== null && status >= 200 && status < 300 && reply.trim() === NOTIFICATION_ACK
    order.notifications.push({
      attempt: number,
      at: new Date().toISOString(),
      url: order.notify_url,
      status,
      reply,
      ...(error ? {error} : {}),
      delivered,
    })
    const retriesLeft = number < NOTIFICATION_RETRY_DELAYS.length
    order.notify = delivered ? 'delivered' : retriesLeft ? 'pending' : 'gave_up'
    this.options.ledger.save(order)
    this.options.log(
      `notify ${order.mch_order_no} attempt ${number}: ${delivered ? 'delivered' : `not acknowledged (${error ?? `HTTP ${status}`})`}`,
    )
    if (order.notify === 'pending') this.#schedule(order, this.#delayAfter(number + 1, Date.now()))
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers.clear()
    await Promise.allSettled([...this.#inFlight])
  }
}
