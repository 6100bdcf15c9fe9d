/**
 * An embedded SQLite database (node:sqlite, built into Node: nothing native to match a platform or
 * a Node line), shared by gw's history and the sandbox's ledger: opened 0600 in a private folder,
 * in WAL mode (readers never wait for a writer), its migrations applied in order under
 * `PRAGMA user_version`. Each side keeps its own tables and queries.
 *
 * A database is made whole or not at all: its schema is written into a temporary file beside it,
 * which is then linked into its place (exclusively: a second gw making it at the same moment keeps
 * the first). So a file at its path that is empty or partial was never gw's own, and is damage
 * (exit 2, with what to do), never taken for a new, empty history: that would forget the refunds
 * it held.
 *
 * Writes go through `write()`: one IMMEDIATE transaction. Another program may hold the database
 * (a `sqlite3` shell, a backup, another gw): a write waits for it up to its bound, then fails
 * naming what holds it as the system knows it (file-holders), never by a pid on file alone (of
 * another pid namespace, or ended). `durable` commits with synchronous=FULL (an
 * intent before its refund is sent); other commits are NORMAL (durable at the next checkpoint,
 * never torn). Errors are LocalStateErrors (database-errors.ts), which say what is wrong with
 * the file and nothing of what was sent: the caller knows that.
 */
import {randomBytes} from 'node:crypto'
import {closeSync, existsSync, linkSync, lstatSync, openSync, readFileSync, rmSync, statSync} from 'node:fs'
import {hostname} from 'node:os'
import {basename, dirname, join} from 'node:path'
import type {DatabaseSync, StatementSync} from 'node:sqlite'

import {shellWord} from '../errors.js'
import {LocalStateError, damagedDatabase, databaseError} from './database-errors.js'
import {fileHolders} from './file-holders.js'
import {ensurePrivateDir, notOurs, writePrivateFile} from './private-file.js'

export type Statement = StatementSync

/** The files SQLite opens beside a database: its write-ahead log, the log's index, a rollback journal. */
const SIDE_FILES = ['-wal', '-shm', '-journal']

/** How long a write waits for another program's transaction, unless told otherwise. */
export const BUSY_WAIT_MS = 5000

interface Holder {
  pid: number
  host: string
  since: string
  command: string
}

/**
 * node:sqlite is loaded on first use (commands that never open a database never load it), and
 * without its notice that SQLite is experimental in Node: gw's own tests are what it relies on.
 */
function sqlite(): typeof import('node:sqlite') {
  const emit = process.emitWarning
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    if (!String(warning).startsWith('SQLite is an experimental feature'))
      (emit as (...args: unknown[]) => void).call(process, warning, ...rest)
  }
  try {
    return process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite')
  } finally {
    process.emitWarning = emit
  }
}

/** A connection to a database file as it is (a lock file's), node:sqlite loaded as gw loads it. */
export function openDatabase(path: string, options: {readOnly?: boolean} = {}): DatabaseSync {
  const {DatabaseSync} = sqlite()
  return new DatabaseSync(path, options)
}

export class LocalDatabase {
  readonly #db: DatabaseSync
  readonly #holderFile: string
  /** This process has written the holder file. */
  #noted = false
  #durable = false
  #waitMs = BUSY_WAIT_MS
  #writing = false

