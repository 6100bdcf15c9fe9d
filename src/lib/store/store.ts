/**
 * gw's local store: the orders and refunds made on this machine, the lines of their stories, the
 * claims of refunds under way. An SQLite database in the config dir (`history.db`, 0600), whose
 * first key is the gateway a record belongs to (appid, base URL, gateway key): every question is
 * asked of one gateway's records, through `store.for(gateway)`, so that a test and a live profile
 * of one appid never share a record. A gateway is one however its address is spelled
 * (gateway-ids.ts): every spelling met is a row of its own that names the gateway it is
 * (`same_as`), and the records are kept under the gateway, once; a new spelling is said once,
 * when it is first met. history.jsonl beside it takes what the database cannot take now
 * (durability.ts) and is merged when the store opens (merge.ts).
 *
 * Records of earlier versions know their appid, not their gateway. They are given the gateway of
 * their appid once one is certain: the only gateway this machine knows for that appid (its
 * profiles, and the records since). Until then they are shown (lists, stories), never used for a
 * decision about money; `gw history` says which.
 */
import {existsSync, statSync} from 'node:fs'
import {join} from 'node:path'

import type {SQLInputValue} from 'node:sqlite'

import {LocalDatabase} from '../io/database.js'
import {LocalStateError} from '../io/database-errors.js'
import {OWN_CONFIG_DIR} from '../paths.js'
import {type CommitPorts, GroupCommit, type Pending, type Seen} from './durability.js'
import type {GatewayIdentity} from './gateway.js'
import {GatewayIds} from './gateway-ids.js'
import {GatewayHistory} from './history.js'
import {Merge} from './merge.js'
import {type Queries, prepareQueries} from './queries/index.js'
import {recordOf} from './queries/lists.js'
import {type Entry, type OrderEntry, movesState} from './records.js'
import {MIGRATIONS} from './schema.js'

export interface StorePorts {
  /** Told of what could not be read (lines of a merged file) or written yet (records kept for later). */
  warn?(message: string): void
  /** Told once of a gateway met under a new spelling: the gateway it is. */
  note?(message: string): void
  /** Told how far the merge of a history.jsonl has read (bytes of its size). */
  importing?(bytesRead: number, size: number): void
}

/** What `gw history` shows. */
export interface HistoryReport {
  database: string
  /** Its size on disk, the write-ahead log included. */
  bytes: number
  /** The earlier history.jsonl imported into it, kept beside it under this name. */
  imported?: {file: string; lines: number; skipped_lines: number[]; at: string}
  /** Per gateway: orders and refunds, and the times of the oldest and newest record. */
  gateways: {
    appid: string
    /** Where the records were made; absent for records from before gw recorded gateways. */
    base_url?: string
    gateway_key?: string
    orders: number
    refunds: number
    oldest: string
    newest: string
    /** Records from before gw recorded gateways, of an appid with more than one: shown, never used for refunds. */
    unattributed?: boolean
  }[]
  /** With --limit: how many gateways the history holds, of which `gateways` are those with the newest records. */
  gateways_total?: number
  /** Records of earlier versions given their gateway once it was certain. */
  adopted: {appid: string; base_url: string; orders: number; refunds: number; events: number; why: string; at: string}[]
}

/** The processes' stores, settled when it ends (a command that did not settle its own, killed by a signal). */
const open = new Set<LocalStore>()
let listening = false

export class LocalStore {
  /** The database. */
  readonly file: string
  /** Records the database could not take, and histories of earlier versions: merged when the store opens. */
  readonly jsonl: string
  #db?: LocalDatabase
  #queries?: Queries
  #gatewayIds?: GatewayIds
  readonly #commits: GroupCommit

