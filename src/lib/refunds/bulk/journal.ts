/**
 * The bulk-refund journal: an append-only JSON-lines file. Its first record names the CSV
 * (by SHA-256) and the gateway it is run against (appid, base URL, gateway key): a journal of
 * another gateway (a test run of the file, then the live one) is never resumed, one of the same
 * gateway under another spelling is (store/gateway.ts); an `intent` record is on disk (written whole and synced)
 * before its refund is sent, and an `outcome` record follows. Records waiting together are
 * written and synced together (group commit), so concurrency costs no extra syncs and the
 * intent-before-send rule holds for each. Outcome-only groups are not synced: a lost outcome
 * is looked up on resume. A write that fails (a full disk) rejects every record of its group:
 * the caller stops sending. A last line cut short by a crash is cut off when the journal is
 * opened again, so the next record does not run into it.
 *
 * A group is written and synced on the main thread while the disk syncs fast: there, the
 * thread pool's hand-offs (a write, a sync, and waking the main thread for each) cost more
 * than the sync itself (measured with bench/run.mjs --against, bench/RESULTS.md).
 * Once syncs take `inlineSyncMs` on average (a spinning disk, macOS's full sync), the rest
 * of the run goes to the thread pool, where the wait lets more records join the next group.
 * An average, as one sync in ten takes several times the usual under load (and a new file's first).
 */
