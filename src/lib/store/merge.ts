/**
 * Merging history.jsonl into the database: the records this gw put there while the database was
 * held or full, and the history of earlier versions. A file gw did not write is not merged: one
 * that is not a plain file (a link, a pipe, a folder), one another user owns, or one others can
 * write (its folder, the config dir, is refused when others can write it). Such a file is named and left where
 * it is. A merge is taken aside first (records appended from then on start a new file, merged
 * next time), read in one transaction, then kept renamed (history.jsonl.imported). Merging the
 * same records twice (a restored file) changes nothing: each record is kept once (see queries/).
 */
import {existsSync, lstatSync, readdirSync, renameSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import type {LocalDatabase} from '../io/database.js'
import {LocalStateError} from '../io/database-errors.js'
import {MAX_LINE_BYTES, forEachLine} from '../io/json-lines.js'
import {notOurs} from '../io/private-file.js'
import type {GatewayQueries} from './queries/gateways.js'
import {type Entry, entryOf} from './records.js'

interface MergePorts {
  warn?(message: string): void
  /** How far the merge of a file has read (bytes of its size). */
  importing?(bytesRead: number, size: number): void
  /** Saves a record read from the file. */
  save(entry: Entry): void
}

/** The sentence for lines that are not a record: their numbers (the first five). */
function unreadableLines(file: string, numbers: number[]): string {
  const one = numbers.length === 1
  const lines = numbers.length > 5 ? `${numbers.slice(0, 5).join(', ')}, …` : numbers.join(', ')
  return (
    `${file}: ${one ? 'line' : 'lines'} ${lines} ${one ? 'is' : 'are'} ` +
    `not a record of an order or refund (cut short, edited, or longer than ${MAX_LINE_BYTES / 1024} KiB) and were skipped; what they held is not known to gw.`
  )
}

export class Merge {
  constructor(
    readonly jsonl: string,
    private readonly db: LocalDatabase,
    private readonly queries: GatewayQueries,
    private readonly ports: MergePorts,
  ) {}

  /**
   * Merges the history.jsonl found, and any merge a crash left unfinished (its file still taken
   * aside). The database held: it waits for the next open.
   */
  run(): void {
    if (!this.#toMerge().length && !lstatSync(this.jsonl, {throwIfNoEntry: false})) return
    const done: string[] = []
    try {
      this.db.write(() => {
        // Listed under the lock: another gw merging at the same time has finished, or not begun.
        const jsonl = lstatSync(this.jsonl, {throwIfNoEntry: false})
        const refused = jsonl && notOurs(jsonl)
        if (refused)
          this.ports.warn?.(`${this.jsonl} is not merged into the history: ${refused}. Move it aside, or remove it.`)
        else if (jsonl) renameSync(this.jsonl, `${this.jsonl}.${process.pid}-${Date.now()}.merging`)
        for (const file of this.#toMerge()) {
          // Merged by another gw that has not renamed it yet: merging it twice would tell its story twice.
          if (!this.queries.importOf.get(file) && !this.#mergeFile(file)) continue
          done.push(file)
        }
      })
    } catch (error) {
      if (!(error instanceof LocalStateError)) throw error
      this.ports.warn?.(`${this.jsonl} is not merged into the history yet: ${error.message} It is merged next time.`)
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

  /** The history.jsonl files taken aside to be merged, as far as they are gw's own. */
  #toMerge(): string[] {
    const dir = dirname(this.jsonl)
    return readdirSync(dir)
      .filter((name) => name.startsWith(`${basename(this.jsonl)}.`) && name.endsWith('.merging'))
      .map((name) => join(dir, name))
      .filter((file) => {
        const stats = lstatSync(file, {throwIfNoEntry: false})
        return stats && !notOurs(stats)
      })
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
          // A record naming a gateway of another appid than its own is no record gw wrote.
          if (entry && (!entry.gateway || entry.gateway.appid === entry.appid)) this.ports.save(entry)
          else skipped.push(number)
        },
        this.ports.importing,
      )
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
      throw error
    }
    this.queries.noteImport.run(file, lines, skipped.join(','), new Date().toISOString())
    if (skipped.length) this.ports.warn?.(unreadableLines(this.jsonl, skipped))
    return true
  }
}
