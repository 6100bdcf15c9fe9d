/**
 * The ledger as the rules see it: orders found by any of their numbers, brought up to date
 * (an expired QR closes, a delayed refund settles) the moment anyone looks, and the numbers
 * and times the gateway makes up.
 */
import {ORDER_NOT_FOUND, ORDER_NUMBER_FIELDS, compactTimestamp} from '../../lib/gateway/protocol/index.js'
import type {Ledger, SandboxOrder} from '../ledger.js'
import type {Merchant} from '../merchants.js'

/** What an operation answers: its data (typed by the protocol's response schemas), or a refusal. */
export type Outcome<D = Record<string, unknown>> =
  {ok: true; data: D} | {ok: false; code: string; msg: string; result?: 'FAIL' | 'NOTSURE'}

export const refuse = (code: string, msg: string): Outcome<never> => ({ok: false, code, msg})

export type Params = Record<string, string>

export class Book {
  constructor(
    readonly ledger: Ledger,
    readonly timeScale: number,
  ) {}

  /** Seconds of simulated time, in real milliseconds. */
  scaled(seconds: number): number {
    return (seconds * 1000) / this.timeScale
  }

  /** Gateway numbers: a prefix (900 orders, 910 refunds), the time, a sequence. */
  number(prefix: string): string {
    return `${prefix}${compactTimestamp()}${String(this.ledger.nextSequence()).padStart(6, '0')}`
  }

  /** An order past its QR lifetime is closed, and a delayed refund past its delay succeeds, when anyone looks. */
  settle(order: SandboxOrder): SandboxOrder {
    const now = Date.now()
    let changed = false
    const open = order.state === 'NOTPAY' || order.state === 'USERPAYING'
    if (open && order.expires_at !== null && now >= order.expires_at) {
      order.state = 'CLOSED'
      order.closed_at = order.expires_at
      changed = true
    }
    for (const refund of order.refunds) {
      if (refund.state === 'PROCESSING' && refund.settles_at !== undefined && now >= refund.settles_at) {
        refund.state = 'SUCCESS'
        order.state = 'REFUND'
        changed = true
      }
    }
    if (changed) this.ledger.save(order)
    return order
  }

  /** The order named by any of the three numbers; all numbers given must name the same order. */
  find(merchant: Merchant, p: Params): SandboxOrder | undefined {
    const {ledger} = this
    const found = [
      p.mch_order_no ? (ledger.byMchOrderNo(merchant.appid, p.mch_order_no) ?? null) : undefined,
      p.gw_order_no ? (ledger.byGwOrderNo(merchant.appid, p.gw_order_no) ?? null) : undefined,
      p.channel_order_no ? (ledger.byChannelOrderNo(merchant.appid, p.channel_order_no) ?? null) : undefined,
    ].filter((o) => o !== undefined)
    const [first] = found
    if (!first || found.some((o) => o !== first)) return undefined
    if (p.channel && p.channel !== first.channel) return undefined
    return this.settle(first)
  }

  notFound(p: Params): Outcome<never> {
    const named = ORDER_NUMBER_FIELDS.filter((k) => p[k])
      .map((k) => `${k} ${p[k]}`)
      .join(', ')
    return refuse(ORDER_NOT_FOUND, `order not found: ${named}${p.channel ? ` on channel ${p.channel}` : ''}`)
  }
}
