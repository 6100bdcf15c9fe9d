/**
 * The local order history: the orders and refunds this machine created, per appid, so that
 * later commands know an order's channel, amount and refund numbers without being told.
 * An append-only JSON-lines file in the config dir (0600); the last record of an order wins.
 */
import {type WriteStream, createWriteStream, existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {ensurePrivateDir} from '../io/private-file.js'
import {configDir} from '../paths.js'
import type {OrderReference} from './reference.js'

interface OrderEntry {
  type: 'order'
  appid: string
  mch_order_no: string
  gw_order_no?: string
  channel: string
  total_fee: number
  fee_type: string
  at: string
}

interface RefundEntry {
  type: 'refund'
  appid: string
  mch_order_no: string
  mch_refund_no: string
  refund_fee: number
  at: string
}

type Entry = OrderEntry | RefundEntry

export class OrderHistory {
  readonly file: string
  #orders?: Map<string, OrderEntry>
  #refunds?: Map<string, RefundEntry[]>
  /**
   * Kept open and buffered: a bulk run appends a line per refund without waiting on the disk.
   * The history is a convenience (the bulk journal is the record that protects money); the
   * stream is flushed when the process ends normally.
   */
  #out?: WriteStream

  constructor(dir = configDir()) {
    this.file = join(dir, 'history.jsonl')
  }

  #load(): void {
    if (this.#orders) return
    this.#orders = new Map()
    this.#refunds = new Map()
    if (!existsSync(this.file)) return
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line) continue
      let entry: Entry
      try {
        entry = JSON.parse(line) as Entry
      } catch {
        continue
      }
      this.#remember(entry)
    }
  }

  #remember(entry: Entry): void {
    if (entry.type === 'order') {
      this.#orders!.set(`${entry.appid}\u0000m:${entry.mch_order_no}`, entry)
      if (entry.gw_order_no) this.#orders!.set(`${entry.appid}\u0000g:${entry.gw_order_no}`, entry)
    } else {
      const key = `${entry.appid}\u0000${entry.mch_order_no}`
      this.#refunds!.set(key, [...(this.#refunds!.get(key) ?? []), entry])
    }
  }

  #append(entry: Entry): void {
    if (!this.#out) {
      ensurePrivateDir(join(this.file, '..'))
      this.#out = createWriteStream(this.file, {flags: 'a', mode: 0o600})
    }
    this.#out.write(`${JSON.stringify(entry)}\n`)
    if (this.#orders) this.#remember(entry)
  }

  recordOrder(entry: Omit<OrderEntry, 'type' | 'at'>): void {
    this.#append({type: 'order', ...entry, at: new Date().toISOString()})
  }

  recordRefund(entry: Omit<RefundEntry, 'type' | 'at'>): void {
    this.#append({type: 'refund', ...entry, at: new Date().toISOString()})
  }

  findOrder(appid: string, ref: OrderReference): OrderEntry | undefined {
    this.#load()
    if (ref.mch_order_no) return this.#orders!.get(`${appid}\u0000m:${ref.mch_order_no}`)
    if (ref.gw_order_no) return this.#orders!.get(`${appid}\u0000g:${ref.gw_order_no}`)
    return undefined
  }

  refundsOf(appid: string, mchOrderNo: string): RefundEntry[] {
    this.#load()
    return this.#refunds!.get(`${appid}\u0000${mchOrderNo}`) ?? []
  }
}
