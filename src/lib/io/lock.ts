/**
 * Locks the operating system holds: one process at a time holds a lock, for as long as it lives
 * or until it lets go, and when it dies (killed, a crash, a reboot) the system lets go for it.
 * So a lock is never taken over from a process that lives, whatever pid namespace, container or
 * host it runs in (where the file system shares locks), and never left held by one that is gone
 * (whatever pid now runs). Node has no flock; the lock is SQLite's (node:sqlite, in Node), which
 * locks a file with the system's advisory locks (fcntl on POSIX, LockFileEx on Windows): an
 * exclusive transaction on the lock file, an empty database, kept open on its own connection
 * for the lock's life. (O_EXLOCK is macOS's and the BSDs' only; the npm packages are native
 * bindings, or lock files judged by a pid or an age, which is what this replaces.)
 *
 * What a lock file's note beside it says (pid, host, since) is for messages only, never the
 * test. A lock file is removed by its holder while it still holds it, and a taker checks that the
 * file it locked is still the one at its path (else it locks the new one), so removing never lets
 * two processes hold one lock. Nothing else in the process may open a lock file while it is held
 * (closing any descriptor of a file drops the process's POSIX locks on it): only SQLite opens it.
 */
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs'
import {hostname} from 'node:os'
import {resolve} from 'node:path'
import type {DatabaseSync} from 'node:sqlite'

import {GwError, usageError} from '../errors.js'
import {openDatabase} from './database.js'
import {sqliteCode} from './database-errors.js'
import {notOurs, replaceFile} from './private-file.js'

/** Who holds a lock, as its note says: for messages only. */
export interface LockHolder {
  pid: number
  host: string
  since: string
}

export class LockHeld extends Error {
  constructor(
    readonly path: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      `${path} is held by ${holder ? `process ${holder.pid} on ${holder.host} since ${holder.since}` : 'another process'}`,
    )
  }
}

export interface Lock {
  /** The holder whose note was left behind: it ended (killed, crashed) without letting go, and the system let go for it. */
  left?: LockHolder
  release(): void
}

const BUSY = 5
const NOTADB = 26

/** The note beside a lock file: who holds it, for messages. */
const noteOf = (path: string) => `${path}.holder`

function readNote(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(noteOf(path), 'utf8')) as LockHolder
    return typeof holder.pid === 'number' && typeof holder.host === 'string' ? holder : undefined
  } catch {
    return undefined
  }
}

/**
 * The lock files this process holds, by device and inode: never opened again while held (closing
 * that descriptor would drop the lock), and held against this process's other takers too.
 */
const heldHere = new Set<string>()
const keyOf = (path: string) => {
  const stats = statSync(path, {throwIfNoEntry: false})
  // A file system that numbers no inodes (some Windows ones say 0): known by its full path instead.
  return stats && (stats.ino ? `${stats.dev}:${stats.ino}` : resolve(path))
}
const heldInThisProcess = (path: string) => heldHere.has(keyOf(path) ?? '')

/** A blocking wait: locks are taken by synchronous code (the profile store, claims inside a transaction). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/** A lock file (or its note) gw did not make, in a folder of the user's: refused, naming it. */
function refuseForeign(path: string): void {
  for (const file of [path, noteOf(path)]) {
    const stats = lstatSync(file, {throwIfNoEntry: false})
    const why = stats && notOurs(stats)
    if (why)
      throw usageError(
        `The lock ${file} is not used: ${why}. Nothing was sent.`,
        'Find out who put it there, and move it aside.',
        {
          lock: file,
        },
      )
  }
}

/** The lock file, made if it is not there (0600, never through a link): its device and inode. */
function identityOf(path: string): string {
  const {O_RDWR, O_CREAT, O_NOFOLLOW = 0} = fsConstants
  // Closed before SQLite opens it: a descriptor closed while the lock is held would drop it.
  const fd = openSync(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600)
  try {
    const {dev, ino, size} = fstatSync(fd)
    return `${dev}:${ino}:${size > 0 ? 'full' : 'empty'}`
  } finally {
    closeSync(fd)
  }
}

const sameFile = (path: string, identity: string) => {
  const now = statSync(path, {throwIfNoEntry: false})
  return now !== undefined && identity.startsWith(`${now.dev}:${now.ino}:`)
}

/**
 * Takes the lock at `path`, waiting up to `waitMs` for its holder; throws LockHeld naming the
 * holder (as its note says) when it is still held then.
 */
