/**
 * Delivers payment notifications: POST text/plain JSON to notify_url, signed over `data`.
 * An answer that is a JSON object with result SUCCESS and msg OK ends delivery (spacing and
 * key order free, as the document says); otherwise retries
 * follow section 6 (1s 2s 2s 10s 30s 1m 10m 1h 3h 5h 8h 12h), each delay divided by the
 * time scale. Every attempt is recorded on the order; pending ones resume after a restart.
 */
import {NOTIFICATION_RETRY_DELAYS, isAcknowledgement} from '../lib/gateway/protocol/index.js'
import {post} from '../lib/io/http.js'
import type {Ledger, SandboxOrder} from './ledger.js'

/**
 * What the notification retries wait on: the machine's clock, or one a test moves (each retry then
 * comes when the test says, its schedule checked to the second, however busy the machine).
 */
export interface RetryClock {
  now(): number
  setTimeout(run: () => void, ms: number): unknown
  clearTimeout(timer: unknown): void
}

const MACHINE_CLOCK: RetryClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
}

interface NotifierOptions {
  ledger: Ledger
  timeScale: number
  clock?: RetryClock
  /** The signed body of a notification for this order. */
  body: (order: SandboxOrder) => string
  log: (line: string) => void
}

const ATTEMPT_TIMEOUT_MS = 10_000

export class Notifier {
  readonly #timers = new Set<unknown>()
  readonly #inFlight = new Set<Promise<void>>()
  readonly #clock: RetryClock
  #closed = false

  constructor(private readonly options: NotifierOptions) {
    this.#clock = options.clock ?? MACHINE_CLOCK
  }

  /** Resumes deliveries that were pending when the sandbox stopped. */
  resume(): void {
    for (const order of this.options.ledger.toNotify()) {
      if (order.paid_at === null) continue
      const last = order.notifications.at(-1)
      const delay = last ? this.#delayAfter(order.notifications.length, Date.parse(last.at)) : 0
      this.#schedule(order, delay)
    }
  }

  deliver(order: SandboxOrder): void {
    if (order.notify_url) this.#schedule(order, 0)
  }

  /** Delivers an order's notification once more, now (gw sandbox notify); if it is not acknowledged, the retries left continue. */
  redeliver(order: SandboxOrder): void {
    order.notify = 'pending'
    this.options.ledger.save(order)
    this.#schedule(order, 0)
  }

  /** Delay before attempt number `attempts` (0 is the first delivery), from `since`. */
  #delayAfter(attempts: number, since: number): number {
    const seconds = NOTIFICATION_RETRY_DELAYS[attempts - 1] ?? 0
    return Math.max(0, since + (seconds * 1000) / this.options.timeScale - this.#clock.now())
  }

  #schedule(order: SandboxOrder, delay: number): void {
    if (this.#closed) return
    const timer = this.#clock.setTimeout(() => {
      this.#timers.delete(timer)
      const attempt = this.#attempt(order).finally(() => this.#inFlight.delete(attempt))
      this.#inFlight.add(attempt)
    }, delay)
    this.#timers.add(timer)
  }

  async #attempt(order: SandboxOrder): Promise<void> {
    const number = order.notifications.length
    const limits = {limit: 512, timeoutMs: ATTEMPT_TIMEOUT_MS}
    const answer = await post(order.notify_url, this.options.body(order), 'text/plain;charset=utf-8', limits)
    const [status, reply, error] =
      'error' in answer ? [null, '', answer.error] : [answer.status, answer.body, undefined]
    const delivered = isAcknowledgement(status, reply)
    order.notifications.push({
      attempt: number,
      at: new Date(this.#clock.now()).toISOString(),
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
    if (order.notify === 'pending') this.#schedule(order, this.#delayAfter(number + 1, this.#clock.now()))
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const timer of this.#timers) this.#clock.clearTimeout(timer)
    this.#timers.clear()
    await Promise.allSettled([...this.#inFlight])
  }
}