  /**
   * `migrations[i]` takes the schema from version i to i + 1; each runs once, in one transaction.
   * `elsewhere`: where else the user can keep it, said when its folder is refused.
   */
  constructor(
    readonly path: string,
    migrations: string[],
    elsewhere?: string,
  ) {
    this.#holderFile = `${path}.writer`
    const {DatabaseSync} = sqlite()
    this.#db = this.guard(() => {
      ensurePrivateDir(dirname(path), elsewhere)
      // A link to nothing is not "no database yet": gw would make one where it points, in no folder of its own.
      if (lstatSync(path, {throwIfNoEntry: false}) && !existsSync(path))
        throw damagedDatabase(this.path, 'it is a link to a file that does not exist', undefined)
      this.#refuseForeign()
      if (!existsSync(path)) this.#create(DatabaseSync, migrations)
      this.#refuseEmpty()
      const db = new DatabaseSync(path)
      db.exec(`PRAGMA busy_timeout = ${BUSY_WAIT_MS}`)
      return db
    })
    this.guard(() => {
      const mode = this.#db.prepare('PRAGMA journal_mode').get() as {journal_mode: string}
      if (mode.journal_mode !== 'wal') this.#db.exec('PRAGMA journal_mode = WAL')
      this.#db.exec('PRAGMA synchronous = NORMAL')
      this.#db.exec('PRAGMA foreign_keys = ON')
      // 8 MiB of pages (SQLite's default is 2): an index of a million records stays in memory. More
      // raised a long list's peak memory and took no time off it or off an import (bench/RESULTS.md).
      this.#db.exec('PRAGMA cache_size = -8192')
    })
    const version = this.#version()
    // A later gw's database: its tables may mean what this one cannot know (a refund's state it never wrote).
    if (version > migrations.length) {
      this.close()
      throw new LocalStateError(
        'damaged',
        `${path} was made by a newer gw (its schema is version ${version}; this gw knows up to ${migrations.length}).`,
        {
          advice:
            'Use the newer gw on this machine (gw --version says which this is), or give this one a config dir of its own (GW_CONFIG_DIR).',
          details: {database: path, schema: version, known: migrations.length},
        },
      )
    }
    if (version < migrations.length) this.write(() => this.#migrate(this.#db, migrations))
  }

  #version(): number {
    return this.guard(() => (this.#db.prepare('PRAGMA user_version').get() as {user_version: number}).user_version)
  }

  #migrate(db: DatabaseSync, migrations: string[]): void {
    const version = () => (db.prepare('PRAGMA user_version').get() as {user_version: number}).user_version
    for (let at = version(); at < migrations.length; at += 1) {
      db.exec(migrations[at]!)
      db.exec(`PRAGMA user_version = ${at + 1}`)
    }
  }

  /**
   * A new database, whole: its schema written into a hidden temporary file (0600, made
   * exclusively), synced, then linked into its place. If another process made one meanwhile,
   * that one is kept.
   */
  #create(Database: typeof DatabaseSync, migrations: string[]): void {
    const temporary = join(dirname(this.path), `.${basename(this.path)}.${randomBytes(8).toString('hex')}.new`)
    closeSync(openSync(temporary, 'wx', 0o600))
    try {
      const db = new Database(temporary)
      try {
        db.exec('PRAGMA journal_mode = WAL')
        db.exec('PRAGMA synchronous = FULL')
        db.exec('BEGIN IMMEDIATE')
        this.#migrate(db, migrations)
        db.exec('COMMIT')
      } finally {
        // Closing checkpoints the write-ahead log into the file and removes it.
        db.close()
      }
      try {
        linkSync(temporary, this.path)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
    } finally {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${temporary}${suffix}`, {force: true})
    }
  }

  /**
   * Every file SQLite opens as part of the database (the file, its write-ahead log and index, a
   * rollback journal), checked before the database is opened: one another
   * user owns, or others can write, is not one this user's gw made. SQLite would take a log or a
   * journal beside the file as part of it and replay it over the history (an unknown refund
   * forgotten, then sent again), so such a file stops gw before anything is read.
   */
  #refuseForeign(): void {
    for (const file of [this.path, ...SIDE_FILES.map((suffix) => `${this.path}${suffix}`)]) {
      const stats = lstatSync(file, {throwIfNoEntry: false})
      // A link in the database's place is followed (and its target checked): a link beside it is refused.
      const why = stats && notOurs(file === this.path && stats.isSymbolicLink() ? statSync(file) : stats)
      if (!why) continue
      const aside = shellWord(`${file}.not-mine`)
      throw new LocalStateError(
        'unwritable',
        `${file} is not used: ${why}. SQLite would read it as part of ${basename(this.path)}, so gw opens nothing of it. Nothing was sent.`,
        {
          advice: `Find out who put it there, and move it aside (mv ${shellWord(file)} ${aside}); then run this again.`,
          details: {database: this.path, file},
        },
      )
    }
  }

  /**
   * A database gw made is never empty (it is made whole): an empty file is damage, whatever lies
   * beside it. A write-ahead log beside a 0-byte file (a power cut) would be dropped by SQLite as
   * not this file's, and the history with it.
   */
  #refuseEmpty(): void {
    // Followed through links: a history.db linked to an empty file is as empty as the file.
    if (!statSync(this.path).isFile() || statSync(this.path).size > 0) return
    const wal = statSync(`${this.path}-wal`, {throwIfNoEntry: false})?.size ?? 0
    throw damagedDatabase(
      this.path,
      wal
        ? `it is empty (0 bytes) beside a write-ahead log of ${wal} bytes (${this.path}-wal)`
        : 'it is empty (0 bytes)',
      undefined,
      wal > 0,
    )
  }

  prepare(sql: string): Statement {
    return this.guard(() => this.#db.prepare(sql))
  }

  /** Runs `work` (reads, or a statement that needs no transaction) with SQLite's errors said as gw's. */
  guard<T>(work: () => T): T {
    try {
      return work()
    } catch (error) {
      throw databaseError(this.path, error, this.#waitMs, () => this.#holders())
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

  /**
   * `work` in one IMMEDIATE transaction; `durable`: committed with a synced write before this
   * returns; `waitMs`: how long to wait for another program's transaction (0: not at all).
   */
  write<T>(work: () => T, options: {durable?: boolean; waitMs?: number} = {}): T {
    return this.guard(() => {
      const durable = Boolean(options.durable)
      if (durable !== this.#durable) {
        this.#db.exec(`PRAGMA synchronous = ${durable ? 'FULL' : 'NORMAL'}`)
        this.#durable = durable
      }
      const waitMs = options.waitMs ?? BUSY_WAIT_MS
      if (waitMs !== this.#waitMs) {
        this.#db.exec(`PRAGMA busy_timeout = ${waitMs}`)
        this.#waitMs = waitMs
      }
      this.#db.exec('BEGIN IMMEDIATE')
      this.#writing = true
      try {
        this.#noteHolder()
        const result = work()
        this.#db.exec('COMMIT')
        this.#writing = false
        return result
      } catch (error) {
        if (this.#writing) {
          this.#writing = false
          try {
            this.#db.exec('ROLLBACK')
          } catch {
            // SQLite rolled it back itself (a full disk, an I/O error).
          }
        }
        throw error
      }
    })
  }

  /** A transaction is open on it (a write's, or a read's). */
  get inTransaction(): boolean {
    return this.#db.isTransaction
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close()
  }

  /**
   * Says this process writes, once for a run of its writes: the file is written again only when
   * another process has written it since (reading it is a tenth of writing it). Inside the
   * transaction no other writer can. A bulk run commits a write per refund: writing the file
   * each time showed in its time.
   */
  #noteHolder(): void {
    if (this.#noted && this.#readHolder()?.pid === process.pid) return
    const holder: Holder = {
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
      command: process.argv.slice(2, 4).join(' '),
    }
    // Replaced, never written through: a link put in its place points nowhere of gw's.
    writePrivateFile(this.#holderFile, JSON.stringify(holder))
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

  /**
   * What holds the database: the processes the system says lock it (the writer's note says which
   * of them is a gw, and its command); else "another program". The note alone names no one: the
   * pid it holds may be of another pid namespace, or a process that has ended.
   */
  #holders(): {who: string; holders: unknown[]} {
    const locking = fileHolders([this.path, `${this.path}-wal`, `${this.path}-shm`])
    const gw = this.#readHolder()
    if (locking.length) {
      const named = locking.map(({pid, command}) => {
        const ours = gw?.pid === pid ? ` (gw ${gw.command}, writing since ${gw.since})` : command ? ` (${command})` : ''
        return `process ${pid}${ours}`
      })
      return {who: named.join(' and '), holders: locking}
    }
    return {who: 'another program', holders: []}
  }
}
