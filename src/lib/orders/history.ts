/**
 * The local history: the orders and refunds made on this machine, per appid, so that later
 * commands know an order's channel, amount and refund numbers without being told. For a
 * single refund it is also the journal: the intent is written whole and synced before the
 * refund is sent, its outcome after, and a refund whose outcome is not known is settled
 * before any new refund of its order. An append-only JSON-lines file in the config dir
 * (0600); the last record of an order, or of a refund number, wins.
 */
import {type WriteStream, closeSync, createWriteStream, existsSync, fsyncSync, openSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {ensurePrivateDir, writeFully} from '../io/private-file.js'
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
  /** When the order was made (a later record of the order keeps it). */
  at: string
  /** The state gw last learned (NOTPAY when made), and when; missing in histories of earlier versions. */
  state?: string
  state_at?: string
}

/** `intent`: about to be sent; then what became of it (`absent`: the gateway has no such refund). */
export type RefundEntryStatus = 'intent' | 'refunded' | 'processing' | 'failed' | 'unknown' | 'absent'

export interface RefundEntry {
  type: 'refund'
  appid: string
  mch_order_no: string
  gw_order_no?: string
  channel?: string
  mch_refund_no: string
  refund_fee: number
  fee_type?: string
  /** Missing in histories of earlier versions, which recorded only refunds made. */
  status?: RefundEntryStatus
  gw_refund_no?: string
  /** Where it was made: `refund create`, or the file of a bulk run. */
  source?: string
  at: string
}

type Entry = OrderEntry | RefundEntry

/** Refunds whose outcome is not known yet: sent (or about to be), without an answer that settles them. */
export const isUnsettled = (entry: RefundEntry) => entry.status === 'intent' || entry.status === 'unknown'

/** Refunds that took (or are taking) money from the order. */
export const isMade = (entry: RefundEntry) =>
  !entry.status || entry.status === 'refunded' || entry.status === 'processing'

export class OrderHistory {
  readonly file: string
  #orders?: Map<string, OrderEntry>
  /** Per appid and order, the latest record of each refund number, in the order they were first seen. */
  #refunds?: Map<string, Map<string, RefundEntry>>
  /**
   * Kept open and buffered: a bulk run appends a line per refund without waiting on the disk
   * (the bulk journal is its record that protects money). Flushed when the process ends.
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
      const key = `${entry.appid}\u0000m:${entry.mch_order_no}`
      const earlier = this.#orders!.get(key)
      const order = earlier ? {...earlier, ...entry, at: earlier.at} : entry
      this.#orders!.set(key, order)
      if (order.gw_order_no) this.#orders!.set(`${entry.appid}\u0000g:${order.gw_order_no}`, order)
      return
    }
    const key = `${entry.appid}\u0000${entry.mch_order_no}`
    const refunds = this.#refunds!.get(key) ?? new Map<string, RefundEntry>()
    refunds.set(entry.mch_refund_no, {...refunds.get(entry.mch_refund_no), ...entry})
    this.#refunds!.set(key, refunds)
  }

  #append(entry: Entry, sync: boolean): void {
    ensurePrivateDir(join(this.file, '..'))
    const line = `${JSON.stringify(entry)}\n`
    if (sync) {
      const fd = openSync(this.file, 'a', 0o600)
      try {
        writeFully(fd, line)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
    } else {
      this.#out ??= createWriteStream(this.file, {flags: 'a', mode: 0o600})
      this.#out.write(line)
    }
    if (this.#orders) this.#remember(entry)
  }

  recordOrder(entry: Omit<OrderEntry, 'type' | 'at' | 'state_at'>): void {
    const at = new Date().toISOString()
    this.#append({type: 'order', ...entry, at, state_at: entry.state && at}, false)
  }

  /** What a query showed of an order made here, when its state changed since gw last knew it. */
  noteOrderState(appid: string, mchOrderNo: string, state: string): void {
    const known = this.findOrder(appid, {mch_order_no: mchOrderNo})
    if (!known || known.state === state) return
    const {type: _type, at: _at, state_at: _stateAt, ...order} = known
    this.recordOrder({...order, state})
  }

  /** The orders made on this machine for an appid, each as its latest record says. */
  orders(appid: string): OrderEntry[] {
    this.#load()
    return [...this.#orders!.entries()].filter(([key]) => key.startsWith(`${appid}\u0000m:`)).map(([, order]) => order)
  }

  /** Every refund made on this machine for an appid, each as its latest record says. */
  refunds(appid: string): RefundEntry[] {
    this.#load()
    return [...this.#refunds!.entries()]
      .filter(([key]) => key.startsWith(`${appid}\u0000`))
      .flatMap(([, refunds]) => [...refunds.values()])
  }

  /** `sync`: written whole and synced before this returns (an intent, before its refund is sent). */
  recordRefund(entry: Omit<RefundEntry, 'type' | 'at'>, options: {sync?: boolean} = {}): void {
    this.#append({type: 'refund', ...entry, at: new Date().toISOString()}, Boolean(options.sync))
  }

  findOrder(appid: string, ref: OrderReference): OrderEntry | undefined {
    this.#load()
    if (ref.mch_order_no) return this.#orders!.get(`${appid}\u0000m:${ref.mch_order_no}`)
    if (ref.gw_order_no) return this.#orders!.get(`${appid}\u0000g:${ref.gw_order_no}`)
    return undefined
  }

  /** The refunds of an order made on this machine, each as its latest record says, oldest first. */
  refundsOf(appid: string, mchOrderNo: string): RefundEntry[] {
    this.#load()
    return [...(this.#refunds!.get(`${appid}\u0000${mchOrderNo}`)?.values() ?? [])]
  }

  /** The latest record of a refund number, on any order. */
  findRefund(appid: string, mchRefundNo: string): RefundEntry | undefined {
    this.#load()
    for (const [key, refunds] of this.#refunds!) {
      if (key.startsWith(`${appid}\u0000`) && refunds.has(mchRefundNo)) return refunds.get(mchRefundNo)
    }
    return undefined
  }
}
