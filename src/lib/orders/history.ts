/**
 * The local history: the orders and refunds made on this machine, per appid, so that later
 * commands know an order's channel, amount and refund numbers without being told. For a
 * single refund it is also the journal: the intent is committed with a synced write before the
 * refund is sent, its outcome after, and a refund whose outcome is not known is settled before
 * any new refund of its order; one refund of an order at a time, by a claim taken in a
 * transaction. An SQLite database in the config dir (`history.db`, 0600), indexed for what
 * commands ask: by order number (merchant's or gateway's), by refund number, by time and channel.
 *
 * After a refund is sent, recording it never fails the command: when the database cannot take
 * the record (held by another program, a full disk), it is appended, synced, to `history.jsonl`
 * beside it, which no other program holds, and the caller is told where it went. Every
 * `history.jsonl` found when the history opens (one of earlier versions, one written so, one
 * restored from a backup) is merged into the database and kept renamed
 * (`history.jsonl.imported`); lines it could not read are said with their numbers. A merge
 * never makes a record say less than it did: a refund's status only moves towards proven
 * (intent, unknown, processing, then failed, absent or not confirmable, then refunded), an
 * order's state only to a later one, and a refund stays credited to the run that made it.
 */
import {existsSync, lstatSync, readdirSync, renameSync, statSync} from 'node:fs'
import {hostname} from 'node:os'
import {basename, dirname, join} from 'node:path'

import type {SQLInputValue} from 'node:sqlite'

import {BUSY_WAIT_MS, LocalDatabase, LocalStateError, type Statement} from '../io/database.js'
import {isRunning} from '../io/lock.js'
import {GwError} from '../errors.js'
import {configDir} from '../paths.js'
import {plural} from '../plural.js'
import {
  type Entry,
  type EventEntry,
  type OrderEntry,
  type RefundEntry,
  type RefundEntryStatus,
  appendEntries,
  entryOf,
  forEachLine,
  unreadableLines,
} from './history-lines.js'
import type {OrderReference} from './reference.js'