export function holdLock(path: string, options: {waitMs?: number} = {}): Lock {
  const deadline = Date.now() + (options.waitMs ?? 0)
  for (;;) {
    refuseForeign(path)
    if (heldInThisProcess(path)) {
      if (Date.now() >= deadline) throw new LockHeld(path, readNote(path))
      pause(25)
      continue
    }
    const identity = identityOf(path)
    // What an earlier gw wrote in its lock file (its holder, as JSON) is a note: kept as one, the file emptied.
    if (identity.endsWith(':full')) adoptEarlierNote(path)
    const db = openDatabase(path)
    let held = false
    try {
      db.exec('PRAGMA busy_timeout = 0')
      // No journal file: nothing is ever written to a lock.
      db.exec('PRAGMA journal_mode = MEMORY')
      db.exec('BEGIN EXCLUSIVE')
      held = true
    } catch (error) {
      if (sqliteCode(error) !== BUSY) {
        db.close()
        throw error
      }
    }
    if (held && sameFile(path, identity)) return taken(path, db)
    if (held) db.exec('ROLLBACK')
    db.close()
    // Locked, but removed by the holder it was taken from: the file at the path now is the lock.
    if (held) continue
    if (Date.now() >= deadline) throw new LockHeld(path, noteOfHolder(path))
    pause(25)
  }
}

/** The note of a lock's holder, waited for a moment: a holder writes it just after it takes the lock. */
function noteOfHolder(path: string): LockHolder | undefined {
  for (let tries = 0; tries < 8; tries += 1) {
    const note = readNote(path)
    if (note) return note
    pause(25)
  }
  return undefined
}

/** A lock file of an earlier gw (its holder written in it): the holder kept as the note, the file emptied in place. */
function adoptEarlierNote(path: string): void {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as {pid?: unknown; host?: unknown; started_at?: unknown}
    if (typeof holder.pid === 'number' && typeof holder.host === 'string' && !readNote(path))
      replaceFile(noteOf(path), JSON.stringify({pid: holder.pid, host: holder.host, since: holder.started_at}))
  } catch {
    // Not a note of gw's: nothing to keep.
  }
  // Emptied, never replaced: every taker locks this file.
  const {O_RDWR, O_NOFOLLOW = 0} = fsConstants
  const fd = openSync(path, O_RDWR | O_NOFOLLOW)
  try {
    if (fstatSync(fd).size > 0 && !isDatabase(fd)) ftruncateSync(fd, 0)
  } finally {
    closeSync(fd)
  }
}

/** Whether a file begins as an SQLite database does (a lock that SQLite itself wrote is left as it is). */
function isDatabase(fd: number): boolean {
  const head = Buffer.alloc(16)
  readSync(fd, head, 0, 16, 0)
  return head.toString('latin1') === 'SQLite format 3\0'
}

/** The lock, held: its note written (messages), released once. */
function taken(path: string, db: DatabaseSync): Lock {
  const key = keyOf(path)!
  heldHere.add(key)
  const left = readNote(path)
  replaceFile(noteOf(path), JSON.stringify({pid: process.pid, host: hostname(), since: new Date().toISOString()}))
  let released = false
  return {
    left,
    release() {
      if (released) return
      released = true
      heldHere.delete(key)
      rmSync(noteOf(path), {force: true})
      // Removed while held (POSIX): a taker waiting on this file sees it gone and locks the new one.
      // Windows cannot remove a file SQLite has open: removed after, which fails while another has it open.
      const windows = process.platform === 'win32'
      if (!windows) rmSync(path, {force: true})
      try {
        db.exec('ROLLBACK')
      } catch {
        // Never begun (closed already by a failing disk): the system lets go as it closes.
      }
      db.close()
      if (windows)
        try {
          rmSync(path)
        } catch {
          // Open in another process, which takes it next.
        }
    },
  }
}

/** Whether a process holds the lock at `path` now (false when there is no such file): asked, never taken. */
export function isHeld(path: string): boolean {
  if (!lstatSync(path, {throwIfNoEntry: false})) return false
  if (heldInThisProcess(path)) return true
  let db: DatabaseSync
  try {
    db = openDatabase(path, {readOnly: true})
  } catch {
    return false
  }
  try {
    db.exec('PRAGMA busy_timeout = 0')
    // A read needs a shared lock, which a holder's exclusive one refuses.
    db.prepare('SELECT count(*) FROM sqlite_master').get()
    return false
  } catch (error) {
    const code = sqliteCode(error)
    if (code === BUSY) return true
    if (code === NOTADB) return false
    throw error
  } finally {
    db.close()
  }
}

/** Removes a lock file no process holds (its holder ended), and its note. */
export function removeIfFree(path: string): void {
  if (isHeld(path)) return
  rmSync(noteOf(path), {force: true})
  rmSync(path, {force: true})
}

/**
 * The lock of a run that sends money, or a usage error (exit 2) naming who holds it: `held` says
 * what is under way ("This batch is being run"), `advice` what to do.
 */
export function lockOrRefuse(path: string, held: string, advice: string): Lock {
  try {
    return holdLock(path)
  } catch (error) {
    if (!(error instanceof LockHeld)) throw error
    const holder = error.holder
      ? `process ${error.holder.pid} on ${error.holder.host} (since ${error.holder.since})`
      : 'another process'
    throw new GwError('usage', `${held} by ${holder}: ${error.path} is held. Nothing was sent.`, {
      advice,
      details: {lock: error.path, holder: error.holder},
    })
  }
}
