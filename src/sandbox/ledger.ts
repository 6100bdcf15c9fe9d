/**
 * The sandbox's ledger: every order with its refunds and notification attempts. It survives
 * a restart: each change is appended to `ledger.log` as the whole order (last line wins), and
 * on open the log is folded into `ledger.json`, written atomically.
 */
import {appendFileSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {writePrivateFile} from '../lib/io/private-file.js'

export type SandboxOrderState = 'NOTPAY' | 'USERPAYING' | 'SUCCESS' | 'PAYERROR' | 'CLOSED' | 'REFUND'
export type SandboxRefundState = 'SUCCESS' | 'PROCESSING' | 'FAIL'

export interface SandboxRefund {
  mch_refund_no: string
  gw_refund_no: string
  channel_refund_no: string
  refund_fee: number
  state: SandboxRefundState
  created_at: number
  /** When a PROCESSING refund settles as SUCCESS. */
  settles_at?: number
  attach: string
  device_id: string
  operator_id: string
}

export interface NotificationAttempt {
  attempt: number
  at: string
  url: string
  status: number | null
  reply: string
  error?: string
  delivered: boolean
}

export interface SandboxOrder {
  appid: string
  mch_order_no: string
  gw_order_no: string
  channel_order_no: string
  channel: string
  total_fee: number
  fee_type: string
  state: SandboxOrderState
  created_at: number
  expires_at: number | null
  paid_at: number | null
  closed_at: number | null
  notify_url: string
  attach: string
  product: string
  device_id: string
  operator_id: string
  img_type: string
  openid: string
  refunds: SandboxRefund[]
  notify: 'none' | 'pending' | 'delivered' | 'gave_up'
  notifications: NotificationAttempt[]
}

const key = (appid: string, number: string) => `${appid}\u0000${number}`

export class Ledger {
  readonly #snapshotFile: string
  readonly #logFile: string
  readonly #byMchOrderNo = new Map<string, SandboxOrder>()
  readonly #byGwOrderNo = new Map<string, SandboxOrder>()
  readonly #byChannelOrderNo = new Map<string, SandboxOrder>()
  readonly #refundNumbers = new Set<string>()
  #sequence = 0

  constructor(dataDir: string) {
    this.#snapshotFile = join(dataDir, 'ledger.json')
    this.#logFile = join(dataDir, 'ledger.log')
    if (existsSync(this.#snapshotFile)) {
      for (const order of JSON.parse(readFileSync(this.#snapshotFile, 'utf8')).orders as SandboxOrder[])
        this.#index(order)
    }
    if (existsSync(this.#logFile)) {
      for (const line of readFileSync(this.#logFile, 'utf8').split('\n')) {
        // A line cut short by a crash is the only partial write possible: skip it.
        if (!line.trim()) continue
        try {
          this.#index(JSON.parse(line) as SandboxOrder)
        } catch {
          continue
        }
      }
    }
    writePrivateFile(this.#snapshotFile, JSON.stringify({orders: this.orders()}))
    writeFileSync(this.#logFile, '', {mode: 0o600})
    this.#sequence =
      this.#byMchOrderNo.size + [...this.#byMchOrderNo.values()].reduce((n, o) => n + o.refunds.length, 0)
  }

  #index(order: SandboxOrder): void {
    this.#byMchOrderNo.set(key(order.appid, order.mch_order_no), order)
    this.#byGwOrderNo.set(order.gw_order_no, order)
    if (order.channel_order_no) this.#byChannelOrderNo.set(key(order.appid, order.channel_order_no), order)
    for (const refund of order.refunds) this.#refundNumbers.add(key(order.appid, refund.mch_refund_no))
  }

  /** Records a new or changed order durably (the log is appended before the caller answers). */
  save(order: SandboxOrder): void {
    appendFileSync(this.#logFile, `${JSON.stringify(order)}\n`)
    this.#index(order)
  }

  nextSequence(): number {
    this.#sequence += 1
    return this.#sequence
  }

  orders(): SandboxOrder[] {
    return [...this.#byMchOrderNo.values()]
  }

  byMchOrderNo(appid: string, mchOrderNo: string): SandboxOrder | undefined {
    return this.#byMchOrderNo.get(key(appid, mchOrderNo))
  }

  byGwOrderNo(appid: string, gwOrderNo: string): SandboxOrder | undefined {
    const order = this.#byGwOrderNo.get(gwOrderNo)
    return order?.appid === appid ? order : undefined
  }

  byChannelOrderNo(appid: string, channelOrderNo: string): SandboxOrder | undefined {
    return this.#byChannelOrderNo.get(key(appid, channelOrderNo))
  }

  /** The order the public payer page names by its gateway number. */
  byGatewayNumber(gwOrderNo: string): SandboxOrder | undefined {
    return this.#byGwOrderNo.get(gwOrderNo)
  }

  refundNumberUsed(appid: string, mchRefundNo: string): boolean {
    return this.#refundNumbers.has(key(appid, mchRefundNo))
  }
}
