/**
 * A client of the sandbox's control API (control.ts): what `gw sandbox pay` and the tests
 * use to act as the payer, set faults and read the ledger. No signing, no keys; gw's own
 * node:http request (not fetch: Windows' Node under wine, where Windows is tested, cannot
 * connect with it).
 */
import {send} from '../lib/io/http.js'
import {HEALTH} from './control.js'
import type {SandboxOrder} from './ledger.js'

interface ControlAnswer<T> {
  status: number
  body: T
}

const CONTROL_TIMEOUT_MS = 15_000
/** Far beyond the ledger of any test or practice run, listed whole. */
const CONTROL_ANSWER_LIMIT = 256 * 1024 * 1024

export class SandboxControl {
  constructor(readonly origin: string) {}

  /** One control request; the body is sent as JSON. Network failures reject with the system's error. */
  async call<T = Record<string, unknown>>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<ControlAnswer<T>> {
    // Never redirected (a server that sends the health check elsewhere is not the sandbox), never waited on for long.
    const answer = await send(new URL(`${this.origin}${path}`), {
      method,
      headers: body === undefined ? {} : {'content-type': 'application/json'},
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: CONTROL_TIMEOUT_MS,
      connectTimeoutMs: CONTROL_TIMEOUT_MS,
      limit: CONTROL_ANSWER_LIMIT,
    })
    let parsed: unknown
    try {
      parsed = JSON.parse(answer.body.toString('utf8'))
    } catch {
      parsed = {}
    }
    return {status: answer.status, body: parsed as T}
  }

  /** Whether this origin is gw's sandbox: its health answer, and nothing else, says so. */
  async isSandbox(): Promise<boolean> {
    const answer = await this.call<{service?: unknown}>('GET', '/sandbox/health')
    return answer.status === 200 && answer.body.service === HEALTH.service
  }

  /** Pays (or, with `fail`, declines) an order as its payer would. */
  pay(
    mchOrderNo: string,
    options: {appid?: string; fail?: boolean} = {},
  ): Promise<ControlAnswer<{order?: SandboxOrder; error?: string}>> {
    return this.call('POST', '/sandbox/pay', {
      mch_order_no: mchOrderNo,
      appid: options.appid,
      fail: options.fail ?? false,
    })
  }

  /** Delivers a paid order's notification again, now. */
  notify(mchOrderNo: string, appid?: string): Promise<ControlAnswer<{order?: SandboxOrder; error?: string}>> {
    return this.call('POST', '/sandbox/notify', {mch_order_no: mchOrderNo, appid})
  }

  /** The delivery attempts of an order's notification, oldest first. */
  notifications(
    mchOrderNo: string,
  ): Promise<ControlAnswer<{notifications: SandboxOrder['notifications']; error?: string}>> {
    return this.call('GET', `/sandbox/notifications?mch_order_no=${encodeURIComponent(mchOrderNo)}`)
  }

  async orders(mchOrderNo?: string): Promise<SandboxOrder[]> {
    const query = mchOrderNo === undefined ? '' : `?mch_order_no=${encodeURIComponent(mchOrderNo)}`
    return (await this.call<{orders: SandboxOrder[]}>('GET', `/sandbox/orders${query}`)).body.orders
  }

  /** Requests received per operation since the sandbox started. */
  async requests(): Promise<Record<string, number>> {
    return (await this.call<{requests: Record<string, number>}>('GET', '/sandbox/stats')).body.requests
  }

  /** Sets the faults (`''` for none); rejects with the sandbox's reason for a bad spec. Returns the faults now set. */
  async faults(spec: string): Promise<string> {
    const answer = await this.call<{error?: string; spec?: string}>('POST', '/sandbox/faults', {spec})
    if (answer.status !== 200) throw new Error(answer.body.error ?? `HTTP ${answer.status}`)
    return answer.body.spec ?? ''
  }

  /** The seconds after which the sandbox pays each new order by itself (--auto-pay), null when it does not. */
  async autoPay(): Promise<number | null> {
    return (await this.call<{auto_pay?: number | null}>('GET', '/sandbox/stats')).body.auto_pay ?? null
  }

  /** The faults set now, as a spec ('' for none). */
  async currentFaults(): Promise<string> {
    return (await this.call<{spec?: string}>('GET', '/sandbox/faults')).body.spec ?? ''
  }

  /** Has the sandbox read merchants.json again; rejects with its reason. */
  async reloadMerchants(): Promise<void> {
    const answer = await this.call<{error?: string}>('POST', '/sandbox/merchants/reload', {})
    if (answer.status !== 200) throw new Error(answer.body.error ?? `HTTP ${answer.status}`)
  }
}