export type {EventEntry, OrderEntry, RefundEntry, RefundEntryStatus}

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
  // An order's payer, and what happened to each order, for its story (gw order timeline).
  `ALTER TABLE orders ADD COLUMN openid TEXT;
   CREATE INDEX orders_by_payer ON orders (appid, openid) WHERE openid IS NOT NULL;
   CREATE TABLE events (
     appid TEXT NOT NULL, mch_order_no TEXT NOT NULL, kind TEXT NOT NULL, at TEXT NOT NULL, at_ms INTEGER NOT NULL,
     detail TEXT NOT NULL);
   CREATE INDEX events_of_order ON events (appid, mch_order_no, at_ms);`,
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
function recordOf<T>(type: Entry['type'], row: Record<string, unknown> | undefined): T | undefined {
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
     AND (@state IS NULL OR ${table === 'orders' ? 'state' : "coalesce(status, 'refunded')"} = @state)
     AND (@amounts IS NULL OR fee_type || ':' || ${table === 'orders' ? 'total_fee' : 'refund_fee'}
          IN (SELECT value FROM json_each(@amounts)))
     AND (@payer IS NULL OR ${table === 'orders' ? 'openid = @payer' : PAYER_OF_REFUND})`

/** A refund of an order of the payer's (the orders this machine made, whose payer it learned). */
const PAYER_OF_REFUND = `EXISTS (SELECT 1 FROM orders o
  WHERE o.appid = refunds.appid AND o.mch_order_no = refunds.mch_order_no AND o.openid = @payer)`

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
  /** Of these amounts only, each in minor units of its currency (an order's total, a refund's amount). */
  amounts?: {fee: number; currency: string}[]
  /** Orders of this payer (openid) only, where a query or notification showed it. */
  payer?: string
}

/**
 * How far a refund's status is proven, for merges: an intent, then unknown, then processing, then
 * an end the gateway showed (failed, absent, not confirmable), then refunded (a status missing,
 * of an earlier version, is a refund made). A record never replaces one more proven.
 */
const rank = (status: string) =>
  `CASE WHEN ${status} IS NULL OR ${status} = 'refunded' THEN 4 WHEN ${status} = 'intent' THEN 0
        WHEN ${status} = 'unknown' THEN 1 WHEN ${status} = 'processing' THEN 2 ELSE 3 END`
const AS_PROVEN = `${rank('excluded.status')} >= ${rank('status')}`
/**
 * A refund is credited (its source and time) to the run that made it: a record moves them only
 * when it proves more than the one kept and comes from a run whose own request made the refund,
 * not one that found it already made (two copies of a file run at once).
 */
const CREDITED = `@credit AND ${rank('excluded.status')} > ${rank('status')}`
/** An order's state moves only to one learned at the same time or later (a merge of an older file moves nothing). */
const LATER_STATE = `excluded.state IS NOT NULL AND (state_at IS NULL OR excluded.state_at IS NULL
  OR julianday(excluded.state_at) >= julianday(state_at))`

class HistoryQueries {
  readonly saveOrder: Statement
  readonly saveRefund: Statement
  readonly orderByMerchantNumber: Statement
  readonly orderByGatewayNumber: Statement
  readonly orderStatesOf: Statement
  readonly saveEvent: Statement
  readonly eventsOf: Statement
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
  readonly lastImport: Statement
  readonly noteImport: Statement
  readonly summaries: Statement

  constructor(db: LocalDatabase) {
    // A later record of an order keeps when it was made; of a refund, what it does not say again.
    this.saveOrder = db.prepare(
      `INSERT INTO orders (appid, mch_order_no, gw_order_no, channel, total_fee, fee_type, at, at_ms, state, state_at, openid)
       VALUES (@appid, @mch_order_no, @gw_order_no, @channel, @total_fee, @fee_type, @at, @at_ms, @state, @state_at, @openid)
       ON CONFLICT (appid, mch_order_no) DO UPDATE SET
         gw_order_no = coalesce(excluded.gw_order_no, gw_order_no), channel = excluded.channel,
         openid = coalesce(excluded.openid, openid),
         total_fee = excluded.total_fee, fee_type = excluded.fee_type,
         state = CASE WHEN ${LATER_STATE} THEN excluded.state ELSE state END,
         state_at = CASE WHEN ${LATER_STATE} THEN excluded.state_at ELSE state_at END`,
    )
    this.saveRefund = db.prepare(
      `INSERT INTO refunds (appid, mch_order_no, gw_order_no, channel, mch_refund_no, refund_fee, fee_type, status,
                            gw_refund_no, source, at, at_ms)
       VALUES (@appid, @mch_order_no, @gw_order_no, @channel, @mch_refund_no, @refund_fee, @fee_type, @status,
               @gw_refund_no, @source, @at, @at_ms)
       ON CONFLICT (appid, mch_order_no, mch_refund_no) DO UPDATE SET
         gw_order_no = coalesce(gw_order_no, excluded.gw_order_no), channel = coalesce(channel, excluded.channel),
         fee_type = coalesce(fee_type, excluded.fee_type),
         status = CASE WHEN ${AS_PROVEN} THEN coalesce(excluded.status, 'refunded') ELSE status END,
         gw_refund_no = CASE WHEN ${AS_PROVEN} THEN coalesce(excluded.gw_refund_no, gw_refund_no)
                             ELSE coalesce(gw_refund_no, excluded.gw_refund_no) END,
         source = CASE WHEN ${CREDITED} THEN coalesce(excluded.source, source) ELSE coalesce(source, excluded.source) END,
         at = CASE WHEN ${CREDITED} THEN excluded.at ELSE at END,
         at_ms = CASE WHEN ${CREDITED} THEN excluded.at_ms ELSE at_ms END`,
    )
    this.orderByMerchantNumber = db.prepare('SELECT * FROM orders WHERE appid = ? AND mch_order_no = ?')
    this.orderByGatewayNumber = db.prepare(
      'SELECT * FROM orders WHERE appid = ? AND gw_order_no = ? ORDER BY rowid DESC LIMIT 1',
    )
    this.orderStatesOf = db.prepare(
      `SELECT mch_order_no, state, state_at, openid FROM orders
         WHERE appid = ? AND mch_order_no IN (SELECT value FROM json_each(?))`,
    )
    this.saveEvent = db.prepare(
      'INSERT INTO events (appid, mch_order_no, kind, at, at_ms, detail) VALUES (@appid, @mch_order_no, @kind, @at, @at_ms, @detail)',
    )
    this.eventsOf = db.prepare('SELECT * FROM events WHERE appid = ? AND mch_order_no = ? ORDER BY at_ms, rowid')
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
    this.importOf = db.prepare('SELECT * FROM imports WHERE file = ? ORDER BY rowid DESC LIMIT 1')
    this.lastImport = db.prepare('SELECT * FROM imports ORDER BY rowid DESC LIMIT 1')
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

/** A record's columns, as the INSERTs above name them: what it does not say is NULL. `credit`: see CREDITED. */
function columnsOf(entry: Entry, credit = true): Record<string, SQLInputValue> {
  const {appid, mch_order_no, at} = entry
  const at_ms = Date.parse(at)
  if (entry.type === 'event')
    return {appid, mch_order_no, kind: entry.kind, at, at_ms, detail: JSON.stringify(entry.detail)}
  const common = {
    appid,
    mch_order_no,
    gw_order_no: entry.gw_order_no ?? null,
    channel: entry.channel ?? null,
    at,
    at_ms,
  }
  if (entry.type === 'order') {
    const {total_fee, fee_type, state = null, state_at = null, openid = null} = entry
    return {...common, total_fee, fee_type, state, state_at, openid}
  }
  const {mch_refund_no, refund_fee, fee_type = null, status = null, gw_refund_no = null, source = null} = entry
  return {...common, mch_refund_no, refund_fee, fee_type, status, gw_refund_no, source, credit: credit ? 1 : 0}
}

/** A list's parameters, from its first row. */
const paramsOf = (appid: string, selection: Selection) => ({
  appid,
  since: selection.since?.getTime() ?? Number.MIN_SAFE_INTEGER,
  // Times are whole milliseconds: before `until` is at most until - 1.
  upto: selection.until ? selection.until.getTime() - 1 : Number.MAX_SAFE_INTEGER,
  channel: selection.channel ?? null,
  state: selection.state ?? null,
  amounts: selection.amounts ? JSON.stringify(selection.amounts.map((a) => `${a.currency}:${a.fee}`)) : null,
  payer: selection.payer ?? null,
  last_row: 0,
})

interface HistoryPorts {
  /** Told of what could not be read (lines of a merged file) or written yet (records kept for later). */
  warn?: (message: string) => void
  /** Told how far the merge of a history.jsonl has read (bytes of its size). */
  importing?: (bytesRead: number, size: number) => void
}

/**
 * Where a record went: into the database; else (the database held or full) into history.jsonl,
 * which the next open merges (`later`); else nowhere this machine keeps (`lost`: the refund's
 * intent, in the history before it was sent, has the next run look it up).
 */
export type Recorded = {where: 'history'} | {where: 'later' | 'lost'; why: string; file: string}

/** What became of the records waiting when a run ended: those kept for later or lost, and why. */
interface Settled {
  later: number
  lost: number
  why?: string
  file: string
}

/** The sentence for records put in history.jsonl or lost since `said` was told; undefined when there are none. */
export function keptSentence(database: string, kept: Settled, said: Settled = {later: 0, lost: 0, file: kept.file}) {
  const later = kept.later - said.later
  const lost = kept.lost - said.lost
  if (!later && !lost) return undefined
  const parts = [
    later ? `${plural(later, 'record')} went to ${kept.file} instead, merged the next time gw opens the history` : '',
    lost ? `${plural(lost, 'record')} could not be kept anywhere (the next run looks those refunds up)` : '',
  ].filter(Boolean)
  return `${database} could not take what this run recorded (${kept.why ?? 'not written'}): ${parts.join('; ')}.`
}

/**
 * An order's state as a query or notification showed it, with what else it showed (the payer,
 * when it was paid), waiting to be recorded.
 */
interface Seen {
  appid: string
  mchOrderNo: string
  state: string
  at: string
  facts: {by: 'query' | 'notification' | 'close'; openid?: string; time_end?: string}
}

/** Records waiting for a database held by another program, past which they go to history.jsonl (memory stays bounded). */
const SPILL_RECORDS = 4096

export class OrderHistory {
  /** The database. */
  readonly file: string
  /** Records the database could not take, and histories of earlier versions: merged when the history opens. */
  readonly jsonl: string
  readonly #ports: HistoryPorts
  #db?: LocalDatabase
  #queries?: HistoryQueries
  /** Records written without waiting on the disk (a bulk run's), committed together. */
  #pending: Entry[] = []
  /** Order states queries showed, by appid and order number, looked up with the records waiting. */
  #seen = new Map<string, Seen>()
  #flushTimer?: NodeJS.Timeout
  /** Records of this process put in history.jsonl, or lost, and the last reason: said when the run ends. */
  #kept: Settled
  /** A background write has been refused: said once, not at every try. */
  #warned = false
  /** What settle() has told its callers so far: the exit says only what came after. */
  #said: Settled

  constructor(dir = configDir(), ports: HistoryPorts = {}) {
    this.file = join(dir, 'history.db')
    this.jsonl = join(dir, 'history.jsonl')
    this.#ports = ports
    this.#kept = {later: 0, lost: 0, file: this.jsonl}
    this.#said = {...this.#kept}
  }

  /** The database, opened at the first question (commands that never ask never load SQLite). */
  #open(): HistoryQueries {
    if (!this.#queries) {
      this.#db = new LocalDatabase(this.file, MIGRATIONS)
      this.#queries = new HistoryQueries(this.#db)
      this.#merge()
      // What a command did not settle itself is settled, and said, as the process ends.
      process.once('exit', () => {
        const said = this.#said
        const kept = this.settle()
        const sentence = keptSentence(this.file, kept, said)
        if (sentence) this.#ports.warn?.(sentence)
      })
    }
    return this.#queries
  }

  /**
   * The queries, after the records waiting are committed, so that answers include them. Never
   * waited for: while another program holds the database, a question is answered from what is
   * committed (readers never wait in WAL mode), and the records wait for the next commit. A
   * bulk run asking a question a row must not stop every answer in flight for seconds.
   */
  get #q(): HistoryQueries {
    if (this.#pending.length) this.#commitIfFree(() => this.#commit(0))
    return this.#open()
  }

  /** The queries, for a question about orders: the states queries showed are recorded first (see #q). */
  get #orderQ(): HistoryQueries {
    this.#commitIfFree(() => this.#flush(0))
    return this.#open()
  }

  /** Why the database refused a record, in words: its own (held, full, damaged), or whatever else it threw, named. */
  #why(error: unknown): string {
    return error instanceof LocalStateError ? error.message : `${this.file}: ${(error as Error).message}.`
  }

  #commitIfFree(commit: () => void): void {
    try {
      commit()
    } catch (error) {
      if (!(error instanceof LocalStateError) || error.problem !== 'busy') throw error
    }
  }

  /**
   * Merges a history.jsonl into the database, whoever wrote it: taken aside first (records
   * appended from then on start a new one, merged next time), read in one transaction, then kept
   * renamed. The database held: it waits for the next open. A merge left unfinished by a crash
   * (its file still taken aside) is finished first.
   */
  #merge(): void {
    if (!this.#toMerge().length && !lstatSync(this.jsonl, {throwIfNoEntry: false})) return
    const done: string[] = []
    try {
      this.#db!.write(() => {
        // Listed under the lock: another gw merging at the same time has finished, or not begun.
        const jsonl = lstatSync(this.jsonl, {throwIfNoEntry: false})
        if (jsonl && !jsonl.isFile()) {
          this.#ports.warn?.(
            `${this.jsonl} is not a file gw wrote (a link, a pipe or a folder): it is not merged. Move it aside.`,
          )
        } else if (jsonl) renameSync(this.jsonl, `${this.jsonl}.${process.pid}-${Date.now()}.merging`)
        for (const file of this.#toMerge()) {
          // Merged by another gw that has not renamed it yet: merging it twice would tell its story twice.
          if (!this.#queries!.importOf.get(file) && !this.#mergeFile(file)) continue
          done.push(file)
        }
      })
    } catch (error) {
      if (!(error instanceof LocalStateError)) throw error
      this.#ports.warn?.(`${this.jsonl} is not merged into the history yet: ${error.message} It is merged next time.`)
      return
    }
    const kept = `${this.jsonl}.imported`
    for (const file of done) {
      try {
        renameSync(file, existsSync(kept) ? `${kept}.${Date.now()}` : kept)
      } catch (error) {
        // Renamed by another gw that merged with this one.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      }
    }
  }

  /** The history.jsonl files taken aside to be merged (regular files only: a folder or a link of that name is not gw's). */
  #toMerge(): string[] {
    const dir = dirname(this.jsonl)
    return readdirSync(dir)
      .filter((name) => name.startsWith(`${basename(this.jsonl)}.`) && name.endsWith('.merging'))
      .map((name) => join(dir, name))
      .filter((file) => lstatSync(file, {throwIfNoEntry: false})?.isFile())
  }

  /** Merges one file's records; false when it is gone (another gw merged it meanwhile). */
  #mergeFile(file: string): boolean {
    const skipped: number[] = []
    let lines = 0
    try {
      forEachLine(
        file,
        (line, number) => {
          lines = number
          if (line === '') return
          const entry = line === undefined ? undefined : entryOf(line)
          if (entry) this.#save(entry)
          else skipped.push(number)
        },
        this.#ports.importing,
      )
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
      throw error
    }
    this.#queries!.noteImport.run(file, lines, skipped.join(','), new Date().toISOString())
    if (skipped.length) this.#ports.warn?.(unreadableLines(this.jsonl, skipped))
    return true
  }

  #save(entry: Entry, credit = true): void {
    const q = this.#queries!
    const statement = {order: q.saveOrder, refund: q.saveRefund, event: q.saveEvent}[entry.type]
    statement.run(columnsOf(entry, credit))
  }

  /** Something waits to be committed: with what a tenth of a second brings, or now when it is 512. */
  #waiting(): void {
    // Opened now: what waits is committed when the process ends, which is heard from then on.
    this.#open()
    if (this.#pending.length + this.#seen.size >= GROUP_RECORDS) this.#flushNow()
    else this.#flushTimer ??= setTimeout(() => this.#flushNow(), GROUP_MS).unref()
  }

  /**
   * Commits what waits without waiting for another program: a write that waited would stop
   * everything else in flight (answers would time out). Held, the records wait for the next try,
   * and beyond SPILL_RECORDS go to history.jsonl.
   */
  #flushNow(): void {
    try {
      this.#flush(0)
    } catch (error) {
      // Any refusal (held, full, a database changed under gw): this runs after refunds were sent, and never throws.
      const why = this.#why(error)
      if (!this.#warned) this.#ports.warn?.(`${why} The records of this run wait until it is free.`)
      this.#warned = true
      if (this.#pending.length >= SPILL_RECORDS) this.#keepForLater(why)
      else this.#flushTimer ??= setTimeout(() => this.#flushNow(), GROUP_MS * 10).unref()
    }
  }

  /** Commits the records waiting, in one transaction; then what the states seen change, in another. */
  #flush(waitMs = BUSY_WAIT_MS): void {
    clearTimeout(this.#flushTimer)
    this.#flushTimer = undefined
    if (this.#pending.length) this.#commit(waitMs)
    if (!this.#seen.size) return
    // Most orders a batch queries were not made here, or are as gw knew them: asked without reading the record.
    const q = this.#queries!
    const seen = [...this.#seen.values()]
    const changed = this.#db!.read(() => {
      // One question per appid for all the orders seen (one each was 512 round trips into SQLite).
      const known = new Map<string, {state: string | null; state_at: string | null; openid: string | null}>()
      for (const appid of new Set(seen.map((s) => s.appid))) {
        const numbers = JSON.stringify(seen.filter((s) => s.appid === appid).map((s) => s.mchOrderNo))
        for (const row of q.orderStatesOf.all(appid, numbers) as {
          mch_order_no: string
          state: string | null
          state_at: string | null
          openid: string | null
        }[])
          known.set(`${appid}\n${row.mch_order_no}`, row)
      }
      return seen.flatMap(({appid, mchOrderNo, state, at, facts}): Entry[] => {
        const was = known.get(`${appid}\n${mchOrderNo}`)
        if (!was) return []
        // A query of an order made here is a line of its story, whatever it showed.
        const {by, ...shown} = facts
        const queried: Entry[] =
          by === 'query'
            ? [{type: 'event', appid, mch_order_no: mchOrderNo, kind: 'queried', at, detail: {state, ...shown}}]
            : []
        const payer = shown.openid && shown.openid !== was.openid ? shown.openid : undefined
        // As gw knew it, or learned later than this answer came (by another gw): the record stays.
        if ((was.state === state || Date.parse(was.state_at ?? '') > Date.parse(at)) && !payer) return queried
        const row = q.orderByMerchantNumber.get(appid, mchOrderNo) as Record<string, unknown>
        const {type: _type, at: _at, state_at: _stateAt, ...order} = recordOf<OrderEntry>('order', row)!
        return [...queried, {type: 'order', ...order, state, at, state_at: at, ...(payer ? {openid: payer} : {})}]
      })
    })
    this.#seen.clear()
    if (!changed.length) return
    this.#pending.push(...changed)
    this.#commit(waitMs)
  }

  #commit(waitMs = BUSY_WAIT_MS): void {
    this.#open()
    const pending = this.#pending
    this.#pending = []
    try {
      this.#db!.write(
        () => {
          for (const entry of pending) this.#save(entry)
        },
        {waitMs},
      )
    } catch (error) {
      this.#pending = [...pending, ...this.#pending]
      throw error
    }
  }

  /** The records waiting, appended to history.jsonl (merged next time), or counted as lost when even that fails. */
  #keepForLater(why: string): void {
    const pending = this.#pending
    this.#pending = []
    try {
      appendEntries(this.jsonl, pending)
      this.#kept.later += pending.length
    } catch (error) {
      this.#kept.lost += pending.length
      why = `${why} ${this.jsonl} could not be written either (${(error as Error).message}).`
    }
    this.#kept.why = why
  }

  /**
   * Commits every record waiting, waiting a bounded time for another program; what the database
   * cannot take goes to history.jsonl. Says what went there or was lost (this process's, in all).
   * Never throws: it runs after refunds were sent.
   */
  settle(): Settled {
    if (this.#queries) {
      try {
        this.#flush()
      } catch (error) {
        this.#seen.clear()
        const why = this.#why(error)
        if (this.#pending.length) this.#keepForLater(why)
      }
    }
    this.#said = {...this.#kept}
    return {...this.#kept}
  }

  recordOrder(entry: Omit<OrderEntry, 'type' | 'at' | 'state_at'>): void {
    const at = new Date().toISOString()
    this.#pending.push({type: 'order', ...entry, at, state_at: entry.state && at})
    this.#waiting()
  }

  /**
   * What a query showed of an order: recorded, when it was made here and its state changed since
   * gw last knew it, with the records waiting (and before any question about orders).
   */
  noteOrderState(appid: string, mchOrderNo: string, state: string, facts: Seen['facts'] = {by: 'query'}): void {
    this.#seen.set(`${appid}\n${mchOrderNo}`, {appid, mchOrderNo, state, at: new Date().toISOString(), facts})
    this.#waiting()
  }

  /** A line of an order's story (see EventEntry), recorded with the records waiting. */
  noteEvent(appid: string, mchOrderNo: string, kind: EventEntry['kind'], detail: Record<string, unknown>): void {
    this.#pending.push({type: 'event', appid, mch_order_no: mchOrderNo, kind, at: new Date().toISOString(), detail})
    this.#waiting()
  }

  /**
   * What this machine knows of one order, named by its merchant or gateway number: its record,
   * the refunds made here, and the lines of its story (events), oldest first.
   */
  story(appid: string, ref: OrderReference): {order?: OrderEntry; refunds: RefundEntry[]; events: EventEntry[]} {
    const order = this.findOrder(appid, ref)
    const mchOrderNo = order?.mch_order_no ?? ref.mch_order_no
    if (!mchOrderNo) return {order, refunds: [], events: []}
    const rows = this.#q.eventsOf.all(appid, mchOrderNo) as Record<string, unknown>[]
    const events = rows.map((row) => {
      const {detail, ...event} = recordOf<Omit<EventEntry, 'detail'> & {detail: string}>('event', row)!
      return {...event, detail: JSON.parse(detail) as Record<string, unknown>}
    })
    return {order, refunds: this.refundsOf(appid, mchOrderNo), events}
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
   * A refund about to be sent, committed with a synced write before this returns; throws
   * (LocalStateError) when the database cannot take it: then the refund is not sent.
   */
  recordIntent(entry: Omit<RefundEntry, 'type' | 'at' | 'status'>): void {
    this.#flush()
    this.#open()
    const record: Entry = {type: 'refund', ...entry, status: 'intent', at: new Date().toISOString()}
    this.#db!.write(() => this.#save(record), {durable: true})
  }

  /**
   * What became of a refund (it was sent, or looked up). Never throws: a record the database
   * cannot take goes to history.jsonl, and the answer says where it went. `sync`: committed (or
   * appended) before this returns, else with the records waiting. `at`: when it was made, when
   * earlier than now (a journal's intent). `credit`: the run recording it made it (see CREDITED).
   */
  recordOutcome(
    entry: Omit<RefundEntry, 'type' | 'at'> & {at?: string},
    options: {sync?: boolean; credit?: boolean} = {},
  ): Recorded {
    const record: Entry = {type: 'refund', ...entry, at: entry.at ?? new Date().toISOString()}
    if (!options.sync) {
      this.#pending.push(record)
      try {
        this.#waiting()
      } catch {
        // Kept waiting: committed, or put in history.jsonl, when the run settles (see #flushNow).
      }
      return {where: 'history'}
    }
    try {
      this.#open()
      this.#db!.write(() => this.#save(record, options.credit ?? true), {durable: true})
      return {where: 'history'}
    } catch (error) {
      // Whatever the database's trouble (held, full, not gw's any more): the record is kept beside it.
      const why = this.#why(error)
      try {
        appendEntries(this.jsonl, [record])
        return {where: 'later', why, file: this.jsonl}
      } catch (failed) {
        const more = `${this.jsonl} could not be written either (${(failed as Error).message}).`
        return {where: 'lost', why: `${why} ${more}`, file: this.jsonl}
      }
    }
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
      // Never throws (it runs after a refund was sent): a claim left behind names this process,
      // which will have ended, and is taken over by the next refund of the order.
      release: () => {
        try {
          this.#db!.write(() => q.unclaim.run(appid, mchOrderNo, mine.pid, mine.host, mine.since))
        } catch (error) {
          if (!(error instanceof LocalStateError)) throw error
        }
      },
    }
  }

  /** `gw history`: where the database is, its size, the earlier history imported, and per appid what it holds. */
  describe(): HistoryReport {
    const q = this.#q
    const rows = q.summaries.all() as {appid: string; orders: number; refunds: number; oldest: number; newest: number}[]
    const imported = q.lastImport.get() as {lines: number; skipped: string; at: string} | undefined
    const wal = existsSync(`${this.file}-wal`) ? statSync(`${this.file}-wal`).size : 0
    return {
      database: this.file,
      bytes: statSync(this.file).size + wal,
      imported: imported && {
        file: `${this.jsonl}.imported`,
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