import {
  closeSync,
  constants as fsConstants,
  existsSync,
  fdatasyncSync,
  lstatSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs'
import {type FileHandle, open} from 'node:fs/promises'

import {shellWord, usageError} from '../../errors.js'
import {type GatewayIdentity, describeGateway, spellingOf} from '../../store/gateway.js'
import {cutTornTail, forEachLine} from '../../io/json-lines.js'
import {notOurs} from '../../io/private-file.js'
import type {FinalStatus} from '../refund.js'

export interface JournalHeader {
  type: 'header'
  version: 1
  csv_file: string
  csv_sha256: string
  appid: string
  /** The gateway the run sends to (missing in journals of earlier versions, which named only the appid). */
  gateway?: GatewayIdentity
  /** --batch-id: it enters derived refund numbers, so a journal belongs to one batch id. */
  batch_id?: string
  /** What gw read of the file then (refund-file's digest): a file that only grew since is the same batch, continued. */
  rows?: {line: number; sha256: string}
  created_at: string
}

export interface IntentRecord {
  type: 'intent'
  line: number
  mch_refund_no: string
  mch_order_no: string
  /** The order as the gateway knows it (derived refund numbers are made from it). */
  gw_order_no?: string
  refund_fee: number
  fee_type: string
  at: string
}

export interface OutcomeRecord {
  type: 'outcome'
  line: number
  mch_refund_no: string
  /** A row's outcome as the run recorded it: final, processing (asked about again), or unknown. */
  status: FinalStatus | 'processing' | 'unknown'
  gw_refund_no?: string
  refund_time?: string
  err_code?: string
  err_msg?: string
  advice?: string
  /** refunded_earlier: when the earlier run sent it. */
  earlier_run_at?: string
  at: string
}

type JournalRecord = JournalHeader | IntentRecord | OutcomeRecord

/** What a run's journal is of: the file, the gateway, the batch. */
export type JournalIdentity = Omit<JournalHeader, 'type' | 'version' | 'created_at' | 'gateway'> & {
  gateway: GatewayIdentity
  /** It is the one gateway this machine knows for the appid: a journal of an earlier gw, naming only the appid, is its. */
  soleGateway?: boolean
  /** The SHA-256 of the file the journal began with, whose lines this file's first lines are (the file only grew). */
  grown_from?: string
}

export interface RowHistory {
  intent?: IntentRecord
  outcome?: OutcomeRecord
  /** The journal's line (from 1) holding the intent, to name it. */
  intentLine?: number
}

interface JournalReading {
  rows: Map<number, RowHistory>
  resumed: boolean
  /** A last line cut short by a crash was found (and is ignored). */
  torn: boolean
  /** The file grew since the journal began: its lines up to this one are the ones the journal's run read. */
  grown?: number
}

/** Syncs taking this long on average (ms) move the journal's writes to the thread pool. */
const INLINE_SYNC_MS = 2

export class Journal {
  #queue: {record: JournalRecord; resolve: () => void; reject: (error: Error) => void}[] = []
  #flushing?: Promise<void>
  /** Groups are still written on the main thread: syncs have been fast (0: never). */
  #inline: boolean
  /** The main thread's syncs so far: their running mean, in ms, from 0 (each new one weighs 1/8). */
  #syncMs = 0

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly inlineSyncMs: number,
  ) {
    this.#inline = inlineSyncMs > 0
  }

  /**
   * What earlier runs recorded for each line of this CSV. A journal of another file or
   * appid is refused. Reading writes nothing.
   */
  static read(path: string, header: JournalIdentity): JournalReading {
    const rows = new Map<number, RowHistory>()
    const file = lstatSync(path, {throwIfNoEntry: false})
    if (!file) return {rows, resumed: false, torn: false}
    const foreign = notOurs(file)
    if (foreign)
      throw usageError(
        `The journal ${path} is not one gw wrote for you: ${foreign}. Nothing was sent: what it says is evidence of nothing, and gw does not write into it.`,
        'Give this run a journal of its own: add --journal FILE (a new file in a folder of yours). Refunds the gateway already holds are found by their numbers and never sent twice.',
      )
    let torn = false
    let first: JournalHeader | undefined
    forEachLine(path, (line, number, cut) => {
      // A last line cut short by a crash is not a record; a line longer than any record is none either.
      if (cut) torn = true
      if (cut || line === undefined || !line.trim()) return
      let record: JournalRecord
      try {
        record = JSON.parse(line) as JournalRecord
      } catch {
        return
      }
      // A line that is JSON but no record of gw's (null, a number, an edit) names no row: nothing to read in it.
      if (!record || typeof record !== 'object') return
      if (record.type === 'header') {
        first ??= record
        return
      }
      if (!Number.isSafeInteger(record.line)) return
      const entry = rows.get(record.line) ?? {}
      if (record.type === 'intent') {
        // An intent whose fields are not what gw writes is kept, to be refused as edited, never read as none.
        entry.intent = wellFormedIntent(record) ? record : {...MALFORMED, line: record.line, at: String(record.at)}
        entry.intentLine = number
      } else if (record.type === 'outcome' && typeof record.mch_refund_no === 'string') entry.outcome = record
      else return
      rows.set(record.line, entry)
    })
    if (!first) return {rows, resumed: false, torn}
    const grown = first.csv_sha256 !== header.csv_sha256 && first.csv_sha256 === header.grown_from
    if (first.csv_sha256 !== header.csv_sha256 && !grown) {
      throw usageError(
        `The journal ${path} belongs to another version of the file (${first.csv_file}, changed since or different).`,
        'Run the unchanged file to resume it (a file may grow: rows added under the last are the same batch, continued; a changed row is another file), or give a new journal with --journal FILE for a new file.',
      )
    }
    if (first.appid !== header.appid) {
      throw usageError(
        `The journal ${path} was written for appid ${first.appid}, not ${header.appid}.`,
        'Use the profile of that merchant to resume it, or give --journal FILE.',
      )
    }
    const {gateway} = header
    // A journal of an earlier gw names only its appid: this gateway's when it is the only one of the appid this machine knows.
    if (first.gateway ? !spellingOf(gateway, first.gateway) : !header.soleGateway) {
      const written = first.gateway
        ? `against ${describeGateway(first.gateway)}`
        : `by an earlier gw, which did not record the gateway it sent to, and this machine knows more than one gateway of appid ${first.appid}`
      // A fresh journal is safe either way: refund numbers derive from the order as this gateway knows
      // it, so the gateway that took a refund finds it again and takes it once; another gateway never had it.
      throw usageError(
        `The journal ${path} was written ${written}; this run sends to ${describeGateway(gateway)}. Nothing was sent: a journal of one gateway says nothing of another (a test run of the file, then the live one).`,
        `Run the file on that gateway's profile to resume it, or give this run a journal of its own: add --journal ${shellWord(`${path}.${header.appid}-${Date.now().toString(36)}.jsonl`)} (or copy the file, whose journal is then its own). Refunds this gateway already holds are found by their numbers and never sent twice.`,
      )
    }
    if ((first.batch_id ?? '') !== (header.batch_id ?? '')) {
      const was = first.batch_id ? `--batch-id ${first.batch_id}` : 'no --batch-id'
      throw usageError(
        `The journal ${path} was written with ${was}.`,
        `Resume it the same way, or give --journal FILE for another batch.`,
      )
    }
    return {rows, resumed: true, torn, ...(grown ? {grown: first.rows!.line} : {})}
  }

  /** The file a journal names in its header (its `csv_file`), or undefined when there is none to read. */
  static fileOf(path: string): string | undefined {
    return Journal.headerOf(path)?.csv_file
  }

  /** A journal's header, or undefined when there is none to read. */
  static headerOf(path: string): Partial<JournalHeader> | undefined {
    if (!existsSync(path)) return undefined
    const fd = openSync(path, 'r')
    const head = Buffer.alloc(64 * 1024)
    let read: number
    try {
      read = readSync(fd, head, 0, head.length, 0)
    } finally {
      closeSync(fd)
    }
    const first = head.toString('utf8', 0, read).split('\n', 1)[0]!
    try {
      const header = JSON.parse(first) as Partial<JournalHeader>
      return header.type === 'header' ? header : undefined
    } catch {
      return undefined
    }
  }

  /** Opens the journal for appending, a torn last line cut off; a new one starts with its header. */
  static async open(
    path: string,
    header: JournalIdentity,
    resumed: boolean,
    inlineSyncMs = INLINE_SYNC_MS,
  ): Promise<Journal> {
    cutTornTail(path)
    // A link put in its place since it was read is refused (ELOOP), never written through.
    const {O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW = 0} = fsConstants
    const journal = new Journal(path, await open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600), inlineSyncMs)
    const {soleGateway: _sole, grown_from: _grown, ...written} = header
    if (!resumed) await journal.append({type: 'header', version: 1, ...written, created_at: new Date().toISOString()})
    return journal
  }

  /** Resolves once the record is written whole (and, for intents and the header, synced to disk). */
  append(record: JournalRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({record, resolve, reject})
      this.#flushing ??= this.#flush()
    })
  }

  async #flush(): Promise<void> {
    // Let records queued in the same turn join this group.
    await new Promise((resolve) => setImmediate(resolve))
    while (this.#queue.length) {
      const group = this.#queue
      this.#queue = []
      try {
        const bytes = Buffer.from(group.map((g) => `${JSON.stringify(g.record)}\n`).join(''))
        // An intent must be on disk before its refund is sent. An outcome need not: if it is
        // lost, the resume looks the refund up. It is synced with the next intent anyway.
        const sync = group.some((g) => g.record.type !== 'outcome')
        if (this.#inline) this.#writeInline(bytes, sync)
        else {
          for (let at = 0; at < bytes.length;)
            at += (await this.handle.write(bytes, at, bytes.length - at)).bytesWritten
          if (sync) await this.handle.datasync()
        }
        for (const g of group) g.resolve()
      } catch (error) {
        for (const g of group) g.reject(error as Error)
      }
    }
    this.#flushing = undefined
  }

  /** Writes (and syncs) a group on the main thread; syncs slow on average end this for the run. */
  #writeInline(bytes: Buffer, sync: boolean): void {
    const started = performance.now()
    for (let at = 0; at < bytes.length;) at += writeSync(this.handle.fd, bytes, at, bytes.length - at)
    if (!sync) return
    fdatasyncSync(this.handle.fd)
    const took = performance.now() - started
    this.#syncMs += (took - this.#syncMs) / 8
    if (this.#syncMs >= this.inlineSyncMs) this.#inline = false
  }

  /** Whether groups are still written on the main thread (syncs have been fast on average). */
  get inline(): boolean {
    return this.#inline
  }

  async close(): Promise<void> {
    await this.#flushing
    await this.handle.close()
  }
}

/** What is kept of an intent gw did not write: nothing it could be taken for (it disagrees with every row). */
const MALFORMED = {type: 'intent', mch_refund_no: '', mch_order_no: '', fee_type: '', refund_fee: Number.NaN} as const

/** An intent as gw writes it: its numbers and currency text, its amount a whole number. */
function wellFormedIntent(record: IntentRecord): boolean {
  const text = (value: unknown) => typeof value === 'string'
  return (
    text(record.mch_refund_no) &&
    text(record.mch_order_no) &&
    text(record.fee_type) &&
    (record.gw_order_no === undefined || text(record.gw_order_no)) &&
    Number.isSafeInteger(record.refund_fee) &&
    record.refund_fee >= 0
  )
}
