/**
 * The sandbox's control API under /sandbox/ (unsigned; loopback clients only): pay or decline
 * an order as the payer would, deliver an order's notification again, set faults, and read the
 * ledger, the notifications sent and the requests received; show faults; take merchants added
 * while it runs. Tests, benchmarks and `gw sandbox pay` use it (control-client).
 */
import type {IncomingMessage, ServerResponse} from 'node:http'

import {readBody, reply} from '../lib/io/http.js'
import {type Faults, faultSpec, parseFaults} from './faults.js'
import type {Ledger, SandboxOrder} from './ledger.js'
import type {Merchant} from './merchants.js'
import type {GatewayRules} from './rules/index.js'

const MAX_CONTROL_BODY = 64 * 1024

/** What GET /sandbox/health answers: how gw tells its sandbox from a gateway. */
export const HEALTH = {ok: true, service: 'gw sandbox'} as const

interface ControlContext {
  /** Delivers an order's notification again. */
  redeliver(order: SandboxOrder): void
  ledger: Ledger
  merchants: Map<string, Merchant>
  rules: GatewayRules
  requests: Record<string, number>
  /** Seconds after which the sandbox pays each new order by itself (--auto-pay); undefined when it does not. */
  autoPay: number | undefined
  faults: {get(): Faults; set(faults: Faults): void}
  /** Reads merchants.json again: a merchant added while the sandbox runs. */
  reloadMerchants(): void
}

const json = (res: ServerResponse, status: number, value: unknown) => reply(res, status, JSON.stringify(value))

/** The orders of this mch_order_no: of the appid given, else of any merchant. */
function ordersFor(context: ControlContext, mchOrderNo: string, appid?: string): SandboxOrder[] {
  const appids = appid ? [appid] : [...context.merchants.keys()]
  return appids.map((a) => context.ledger.byMchOrderNo(a, mchOrderNo)).filter((o): o is SandboxOrder => !!o)
}

export async function control(
  context: ControlContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const body = req.method === 'POST' ? await readBody(req, MAX_CONTROL_BODY) : Buffer.alloc(0)
  let input: Record<string, unknown> = {}
  if (body !== 'too_large' && body.length) {
    try {
      input = JSON.parse(body.toString('utf8')) as Record<string, unknown>
    } catch {
      return json(res, 400, {error: 'the body must be JSON'})
    }
  }
  const route = `${req.method} ${url.pathname}`
  const {ledger, rules} = context
  switch (route) {
    case 'GET /sandbox/health':
      return json(res, 200, HEALTH)
    case 'GET /sandbox/stats':
      return json(res, 200, {requests: context.requests, auto_pay: context.autoPay ?? null})
    case 'POST /sandbox/pay':
    case 'POST /sandbox/notify': {
      const mchOrderNo = String(input.mch_order_no ?? '')
      const found = ordersFor(context, mchOrderNo, input.appid ? String(input.appid) : undefined)
      if (found.length === 0) return json(res, 404, {error: `no order ${mchOrderNo} in this sandbox`})
      if (found.length > 1)
        return json(res, 409, {error: `several merchants have an order ${mchOrderNo}; give the appid`})
      const order = found[0]!
      if (route === 'POST /sandbox/pay') {
        const reason = rules.pay(order, input.fail === true)
        return reason ? json(res, 409, {error: reason, order}) : json(res, 200, {order})
      }
      if (order.paid_at === null)
        return json(res, 409, {error: `order ${mchOrderNo} is not paid: it has no notification`})
      if (!order.notify_url) return json(res, 409, {error: `order ${mchOrderNo} was created without a notify_url`})
      context.redeliver(order)
      return json(res, 202, {order})
    }
    case 'GET /sandbox/orders': {
      const appid = url.searchParams.get('appid')
      const mchOrderNo = url.searchParams.get('mch_order_no')
      const orders = ledger.orders({appid, mch_order_no: mchOrderNo})
      return json(res, 200, {orders})
    }
    case 'GET /sandbox/notifications': {
      const mchOrderNo = url.searchParams.get('mch_order_no')
      const notifications = ledger
        .orders({mch_order_no: mchOrderNo})
        .filter((o) => o.notifications.length)
        .flatMap((o) =>
          o.notifications.map((n) => ({
            appid: o.appid,
            mch_order_no: o.mch_order_no,
            gw_order_no: o.gw_order_no,
            ...n,
          })),
        )
        .sort((a, b) => a.at.localeCompare(b.at))
      return json(res, 200, {notifications})
    }
    case 'GET /sandbox/faults':
      return json(res, 200, {faults: context.faults.get(), spec: faultSpec(context.faults.get())})
    case 'POST /sandbox/faults': {
      try {
        context.faults.set(parseFaults(String(input.spec ?? '')))
      } catch (error) {
        return json(res, 400, {error: (error as Error).message})
      }
      return json(res, 200, {faults: context.faults.get(), spec: faultSpec(context.faults.get())})
    }
    case 'POST /sandbox/merchants/reload': {
      try {
        context.reloadMerchants()
      } catch (error) {
        return json(res, 409, {error: (error as Error).message})
      }
      return json(res, 200, {merchants: [...context.merchants.keys()]})
    }
    default:
      return json(res, 404, {error: `no control route ${route}`})
  }
}
