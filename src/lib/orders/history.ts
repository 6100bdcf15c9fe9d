/**
 * The local history: the orders and refunds made on this machine, per appid, so that later
 * commands know an order's channel, amount and refund numbers without being told. For a
 * single refund it is also the journal: the intent is written whole and synced before the
 * refund is sent, its outcome after, and a refund whose outcome is not known is settled
 * before any new refund of its order. An append-only JSON-lines file in the config dir
 * (0600); the last record of an order, or of a refund number, wins.
 *
 * A line cut short (a process killed mid-write, a full disk) never swallows the next record:
 * a record is written on a line of its own, starting one when the file does not end with a
 * newline. Lines that are not a record (cut short, edited by hand) are skipped and said.
 */
import {
  type WriteStream,
  closeSync,
  createWriteStream,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
} from 'node:fs'
import {join} from 'node:path'

import * as z from 'zod/mini'

import {ensurePrivateDir, writeFully} from '../io/private-file.js'
import {configDir} from '../paths.js'
import type {OrderReference} from './reference.js'

const text = z.string()
const amount = z.int().check(z.nonnegative())
const time = z.iso.datetime({offset: true})

const orderEntry = z.object({
  type: z.literal('order'),
  appid: text,
  mch_order_no: text,
  gw_order_no: z.optional(text),
  channel: text,
  total_fee: amount,
  fee_type: text,
  /** When the order was made (a later record of the order keeps it). */
  at: time,
  /** The state gw last learned (NOTPAY when made), and when; missing in histories of earlier versions. */
  state: z.optional(text),
  state_at: z.optional(time),
})
type OrderEntry = z.infer<typeof orderEntry>

/**
 * `intent`: about to be sent; then what became of it (`absent`: the gateway has no such refund;
 * `not_confirmable`: the gateway holds the number, and has no refund query to show its amount and state).
 */
const refundStatus = z.enum(['intent', 'refunded', 'processing', 'failed', 'unknown', 'absent', 'not_confirmable'])
export type RefundEntryStatus = z.infer<typeof refundStatus>

const refundEntry = z.object({
  type: z.literal('refund'),
  appid: text,
  mch_order_no: text,
  gw_order_no: z.optional(text),
  channel: z.optional(text),
  mch_refund_no: text,
  refund_fee: amount,
  fee_type: z.optional(text),
  /** Missing in histories of earlier versions, which recorded only refunds made. */
  status: z.optional(refundStatus),
  gw_refund_no: z.optional(text),
  /** Where it was made: `refund create`, or the file of a bulk run. */
  source: z.optional(text),
  at: time,
})
export type RefundEntry = z.infer<typeof refundEntry>

const entry = z.discriminatedUnion('type', [orderEntry, refundEntry])
type Entry = z.infer<typeof entry>

/** Refunds whose outcome is not known yet: sent (or about to be), without an answer that settles them. */
export const isUnsettled = (entry: RefundEntry) => entry.status === 'intent' || entry.status === 'unknown'

/** Refunds that took (or are taking) money from the order. */
export const isMade = (entry: RefundEntry) =>
  !entry.status || entry.status === 'refunded' || entry.status === 'processing' || entry.status === 'not_confirmable'

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
  readonly #warn: (message: string) => void

  /** `warn` is told, once, of lines that are not a record. */
  constructor(dir = configDir(), warn: (message: string) => void = () => {}) {
    this.file = join(dir, 'history.jsonl')
    this.#warn = warn
  }

  /** Reads the file again at the next question: another process may have written it (under a lock just taken). */
  reload(): void {
    this.#orders = undefined
    this.#refunds = undefined
  }

  #load(): void {
    if (this.#orders) return
    this.#orders = new Map()
    this.#refunds = new Map()
    if (!existsSync(this.file)) return
    const unreadable: number[] = []
    readFileSync(this.file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (!line) return
        const parsed = entry.safeParse(parseJson(line))
        if (parsed.success) this.#remember(parsed.data)
        else unreadable.push(index + 1)
      })
    if (unreadable.length) {
      const lines = unreadable.length > 5 ? `${unreadable.slice(0, 5).join(', ')}, …` : unreadable.join(', ')
      this.#warn(
        `${this.file}: ${unreadable.length === 1 ? 'line' : 'lines'} ${lines} ${unreadable.length === 1 ? 'is' : 'are'} ` +
          'not a record of an order or refund (cut short, or edited) and were skipped; what they held is not known to gw.',
      )
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
    const line = `${JSON.stringify(entry)}\n`
    if (sync) {
      const fd = this.#openOnNewLine()
      try {
        writeFully(fd, line)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
    } else {
      if (!this.#out) {
        closeSync(this.#openOnNewLine())
        this.#out = createWriteStream(this.file, {flags: 'a', mode: 0o600})
      }
      this.#out.write(line)
    }
    if (this.#orders) this.#remember(entry)
  }

  /** The file open for appending, ending with a newline (one is written after a line cut short). */
  #openOnNewLine(): number {
    ensurePrivateDir(join(this.file, '..'))
    const fd = openSync(this.file, 'a+', 0o600)
    try {
      const {size} = fstatSync(fd)
      const last = Buffer.alloc(1)
      if (size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a) writeFully(fd, '\n')
      return fd
    } catch (error) {
      closeSync(fd)
      throw error
    }
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

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}
