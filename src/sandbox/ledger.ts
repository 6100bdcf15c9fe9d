/**
 * The sandbox's ledger: every order with its refunds and notification attempts, in an SQLite
 * database in the data dir (`ledger.db`), indexed by each of an order's numbers, so a sandbox
 * holding a million orders starts at once and answers as fast as an empty one. Each change is
 * committed before the caller answers. An order handed out is the same object until the sandbox
 * stops (a notification under way and a refund of the same order change one order, never two
 * copies). A ledger of earlier versions (`ledger.json` and `ledger.log`) is imported once.
 */
import {existsSync, readFileSync, renameSync} from 'node:fs'
import {join} from 'node:path'

import {LocalDatabase, type Statement} from '../lib/io/database.js'

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

const MIGRATIONS = [
  `CREATE TABLE orders (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, gw_order_no TEXT NOT NULL UNIQUE, channel_order_no TEXT,
     notify TEXT NOT NULL, order_json TEXT NOT NULL, PRIMARY KEY (appid, mch_order_no));
   CREATE INDEX orders_by_channel_number ON orders (appid, channel_order_no) WHERE channel_order_no IS NOT NULL;
   CREATE INDEX orders_to_notify ON orders (notify) WHERE notify = 'pending';
   CREATE TABLE refund_numbers (appid TEXT NOT NULL, mch_refund_no TEXT NOT NULL, PRIMARY KEY (appid, mch_refund_no));`,
]

const key = (appid: string, number: string) => `${appid}\u0000${number}`

export class Ledger {
  readonly #db: LocalDatabase
  readonly #save: Statement
  readonly #useRefundNumber: Statement
  readonly #byMchOrderNo: Statement
  readonly #byGwOrderNo: Statement
  readonly #byChannelOrderNo: Statement
  readonly #refundNumberUsed: Statement
  readonly #ordersOf: Statement
  readonly #toNotify: Statement
  /** Every order handed out or saved since the sandbox started, by appid and merchant number. */
  readonly #live = new Map<string, SandboxOrder>()
  #sequence: number

