/**
 * An embedded SQLite database (better-sqlite3), shared by gw's history and the sandbox's ledger:
 * opened 0600 in a private folder, in WAL mode (readers never wait for a writer), its migrations
 * applied in order under `PRAGMA user_version`. Each side keeps its own tables and queries.
 *
 * Writes go through `write()`: one IMMEDIATE transaction that records its holder (pid, host,
 * command, since) in a file beside the database, so that a process kept waiting beyond a bounded
 * time can say which process holds it; SQLite itself does not know. `durable` commits with
 * synchronous=FULL (an intent before its refund is sent); other commits are NORMAL (durable at
 * the next checkpoint, never torn). A file that is not a database, or is damaged, is a usage error
 * (exit 2) saying what to do: never an empty history in its place.
 */
import {closeSync, existsSync, openSync, readFileSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import BetterSqlite3 from 'better-sqlite3'

import {GwError} from '../errors.js'
import {ensurePrivateDir} from './private-file.js'

export type Statement = BetterSqlite3.Statement

/** How long a command waits for another process's write before saying who holds the database. */
const BUSY_WAIT_MS = 5000

/**
 * Where the compiled binding is: copied beside the bundle by the build (dist/native), which the
 * npm tarball and the single executable carry; else (tests of the sources) the package's own.
 */
function nativeBinding(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url))
  for (const dir of [here, join(here, '..')]) {
    const candidate = join(dir, 'native', 'better_sqlite3.node')
    if (existsSync(candidate)) return candidate
  }
  return undefined
}

interface Holder {
  pid: number
  host: string
  since: string
  command: string
}

/** SQLite's codes for a file that is not a database or is damaged. */
const DAMAGED = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_CORRUPT_SEQUENCE'])
const UNREADABLE = /^SQLITE_(CANTOPEN|READONLY|PERM|IOERR|AUTH)/

export class LocalDatabase {
  readonly #db: BetterSqlite3.Database
  readonly #holderFile: string
  /** This process has written the holder file. */
  #noted = false
  #durable = false

  /** `migrations[i]` takes the schema from version i to i + 1; each runs once, in one transaction. */
  constructor(
    readonly path: string,
    migrations: string[],
  ) {
    this.#holderFile = `${path}.writer`
    this.#db = this.guard(() => {
      ensurePrivateDir(dirname(path))
      // Made 0600 before SQLite opens it (its -wal and -shm files take the same mode).
      if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600))
      return new BetterSqlite3(path, {nativeBinding: nativeBinding(), timeout: BUSY_WAIT_MS})
    })
    this.guard(() => {
      if (this.#db.pragma('journal_mode', {simple: true}) !== 'wal') this.#db.pragma('journal_mode = WAL')
      this.#db.pragma('synchronous = NORMAL')
      this.#db.pragma('foreign_keys = ON')
      // 32 MiB of pages (SQLite's default is 2): an import or a long list keeps its indexes in memory.
      this.#db.pragma('cache_size = -32768')
    })
    const version = () => this.guard(() => this.#db.pragma('user_version', {simple: true}) as number)
    if (version() < migrations.length) {
      this.write(() => {
        for (let at = version(); at < migrations.length; at += 1) {
          this.#db.exec(migrations[at]!)
          this.#db.pragma(`user_version = ${at + 1}`)
        }
      })
    }
  }

  prepare(sql: string): Statement {
    return this.guard(() => this.#db.prepare(sql))
  }

  /** Runs `work` (reads, or a statement that needs no transaction) with SQLite's errors said as gw's. */
  guard<T>(work: () => T): T {
    try {
      return work()
    } catch (error) {
      throw this.#described(error)
    }
  }

  /**
   * `work`'s reads in one transaction: one snapshot, and SQLite's read lock taken once for all
   * of them (a statement on its own takes it each time: about five times the cost of a lookup).
   */
  read<T>(work: () => T): T {
    return this.guard(() => {
      this.#db.exec('BEGIN')
      try {
        return work()
      } finally {
        this.#db.exec('COMMIT')
      }
    })
  }

  /** `work` in one IMMEDIATE transaction; `durable`: committed with a synced write before this returns. */
  write<T>(work: () => T, options: {durable?: boolean} = {}): T {
    return this.guard(() => {
      const durable = Boolean(options.durable)
      if (durable !== this.#durable) {
        this.#db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`)
        this.#durable = durable
      }
      this.#db.exec('BEGIN IMMEDIATE')
      try {
        this.#noteHolder()
        const result = work()
        this.#db.exec('COMMIT')
        return result
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK')
        throw error
      }
    })
  }

  close(): void {
    if (this.#db.open) this.#db.close()
  }

  /**
   * Says this process writes, once for a run of its writes: the file is written again only when
   * another process has written it since (reading it is a tenth of writing it). Inside the
   * transaction no other writer can. A bulk run commits a write per refund: writing the file
   * each time was 12% of its time.
   */
  #noteHolder(): void {
    if (this.#noted && this.#readHolder()?.pid === process.pid) return
    const holder: Holder = {
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
      command: process.argv.slice(2, 4).join(' '),
    }
    writeFileSync(this.#holderFile, JSON.stringify(holder), {mode: 0o600})
    this.#noted = true
  }

  /** The process the holder file names; undefined when it cannot be read. */
  #readHolder(): Holder | undefined {
    try {
      const holder = JSON.parse(readFileSync(this.#holderFile, 'utf8')) as Holder
      return typeof holder.pid === 'number' ? holder : undefined
    } catch {
      return undefined
    }
  }

  /** The process the holder file names, when it is another one. */
  #holder(): Holder | undefined {
    const holder = this.#readHolder()
    return holder?.pid === process.pid ? undefined : holder
  }

  #described(error: unknown): unknown {
    if (error instanceof GwError) return error
    const code = (error as {code?: string}).code ?? ''
    const cause = (error as Error).message
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      const holder = this.#holder()
      const who = holder
        ? `process ${holder.pid} on ${holder.host} (gw ${holder.command}, writing since ${holder.since})`
        : 'another process'
      return new GwError(
        'usage',
        `${this.path} is held by ${who}; gave up after ${BUSY_WAIT_MS / 1000} s. Nothing was sent.`,
        {
          advice: 'Wait for that command to end, then run this again.',
          details: {database: this.path, holder},
          cause: error,
        },
      )
    }
    if (DAMAGED.has(code)) {
      return new GwError('usage', `${this.path} is not a readable gw database (${cause}). Nothing was sent.`, {
        advice: `Move it aside (mv "${this.path}" "${this.path}.damaged"): gw starts a new one. What it held can be recovered with: sqlite3 "${this.path}.damaged" .recover | sqlite3 recovered.db`,
        details: {database: this.path, sqlite_code: code},
        cause: error,
      })
    }
    if (UNREADABLE.test(code)) {
      return new GwError('usage', `${this.path} cannot be opened or written (${cause}). Nothing was sent.`, {
        advice: 'Check that the file and its folder belong to you and can be written (and that the disk is not full).',
        details: {database: this.path, sqlite_code: code},
        cause: error,
      })
    }
    return error
  }
}
