/**
 * The local history: the orders and refunds made on this machine, per appid, so that later
 * commands know an order's channel, amount and refund numbers without being told. For a
 * single refund it is also the journal: the intent is committed with a synced write before the
 * refund is sent, its outcome after, and a refund whose outcome is not known is settled before
 * any new refund of its order; one refund of an order at a time, by a claim taken in a
 * transaction. An SQLite database in the config dir (`history.db`, 0600), indexed for what
 * commands ask: by order number (merchant's or gateway's), by refund number, by time and channel.
 *
 * A `history.jsonl` of earlier versions is imported on first use, once, and kept renamed beside
 * the database (`history.jsonl.imported`); lines it could not read are said with their numbers.
 */
import {existsSync, renameSync, statSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'

import type {SQLInputValue} from 'node:sqlite'

import {LocalDatabase, type Statement} from '../io/database.js'
import {isRunning} from '../io/lock.js'
import {GwError} from '../errors.js'
import {configDir} from '../paths.js'
import {
  type Entry,
  type OrderEntry,
  type RefundEntry,
  type RefundEntryStatus,
  entryOf,
  forEachLine,
  unreadableLines,
} from './history-import.js'
import type {OrderReference} from './reference.js'

export type {RefundEntry, RefundEntryStatus}

/** Refunds whose outcome is not known yet: sent (or about to be), without an answer that settles them. */
export const isUnsettled = (entry: RefundEntry) => entry.status === 'intent' || entry.status === 'unknown'

/** Refunds that took (or are taking) money from the order. */
export const isMade = (entry: RefundEntry) =>
  !entry.status || entry.status === 'refunded' || entry.status === 'processing' || entry.status === 'not_confirmable'

const MIGRATIONS = [
  `CREATE TABLE orders (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, gw_order_no TEXT, channel TEXT NOT NULL,
     total_fee INTEGER NOT NULL, fee_type TEXT NOT NULL,
     at TEXT NOT NULL, at_ms INTEGER NOT NULL, state TEXT, state_at TEXT,
     UNIQUE (appid, mch_order_no));
   CREATE INDEX orders_by_gateway_number ON orders (appid, gw_order_no) WHERE gw_order_no IS NOT NULL;
   CREATE INDEX orders_by_time ON orders (appid, at_ms);
   CREATE TABLE refunds (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, gw_order_no TEXT, channel TEXT,
     mch_refund_no TEXT NOT NULL, refund_fee INTEGER NOT NULL, fee_type TEXT, status TEXT,
     gw_refund_no TEXT, source TEXT, at TEXT NOT NULL, at_ms INTEGER NOT NULL,
     UNIQUE (appid, mch_order_no, mch_refund_no));
   CREATE INDEX refunds_by_number ON refunds (appid, mch_refund_no);
   CREATE INDEX refunds_by_time ON refunds (appid, at_ms);
   CREATE TABLE refund_claims (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL,
     PRIMARY KEY (appid, mch_order_no));
   CREATE TABLE imports (file TEXT NOT NULL, lines INTEGER NOT NULL, skipped TEXT NOT NULL, at TEXT NOT NULL);`,
]

/** What `gw history` shows. */
export interface HistoryReport {
  database: string
  /** Its size on disk, the write-ahead log included. */
  bytes: number
  /** The earlier history.jsonl imported into it, kept beside it under this name. */
  imported?: {file: string; lines: number; skipped_lines: number[]; at: string}
  /** Per appid: orders and refunds, and the times of the oldest and newest record. */
  appids: {appid: string; orders: number; refunds: number; oldest: string; newest: string}[]
}

/** A refund of an order under way in this process: released when it ends. */
export interface OrderClaim {
  release(): void
}

/** A row as the history's records: SQL NULLs left out. */
function recordOf<T>(type: 'order' | 'refund', row: Record<string, unknown> | undefined): T | undefined {
  if (!row) return undefined
  const record: Record<string, unknown> = {type}
  for (const [key, value] of Object.entries(row))
    if (value !== null && key !== 'at_ms' && key !== 'row_id') record[key] = value
  return record as T
}

/**
 * A bulk run's records are committed together: those of a tenth of a second, or 512, in one
 * transaction (one per refund was 4% of a 1,500-row run's CPU). Its journal is what
 * makes each refund once; the history is told after, and what waits is committed before any
 * question and when the process ends. The order states a batch's queries show wait with them
 * and are looked up together, in one read (one lookup each, on its own, was 1% of a reconcile's CPU).
 */
const GROUP_MS = 100
const GROUP_RECORDS = 512

/** How many rows a list reads at a time. */
const PAGE = 1000

/**
 * The records of a list: an appid's made in [since, upto], of one channel or all, in one state
 * or all (a refund recorded without a status, by an earlier version, is one made: refunded).
 */
const listed = (table: 'orders' | 'refunds') =>
  `appid = @appid AND at_ms >= @since AND at_ms <= @upto AND (@channel IS NULL OR channel = @channel)
     AND (@state IS NULL OR ${table === 'orders' ? 'state' : "coalesce(status, 'refunded')"} = @state)`

/**
 * A page of a list, newest first (ties in the order first recorded), after the row (@upto,
 * @last_row) read last. One upper bound, so that the index's range starts at the page: two
 * would leave one a filter, and each page would read again every row of the pages before it.
 */
const madeBetween = (db: LocalDatabase, table: 'orders' | 'refunds') =>
  db.prepare(
    `SELECT rowid AS row_id, * FROM ${table} WHERE ${listed(table)} AND NOT (at_ms = @upto AND rowid <= @last_row)
       ORDER BY at_ms DESC, rowid LIMIT ${PAGE}`,
  )

/** What a list selects. */
export interface Selection {
  since?: Date
  until?: Date
  channel?: string
  state?: string
}

class HistoryQueries {
  readonly saveOrder: Statement
  readonly saveRefund: Statement
  readonly orderByMerchantNumber: Statement
  readonly orderByGatewayNumber: Statement
  readonly orderStateOf: Statement
  readonly anyRefundOf: Statement
  readonly ordersMadeBetween: Statement
  readonly refundsOfOrder: Statement
  readonly refundByNumber: Statement
  readonly refundsMadeBetween: Statement
  readonly ordersCounted: Statement
  readonly refundsCounted: Statement
  readonly claimOf: Statement
  readonly claim: Statement
  readonly unclaim: Statement
  readonly importOf: Statement
  readonly noteImport: Statement
  readonly summaries: Statement

  constructor(db: LocalDatabase) {
    // A later record of an order keeps when it was made; of a refund, what it does not say again.
    this.saveOrder = db.prepare(
      `INSERT INTO orders (appid, mch_order_no, gw_order_no, channel, total_fee, fee_type, at, at_ms, state, state_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (appid, mch_order_no) DO UPDATE SET
         gw_order_no = coalesce(excluded.gw_order_no, gw_order_no), channel = excluded.channel,
         total_fee = excluded.total_fee, fee_type = excluded.fee_type,
         state = coalesce(excluded.state, state), state_at = coalesce(excluded.state_at, state_at)`,
    )
    this.saveRefund = db.prepare(
      `INSERT INTO refunds (appid, mch_order_no, gw_order_no, channel, mch_refund_no, refund_fee, fee_type, status,
                            gw_refund_no, source, at, at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (appid, mch_order_no, mch_refund_no) DO UPDATE SET
         gw_order_no = coalesce(excluded.gw_order_no, gw_order_no), channel = coalesce(excluded.channel, channel),
         refund_fee = excluded.refund_fee, fee_type = coalesce(excluded.fee_type, fee_type),
         status = coalesce(excluded.status, status), gw_refund_no = coalesce(excluded.gw_refund_no, gw_refund_no),
         source = coalesce(excluded.source, source), at = excluded.at, at_ms = excluded.at_ms`,
    )
    this.orderByMerchantNumber = db.prepare('SELECT * FROM orders WHERE appid = ? AND mch_order_no = ?')
    this.orderByGatewayNumber = db.prepare(
      'SELECT * FROM orders WHERE appid = ? AND gw_order_no = ? ORDER BY rowid DESC LIMIT 1',
    )
    this.orderStateOf = db.prepare('SELECT state, state_at FROM orders WHERE appid = ? AND mch_order_no = ?')
    this.anyRefundOf = db.prepare('SELECT 1 AS found FROM refunds WHERE appid = ? AND mch_order_no = ? LIMIT 1')
    this.ordersMadeBetween = madeBetween(db, 'orders')
    this.refundsOfOrder = db.prepare('SELECT * FROM refunds WHERE appid = ? AND mch_order_no = ? ORDER BY rowid')
    this.refundByNumber = db.prepare(
      'SELECT * FROM refunds WHERE appid = ? AND mch_refund_no = ? ORDER BY at_ms DESC, rowid DESC LIMIT 1',
    )
    this.refundsMadeBetween = madeBetween(db, 'refunds')
    this.ordersCounted = db.prepare(`SELECT count(*) AS n FROM orders WHERE ${listed('orders')}`)
    this.refundsCounted = db.prepare(`SELECT count(*) AS n FROM refunds WHERE ${listed('refunds')}`)
    this.claimOf = db.prepare('SELECT pid, host, since FROM refund_claims WHERE appid = ? AND mch_order_no = ?')
    this.claim = db.prepare(
      'INSERT OR REPLACE INTO refund_claims (appid, mch_order_no, pid, host, since) VALUES (?, ?, ?, ?, ?)',
    )
    this.unclaim = db.prepare(
      'DELETE FROM refund_claims WHERE appid = ? AND mch_order_no = ? AND pid = ? AND host = ? AND since = ?',
    )
    this.importOf = db.prepare('SELECT * FROM imports WHERE file = ?')
    this.noteImport = db.prepare('INSERT INTO imports (file, lines, skipped, at) VALUES (?, ?, ?, ?)')
    this.summaries = db.prepare(
      `SELECT appid, sum(orders) AS orders, sum(refunds) AS refunds, min(oldest) AS oldest, max(newest) AS newest FROM (
         SELECT appid, count(*) AS orders, 0 AS refunds, min(at_ms) AS oldest, max(at_ms) AS newest FROM orders GROUP BY appid
         UNION ALL
         SELECT appid, 0, count(*), min(at_ms), max(at_ms) FROM refunds GROUP BY appid)
       GROUP BY appid ORDER BY appid`,
    )
  }
}

/** A record's columns, in the order of the INSERTs above: what it does not say is NULL. */
function columnsOf(entry: Entry): SQLInputValue[] {
  const atMs = Date.parse(entry.at)
  const {appid, mch_order_no, gw_order_no = null, channel = null, at} = entry
  if (entry.type === 'order') {
    const {total_fee, fee_type, state = null, state_at = null} = entry
    return [appid, mch_order_no, gw_order_no, channel, total_fee, fee_type, at, atMs, state, state_at]
  }
  const {mch_refund_no, refund_fee, fee_type = null, status = null, gw_refund_no = null, source = null} = entry
  return [
    appid,
    mch_order_no,
    gw_order_no,
    channel,
    mch_refund_no,
    refund_fee,
    fee_type,
    status,
    gw_refund_no,
    source,
    at,
    atMs,
  ]
}

/** A list's parameters, from its first row. */
const paramsOf = (appid: string, selection: Selection) => ({
  appid,
  since: selection.since?.getTime() ?? Number.MIN_SAFE_INTEGER,
  // Times are whole milliseconds: before `until` is at most until - 1.
  upto: selection.until ? selection.until.getTime() - 1 : Number.MAX_SAFE_INTEGER,
  channel: selection.channel ?? null,
  state: selection.state ?? null,
  last_row: 0,
})

interface HistoryPorts {
  /** Told, once, of lines of an imported file that are not a record. */
  warn?: (message: string) => void
  /** Told how far an import of an earlier history has read (bytes of its size). */
  importing?: (bytesRead: number, size: number) => void
}

export class OrderHistory {
  /** The database. */
  readonly file: string
  /** The history of earlier versions, imported once. */
  readonly jsonl: string
  readonly #ports: HistoryPorts
  #db?: LocalDatabase
  #queries?: HistoryQueries
  /** Records written without waiting on the disk (a bulk run's), committed together. */
  #pending: Entry[] = []
  /** Order states queries showed, by appid and order number, looked up with the records waiting. */
  #seen = new Map<string, {appid: string; mchOrderNo: string; state: string; at: string}>()
  #flushTimer?: NodeJS.Timeout

  constructor(dir = configDir(), ports: HistoryPorts = {}) {
    this.file = join(dir, 'history.db')
    this.jsonl = join(dir, 'history.jsonl')
    this.#ports = ports
  }

  /** The database, opened at the first question (commands that never ask never load SQLite). */
  #open(): HistoryQueries {
    if (!this.#queries) {
      this.#db = new LocalDatabase(this.file, MIGRATIONS)
      this.#queries = new HistoryQueries(this.#db)
      this.#importEarlier()
      process.once('exit', () => {
        try {
          this.#flush()
        } catch (error) {
          this.#ports.warn?.(`${this.file}: the last records could not be written (${(error as Error).message}).`)
        }
      })
    }
    return this.#queries
  }

  /** The queries, after the records waiting are committed: every answer includes them. */
  get #q(): HistoryQueries {
    if (this.#pending.length) this.#commit()
    return this.#open()
  }

  /** The queries, for a question about orders: the states queries showed are recorded first. */
  get #orderQ(): HistoryQueries {
    this.#flush()
    return this.#open()
  }

  #importEarlier(): void {
    if (!existsSync(this.jsonl)) return
    const db = this.#db!
    const q = this.#queries!
    const kept = `${this.jsonl}.imported`
    db.write(() => {
      // Another gw may have imported it while this one waited.
      if (q.importOf.get(this.jsonl) || !existsSync(this.jsonl)) return
      const skipped: number[] = []
      let lines = 0
      forEachLine(
        this.jsonl,
        (line, number) => {
          lines = number
          if (!line) return
          const entry = entryOf(line)
          if (entry) this.#save(entry)
          else skipped.push(number)
        },
        this.#ports.importing,
      )
      q.noteImport.run(this.jsonl, lines, skipped.join(','), new Date().toISOString())
      if (skipped.length) this.#ports.warn?.(unreadableLines(this.jsonl, skipped))
    })
    // Kept, renamed, beside the database; imported once even if a crash came before this rename.
    if (existsSync(this.jsonl)) renameSync(this.jsonl, existsSync(kept) ? `${kept}.${Date.now()}` : kept)
  }

  #save(entry: Entry): void {
    const q = this.#queries!
    ;(entry.type === 'order' ? q.saveOrder : q.saveRefund).run(...columnsOf(entry))
  }

  #append(entry: Entry, durable: boolean): void {
    if (durable) {
      this.#flush()
      this.#open()
      this.#db!.write(() => this.#save(entry), {durable: true})
      return
    }
    this.#pending.push(entry)
    this.#waiting()
  }

  /** Something waits to be committed: with what a tenth of a second brings, or now when it is 512. */
  #waiting(): void {
    // Opened now: what waits is committed when the process ends, which is heard from then on.
    this.#open()
    if (this.#pending.length + this.#seen.size >= GROUP_RECORDS) this.#flush()
    else
      this.#flushTimer ??= setTimeout(() => {
        try {
          this.#flush()
        } catch (error) {
          // Kept waiting: tried again at the next question or write, and when the process ends.
          this.#ports.warn?.(`${this.file}: records not written yet (${(error as Error).message}).`)
        }
      }, GROUP_MS).unref()
  }

  /** Commits the records waiting, in one transaction; then what the states seen change, in another. */
  #flush(): void {
    clearTimeout(this.#flushTimer)
    this.#flushTimer = undefined
    if (this.#pending.length) this.#commit()
    if (!this.#seen.size) return
    // Most orders a batch queries were not made here, or are as gw knew them: asked without reading the record.
    const q = this.#queries!
    const changed = this.#db!.read(() =>
      [...this.#seen.values()].flatMap(({appid, mchOrderNo, state, at}): Entry[] => {
        const was = q.orderStateOf.get(appid, mchOrderNo) as {state: string | null; state_at: string | null} | undefined
        // Not made here, as gw knew it, or learned later than this query answered (by another gw).
        if (!was || was.state === state || Date.parse(was.state_at ?? '') > Date.parse(at)) return []
        const row = q.orderByMerchantNumber.get(appid, mchOrderNo) as Record<string, unknown>
        const {type: _type, at: _at, state_at: _stateAt, ...order} = recordOf<OrderEntry>('order', row)!
        return [{type: 'order', ...order, state, at, state_at: at}]
      }),
    )
    this.#seen.clear()
    if (!changed.length) return
    this.#pending.push(...changed)
    this.#commit()
  }

  #commit(): void {
    this.#open()
    const pending = this.#pending
    this.#pending = []
    try {
      this.#db!.write(() => {
        for (const entry of pending) this.#save(entry)
      })
    } catch (error) {
      this.#pending = [...pending, ...this.#pending]
      throw error
    }
  }

  recordOrder(entry: Omit<OrderEntry, 'type' | 'at' | 'state_at'>): void {
    const at = new Date().toISOString()
    this.#append({type: 'order', ...entry, at, state_at: entry.state && at}, false)
  }

  /**
   * What a query showed of an order: recorded, when it was made here and its state changed since
   * gw last knew it, with the records waiting (and before any question about orders).
   */
  noteOrderState(appid: string, mchOrderNo: string, state: string): void {
    this.#seen.set(`${appid}\n${mchOrderNo}`, {appid, mchOrderNo, state, at: new Date().toISOString()})
    this.#waiting()
  }

  /** The orders made on this machine for an appid, newest first, as their latest record says, read a page at a time. */
  *orders(appid: string, selection: Selection = {}): IterableIterator<OrderEntry> {
    for (const row of this.#pages('ordersMadeBetween', appid, selection)) yield recordOf<OrderEntry>('order', row)!
  }

  /** The refunds made on this machine for an appid, newest first (by their latest record), read a page at a time. */
  *refunds(appid: string, selection: Selection = {}): IterableIterator<RefundEntry> {
    for (const row of this.#pages('refundsMadeBetween', appid, selection)) yield recordOf<RefundEntry>('refund', row)!
  }

  /** How many orders or refunds a list selects, counted by the index without reading them. */
  count(what: 'orders' | 'refunds', appid: string, selection: Selection = {}): number {
    const query = what === 'orders' ? this.#orderQ.ordersCounted : this.#q.refundsCounted
    const {last_row: _lastRow, ...params} = paramsOf(appid, selection)
    return (query.get(params) as {n: number}).n
  }

  /**
   * The rows of a list, a page at a time: no query stays open between pages, so whoever reads
   * them may write to the history meanwhile (--refresh notes each order's new state), and a
   * year of history is never in memory at once.
   */
  *#pages(
    query: 'ordersMadeBetween' | 'refundsMadeBetween',
    appid: string,
    selection: Selection,
  ): Generator<Record<string, unknown>> {
    const params = paramsOf(appid, selection)
    for (;;) {
      const rows = (query === 'ordersMadeBetween' ? this.#orderQ : this.#q)[query].all(params) as Record<
        string,
        unknown
      >[]
      yield* rows
      if (rows.length < PAGE) return
      const last = rows.at(-1)!
      params.upto = last.at_ms as number
      params.last_row = last.row_id as number
    }
  }

  /**
   * `sync`: committed with a synced write before this returns (an intent, before its refund is
   * sent). `at`: when it was made, when that was earlier than now (a journal's intent).
   */
  recordRefund(entry: Omit<RefundEntry, 'type' | 'at'> & {at?: string}, options: {sync?: boolean} = {}): void {
    this.#append({type: 'refund', ...entry, at: entry.at ?? new Date().toISOString()}, Boolean(options.sync))
  }

  findOrder(appid: string, ref: OrderReference): OrderEntry | undefined {
    const q = this.#orderQ
    const row = ref.mch_order_no
      ? q.orderByMerchantNumber.get(appid, ref.mch_order_no)
      : ref.gw_order_no
        ? q.orderByGatewayNumber.get(appid, ref.gw_order_no)
        : undefined
    return recordOf<OrderEntry>('order', row as Record<string, unknown> | undefined)
  }

  /** The refunds of an order made on this machine, each as its latest record says, oldest first. */
  refundsOf(appid: string, mchOrderNo: string): RefundEntry[] {
    const rows = this.#q.refundsOfOrder.all(appid, mchOrderNo) as Record<string, unknown>[]
    return rows.map((row) => recordOf<RefundEntry>('refund', row)!)
  }

  /** Whether this machine's history holds any refund of an order. */
  hasRefunds(appid: string, mchOrderNo: string): boolean {
    return this.#q.anyRefundOf.get(appid, mchOrderNo) !== undefined
  }

  /** The latest record of a refund number, on any order. */
  findRefund(appid: string, mchRefundNo: string): RefundEntry | undefined {
    return recordOf<RefundEntry>('refund', this.#q.refundByNumber.get(appid, mchRefundNo) as Record<string, unknown>)
  }

  /**
   * One refund of an order at a time, across processes: a claim row taken in a transaction. A
   * claim of a process of this host that no longer runs (killed) is taken over; a live one is
   * refused (exit 2) naming its process.
   */
  claimOrder(appid: string, mchOrderNo: string): OrderClaim {
    const q = this.#q
    const mine = {pid: process.pid, host: hostname(), since: new Date().toISOString()}
    this.#db!.write(() => {
      const held = q.claimOf.get(appid, mchOrderNo) as typeof mine | undefined
      if (held && (held.host !== mine.host || isRunning(held.pid))) {
        throw new GwError(
          'usage',
          `Order ${mchOrderNo} is being refunded by process ${held.pid} on ${held.host} (since ${held.since}). Nothing was sent.`,
          {
            advice: 'Wait for that run to end, then run this again: gw will see what it refunded.',
            details: {database: this.file, holder: held},
          },
        )
      }
      q.claim.run(appid, mchOrderNo, mine.pid, mine.host, mine.since)
    })
    return {
      release: () => {
        this.#db!.write(() => q.unclaim.run(appid, mchOrderNo, mine.pid, mine.host, mine.since))
      },
    }
  }

  /** `gw history`: where the database is, its size, the earlier history imported, and per appid what it holds. */
  describe(): HistoryReport {
    const q = this.#q
    const rows = q.summaries.all() as {appid: string; orders: number; refunds: number; oldest: number; newest: number}[]
    const imported = q.importOf.get(this.jsonl) as
      {file: string; lines: number; skipped: string; at: string} | undefined
    const wal = existsSync(`${this.file}-wal`) ? statSync(`${this.file}-wal`).size : 0
    return {
      database: this.file,
      bytes: statSync(this.file).size + wal,
      imported: imported && {
        file: `${imported.file}.imported`,
        lines: imported.lines,
        skipped_lines: imported.skipped ? imported.skipped.split(',').map(Number) : [],
        at: imported.at,
      },
      appids: rows.map((row) => ({
        ...row,
        oldest: new Date(row.oldest).toISOString(),
        newest: new Date(row.newest).toISOString(),
      })),
    }
  }
}