  constructor(dataDir: string) {
    this.#db = new LocalDatabase(join(dataDir, 'ledger.db'), MIGRATIONS)
    const db = this.#db
    this.#save = db.prepare(
      `INSERT INTO orders (appid, mch_order_no, gw_order_no, channel_order_no, notify, order_json)
       VALUES (@appid, @mch_order_no, @gw_order_no, @channel_order_no, @notify, @order_json)
       ON CONFLICT (appid, mch_order_no) DO UPDATE SET channel_order_no = excluded.channel_order_no,
         notify = excluded.notify, order_json = excluded.order_json`,
    )
    this.#useRefundNumber = db.prepare('INSERT OR IGNORE INTO refund_numbers (appid, mch_refund_no) VALUES (?, ?)')
    this.#byMchOrderNo = db.prepare('SELECT order_json FROM orders WHERE appid = ? AND mch_order_no = ?')
    this.#byGwOrderNo = db.prepare('SELECT order_json FROM orders WHERE gw_order_no = ?')
    this.#byChannelOrderNo = db.prepare('SELECT order_json FROM orders WHERE appid = ? AND channel_order_no = ?')
    this.#refundNumberUsed = db.prepare('SELECT 1 FROM refund_numbers WHERE appid = ? AND mch_refund_no = ?')
    this.#ordersOf = db.prepare(
      `SELECT order_json FROM orders WHERE (@appid IS NULL OR appid = @appid)
         AND (@mch_order_no IS NULL OR mch_order_no = @mch_order_no) ORDER BY rowid`,
    )
    this.#toNotify = db.prepare("SELECT order_json FROM orders WHERE notify = 'pending' ORDER BY rowid")
    this.#importEarlier(dataDir)
    // Past every number handed out: the largest rowid is read from the end of the table (count(*)
    // would read every row, and start-up would grow with the ledger); rows are never deleted.
    const last = (table: string) =>
      db.guard(() => (db.prepare(`SELECT max(rowid) AS last FROM ${table}`).get() as {last: number | null}).last ?? 0)
    this.#sequence = last('orders') + last('refund_numbers')
  }

  /** `ledger.json` and `ledger.log` of earlier versions, folded in once (the log's last line of an order wins). */
  #importEarlier(dataDir: string): void {
    const files = ['ledger.json', 'ledger.log'].map((name) => join(dataDir, name)).filter((file) => existsSync(file))
    if (!files.length) return
    const orders: SandboxOrder[] = []
    for (const file of files) {
      const content = readFileSync(file, 'utf8')
      if (file.endsWith('.json')) orders.push(...(JSON.parse(content) as {orders: SandboxOrder[]}).orders)
      else {
        for (const line of content.split('\n')) {
          try {
            if (line.trim()) orders.push(JSON.parse(line) as SandboxOrder)
          } catch {
            // A line cut short by a crash is the only partial write possible: skip it.
          }
        }
      }
    }
    this.#db.write(() => orders.forEach((order) => this.#write(order)))
    for (const file of files) renameSync(file, `${file}.imported`)
  }

  #write(order: SandboxOrder): void {
    this.#save.run({
      appid: order.appid,
      mch_order_no: order.mch_order_no,
      gw_order_no: order.gw_order_no,
      channel_order_no: order.channel_order_no || null,
      notify: order.notify,
      order_json: JSON.stringify(order),
    })
    for (const refund of order.refunds) this.#useRefundNumber.run(order.appid, refund.mch_refund_no)
  }

  /** Records a new or changed order durably (committed before the caller answers). */
  save(order: SandboxOrder): void {
    this.#db.write(() => this.#write(order))
    this.#live.set(key(order.appid, order.mch_order_no), order)
  }

  nextSequence(): number {
    this.#sequence += 1
    return this.#sequence
  }

  /** The order a row holds: the one already handed out, if it was. */
  #order(row: {order_json: string} | undefined): SandboxOrder | undefined {
    if (!row) return undefined
    const stored = JSON.parse(row.order_json) as SandboxOrder
    const id = key(stored.appid, stored.mch_order_no)
    const live = this.#live.get(id)
    if (live) return live
    this.#live.set(id, stored)
    return stored
  }

  /** The orders of an appid (or all), or the one of a merchant number, oldest first. */
  orders(filter: {appid?: string | null; mch_order_no?: string | null} = {}): SandboxOrder[] {
    const rows = this.#db.guard(
      () =>
        this.#ordersOf.all({appid: filter.appid ?? null, mch_order_no: filter.mch_order_no ?? null}) as {
          order_json: string
        }[],
    )
    return rows.map((row) => this.#order(row)!)
  }

  /** Orders whose notification is still to be delivered. */
  toNotify(): SandboxOrder[] {
    return this.#db.guard(() => this.#toNotify.all() as {order_json: string}[]).map((row) => this.#order(row)!)
  }

  byMchOrderNo(appid: string, mchOrderNo: string): SandboxOrder | undefined {
    const live = this.#live.get(key(appid, mchOrderNo))
    if (live) return live
    return this.#order(this.#db.guard(() => this.#byMchOrderNo.get(appid, mchOrderNo)) as {order_json: string})
  }

  byGwOrderNo(appid: string, gwOrderNo: string): SandboxOrder | undefined {
    const order = this.byGatewayNumber(gwOrderNo)
    return order?.appid === appid ? order : undefined
  }

  byChannelOrderNo(appid: string, channelOrderNo: string): SandboxOrder | undefined {
    return this.#order(
      this.#db.guard(() => this.#byChannelOrderNo.get(appid, channelOrderNo)) as {order_json: string} | undefined,
    )
  }

  /** The order the public payer page names by its gateway number. */
  byGatewayNumber(gwOrderNo: string): SandboxOrder | undefined {
    return this.#order(this.#db.guard(() => this.#byGwOrderNo.get(gwOrderNo)) as {order_json: string} | undefined)
  }

  refundNumberUsed(appid: string, mchRefundNo: string): boolean {
    return this.#db.guard(() => this.#refundNumberUsed.get(appid, mchRefundNo)) !== undefined
  }
}
