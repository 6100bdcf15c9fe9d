/**
 * The bulk-refund journal: an append-only JSON-lines file. Its first record names the CSV
 * (by SHA-256) and the appid; an `intent` record is on disk (fsync) before its refund is
 * sent, and an `outcome` record follows. Records waiting together are written and synced
 * together (group commit), so concurrency costs no extra syncs and the intent-before-send
 * rule holds for each. Outcome-only groups are not synced: a lost outcome is looked up on
 * resume. A last line cut short by a crash is ignored on reading.
 */
import {existsSync, readFileSync} from 'node:fs'
import {type FileHandle, open} from 'node:fs/promises'

import {usageError} from '../../errors.js'

export interface JournalHeader {
  type: 'header'
  version: 1
  csv_file: string
  csv_sha256: string
  appid: string
  created_at: string
}

export interface IntentRecord {
  type: 'intent'
  line: number
  mch_refund_no: string
  mch_order_no: string
  refund_fee: number
  fee_type: string
  at: string
}

export type FinalStatus = 'refunded' | 'already_refunded' | 'failed' | 'processing'

export interface OutcomeRecord {
  type: 'outcome'
  line: number
  mch_refund_no: string
  status: FinalStatus | 'unknown'
  gw_refund_no?: string
  err_code?: string
  err_msg?: string
  advice?: string
  at: string
}

type JournalRecord = JournalHeader | IntentRecord | OutcomeRecord

export interface RowHistory {
  intent?: IntentRecord
  outcome?: OutcomeRecord
}

export class Journal {
  #queue: {record: JournalRecord; resolve: () => void; reject: (error: Error) => void}[] = []
  #flushing?: Promise<void>

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /**
   * What earlier runs recorded for each line of this CSV. A journal of another file or
   * appid is refused. Reading writes nothing.
   */
  static read(
    path: string,
    header: Omit<JournalHeader, 'type' | 'version' | 'created_at'>,
  ): {rows: Map<number, RowHistory>; resumed: boolean} {
    const rows = new Map<number, RowHistory>()
    if (!existsSync(path)) return {rows, resumed: false}
    let first: JournalHeader | undefined
    for (const text of readFileSync(path, 'utf8').split('\n')) {
      if (!text.trim()) continue
      let record: JournalRecord
      try {
        record = JSON.parse(text) as JournalRecord
      } catch {
        continue
      }
      if (record.type === 'header') {
        first ??= record
        continue
      }
      const entry = rows.get(record.line) ?? {}
      if (record.type === 'intent') entry.intent = record
      else entry.outcome = record
      rows.set(record.line, entry)
    }
    if (!first) return {rows, resumed: false}
    if (first.csv_sha256 !== header.csv_sha256) {
      throw usageError(
        `The journal ${path} belongs to another version of the file (${first.csv_file}, changed since or different).`,
        'Run the unchanged file to resume it, or give a new journal with --journal FILE for a new file.',
      )
    }
    if (first.appid !== header.appid) {
      throw usageError(
        `The journal ${path} was written for appid ${first.appid}, not ${header.appid}.`,
        'Use the profile of that merchant to resume it, or give --journal FILE.',
      )
    }
    return {rows, resumed: true}
  }

  /** Opens the journal for appending; a new one starts with its header. */
  static async open(
    path: string,
    header: Omit<JournalHeader, 'type' | 'version' | 'created_at'>,
    resumed: boolean,
  ): Promise<Journal> {
    const journal = new Journal(path, await open(path, 'a', 0o600))
    if (!resumed) await journal.append({type: 'header', version: 1, ...header, created_at: new Date().toISOString()})
    return journal
  }

  /** Resolves once the record is written (and, for intents and the header, synced to disk). */
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
        await this.handle.write(group.map((g) => `${JSON.stringify(g.record)}\n`).join(''))
        // An intent must be on disk before its refund is sent. An outcome need not: if it is
        // lost, the resume looks the refund up. It is synced with the next intent anyway.
        if (group.some((g) => g.record.type !== 'outcome')) await this.handle.datasync()
        for (const g of group) g.resolve()
      } catch (error) {
        for (const g of group) g.reject(error as Error)
      }
    }
    this.#flushing = undefined
  }

  async close(): Promise<void> {
    await this.#flushing
    await this.handle.close()
  }
}