  constructor(
    dir: string,
    private readonly ports: StorePorts = {},
  ) {
    this.file = join(dir, 'history.db')
    this.jsonl = join(dir, 'history.jsonl')
    const commitPorts: CommitPorts = {
      db: () => (this.#open(), this.#db!),
      save: (pending) => this.#save(pending),
      line: (pending) => this.#line(pending),
      changes: (seen) => this.#changes(seen),
      why: (error) => this.#why(error),
      warn: ports.warn,
    }
    this.#commits = new GroupCommit(this.jsonl, commitPorts)
    // What a command did not settle itself (one ended by a signal) is settled, and said, as the process ends.
    open.add(this)
    if (!listening) {
      listening = true
      process.once('exit', () => {
        for (const store of open) {
          const sentence = store.settle()
          if (sentence) store.ports.warn?.(sentence)
        }
      })
    }
  }

  /**
   * The records of one gateway. `known`: the other gateways this machine's profiles name (for
   * records of earlier versions: they are that gateway's only when it is the one gateway of their appid).
   */
  for(gateway: GatewayIdentity, known: readonly GatewayIdentity[] = []): GatewayHistory {
    // Asked once: records of earlier versions enter the database only as it opens (the merge).
    let adopted = false
    let spelled = false
    return new GatewayHistory(gateway, {
      queries: (states) => {
        this.#commits.beforeQuestion(states)
        this.#open()
        spelled ||= this.#ids.spell(gateway)
        adopted ||= this.#ids.adopt(gateway, known)
        return this.#queries!
      },
      db: () => (this.#open(), this.#db!),
      // The gateway's spellings made one before its id is taken (a question may take it before it asks).
      id: (create) => ((spelled ||= this.#ids.spell(gateway)), this.#ids.idOf(gateway, create)),
      legacy: () => this.#ids.legacyOf(gateway.appid),
      sole: () => this.#ids.others(gateway, known).length === 0,
      commits: this.#commits,
      file: this.file,
    })
  }

  /**
   * Commits every record waiting (what the database cannot take goes to history.jsonl), and the
   * sentence for what went there or was lost since it was last said. Never throws.
   */
  settle(): string | undefined {
    return this.#commits.settledSentence(this.file)
  }

  /** Settles and closes the database: the command has ended. */
  close(): string | undefined {
    const said = this.settle()
    this.#db?.close()
    open.delete(this)
    return said
  }

  /** `gw history`: where the database is, its size, the earlier history imported, and per gateway what it holds. */
  describe(): HistoryReport {
    this.#commits.beforeQuestion(true)
    const q = this.#open()
    type Row = {appid: string; base_url: string; key: string; orders: number; refunds: number} & Record<string, number>
    const rows = q.gateways.summaries.all() as Row[]
    const imported = q.gateways.lastImport.get() as {lines: number; skipped: string; at: string} | undefined
    const adopted = q.gateways.adoptions.all() as HistoryReport['adopted']
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
      gateways: rows.map((row) => ({
        appid: row.appid,
        ...(row.base_url ? {base_url: row.base_url, gateway_key: row.key} : {unattributed: true}),
        orders: row.orders,
        refunds: row.refunds,
        oldest: new Date(row.oldest!).toISOString(),
        newest: new Date(row.newest!).toISOString(),
      })),
      adopted,
    }
  }

  /** The database, opened at the first question (commands that never ask never load SQLite). */
  #open(): Queries {
    if (this.#queries) return this.#queries
    const db = new LocalDatabase(this.file, MIGRATIONS, OWN_CONFIG_DIR)
    this.#db = db
    this.#queries = prepareQueries(db)
    this.#gatewayIds = new GatewayIds(db, this.#queries, this.ports.note)
    new Merge(this.jsonl, db, this.#queries.gateways, {...this.ports, save: (entry) => this.#saveMerged(entry)}).run()
    return this.#queries
  }

  /** The ids of gateways' records, the database opened. */
  get #ids(): GatewayIds {
    this.#open()
    return this.#gatewayIds!
  }

  /** Why the database refused a record, in words: its own (held, full, damaged), or whatever else it threw, named. */
  #why(error: unknown): string {
    return error instanceof LocalStateError ? error.message : `${this.file}: ${(error as Error).message}.`
  }

  /** Saves a record waiting (inside the write that commits it). */
  #save({entry, gateway, credit}: Pending): void {
    const q = this.#queries!
    const statement = {order: q.orders.save, refund: q.refunds.save, event: q.events.save}[entry.type]
    const columns = columnsOf(entry, this.#ids.idOf(gateway, true)!, credit)
    statement.run(columns)
    // A refund proven made moves its order to REFUND, as the gateway's query would show it (a record without a status is one made).
    if (entry.type === 'refund' && (entry.status ?? 'refunded') === 'refunded') {
      const {gateway: id, mch_order_no, at} = columns
      q.orders.refunded.run({gateway: id!, mch_order_no: mch_order_no!, at: at!})
    }
  }

  /** Saves a record of a merged file, under its gateway (an earlier version's: its appid's records from before). */
  #saveMerged(entry: Entry): void {
    const {gateway = {appid: entry.appid, base_url: '', key: ''}, ...record} = entry
    this.#save({entry: record as Entry, gateway, credit: true})
  }

  /** A record as a line of history.jsonl: with its gateway, so that a merge puts it back under it. */
  #line({entry, gateway}: Pending): string {
    return JSON.stringify(gateway.base_url ? {...entry, gateway} : entry)
  }

  /**
   * What the states seen change: a query of an order made here is a line of its story, whatever
   * it showed; its record moves when the state goes further than the one kept (see movesState),
   * or when it shows the payer, or the channel's number of the order, for the first time.
   */
  #changes(seen: Seen[]): Pending[] {
    const q = this.#open()
    return this.#db!.read(() => {
      // One question per gateway for all the orders seen (one each was 512 round trips into SQLite).
      type Kept = {state: string | null; openid: string | null; channel_order_no: string | null}
      const known = new Map<string, Kept>()
      const ids = new Map(seen.map((s) => [s.gateway, this.#ids.idOf(s.gateway, false)]))
      for (const [gateway, id] of ids) {
        if (id === undefined) continue
        const numbers = JSON.stringify(seen.filter((s) => s.gateway === gateway).map((s) => s.mchOrderNo))
        for (const row of q.orders.statesOf.all(id, numbers) as ({mch_order_no: string} & Kept)[])
          known.set(`${id}\n${row.mch_order_no}`, row)
      }
      return seen.flatMap(({gateway, mchOrderNo, state, at, facts}): Pending[] => {
        const id = ids.get(gateway)
        const was = known.get(`${id}\n${mchOrderNo}`)
        if (id === undefined || !was) return []
        const {appid} = gateway
        const {by, ...shown} = facts
        const detail = {state, ...shown}
        const queried: Pending[] =
          by === 'query'
            ? [
                {
                  entry: {type: 'event', appid, mch_order_no: mchOrderNo, kind: 'queried', at, detail},
                  gateway,
                  credit: true,
                },
              ]
            : []
        const payer = shown.openid && shown.openid !== was.openid ? {openid: shown.openid} : undefined
        // The channel's number is kept once known (a receipt names the order by it).
        const number =
          shown.channel_order_no && !was.channel_order_no ? {channel_order_no: shown.channel_order_no} : undefined
        // The same state shown again is recorded too: the order's "as of" is when it was last confirmed.
        if (!movesState(was.state, state) && !payer && !number) return queried
        const row = q.orders.byMerchantNumber.get(id, mchOrderNo) as Record<string, unknown>
        const {type: _type, at: _at, state_at: _stateAt, ...order} = recordOf<OrderEntry>('order', row, appid)!
        // A payer shown with a state that proves less than the one kept: the payer is kept, the state stays.
        const moved = movesState(was.state, state) ? {state, state_at: at} : {}
        const entry: OrderEntry = {type: 'order', ...order, ...moved, at, ...payer, ...number}
        return [...queried, {entry, gateway, credit: true}]
      })
    })
  }
}

/** A record's columns, as the INSERTs name them: what it does not say is NULL. `credit`: see the refunds' CREDITED. */
function columnsOf(entry: Entry, gateway: number, credit: boolean): Record<string, SQLInputValue> {
  const {mch_order_no} = entry
  // A time that is none (a journal edited by hand: "then") is recorded as the time it is recorded,
  // never refused: the refund it comes with was sent, and its record must be kept.
  const parsed = Date.parse(entry.at)
  const at_ms = Number.isNaN(parsed) ? Date.now() : parsed
  const at = Number.isNaN(parsed) ? new Date(at_ms).toISOString() : entry.at
  if (entry.type === 'event')
    return {gateway, mch_order_no, kind: entry.kind, at, at_ms, detail: JSON.stringify(entry.detail)}
  const common = {
    gateway,
    mch_order_no,
    gw_order_no: entry.gw_order_no ?? null,
    channel: entry.channel ?? null,
    at,
    at_ms,
  }
  if (entry.type === 'order') {
    const {total_fee, fee_type, state = null, state_at = null, openid = null, channel_order_no = null} = entry
    return {...common, total_fee, fee_type, state, state_at, openid, channel_order_no}
  }
  const {mch_refund_no, refund_fee, fee_type = null, status = null, gw_refund_no = null, source = null} = entry
  const refund = {mch_refund_no, refund_fee, fee_type, status, gw_refund_no, source, total_fee: entry.total_fee ?? null}
  return {...common, ...refund, credit: credit ? 1 : 0}
}
