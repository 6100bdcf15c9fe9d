/**
 * What goes wrong with a local database, in gw's words: SQLite's and the system's errors said as
 * LocalStateErrors (held by another program, damaged, not writable), each with what to do, and
 * nothing of what was sent: the caller knows that. A damaged file is never replaced by an empty
 * one: it may hold refunds whose outcome gw must still settle.
 */
import {GwError, shellWord} from '../errors.js'

/** SQLite's primary result codes gw tells apart (the low byte of an extended code). */
const SQLITE = {
  ERROR: 1,
  PERM: 3,
  BUSY: 5,
  LOCKED: 6,
  READONLY: 8,
  IOERR: 10,
  CORRUPT: 11,
  FULL: 13,
  CANTOPEN: 14,
  AUTH: 23,
}
const NOTADB = 26

/** Why the local database could not be used: held by another program, damaged, or not writable (a full disk too). */
type LocalStateProblem = 'busy' | 'damaged' | 'unwritable'

/** The local database could not be read or written: exit 2 before anything is sent; callers after a send say more. */
export class LocalStateError extends GwError {
  constructor(
    readonly problem: LocalStateProblem,
    message: string,
    readonly options: {advice: string; details: Record<string, unknown>; cause?: unknown},
  ) {
    super('usage', message, options)
  }

  /** The same, said by a caller that knows no request left. */
  nothingSent(): LocalStateError {
    return new LocalStateError(this.problem, `${this.message} Nothing was sent.`, this.options)
  }
}

/** The SQLite result code of an error of node:sqlite (its primary code), or undefined for any other error. */
export function sqliteCode(error: unknown): number | undefined {
  const {code, errcode} = (error ?? {}) as {code?: string; errcode?: number}
  return code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' ? errcode & 0xff : undefined
}

/** The database at `path` is not one gw can read (`withLog`: a write-ahead log lies beside it): kept, with how to move it aside and recover it. */
export function damagedDatabase(path: string, why: string, cause: unknown, withLog = false): LocalStateError {
  const file = shellWord(path)
  const aside = shellWord(`${path}.damaged`)
  const move = withLog
    ? `Move it and its log aside together (mv ${file} ${aside} && mv ${shellWord(`${path}-wal`)} ${shellWord(`${path}.damaged-wal`)}), then gw starts a new one; the log may hold what it recorded: sqlite3 ${aside} .recover | sqlite3 recovered.db`
    : `Move it aside (mv ${file} ${aside}), then gw starts a new one; recover what it held with: sqlite3 ${aside} .recover | sqlite3 recovered.db`
  return new LocalStateError('damaged', `${path} is not a readable gw database: ${why}.`, {
    advice: `It may hold refunds whose outcome gw must still settle: keep it. ${move}`,
    details: {database: path},
    cause,
  })
}

/**
 * An error of the database at `path`, said as gw's: held (naming `holders()`, after waiting
 * `waitMs`), damaged, full, or not writable; any other error as it is.
 */
export function databaseError(
  path: string,
  error: unknown,
  waitMs: number,
  holders: () => {who: string; holders: unknown[]},
): unknown {
  if (error instanceof GwError) return error
  const code = sqliteCode(error)
  const errno = (error as NodeJS.ErrnoException).code
  const cause = (error as Error).message
  if (code === SQLITE.BUSY || code === SQLITE.LOCKED) {
    const held = holders()
    const waited = waitMs ? `; gw waited ${waitMs / 1000} s` : ''
    return new LocalStateError('busy', `${path} is held by ${held.who}${waited}.`, {
      advice: 'Close that program or wait for it to finish, then run this again.',
      details: {database: path, holders: held.holders},
      cause: error,
    })
  }
  if (code === NOTADB || code === SQLITE.CORRUPT) return damagedDatabase(path, cause, error)
  // A database whose tables are not gw's (another program's file put in its place).
  if (code === SQLITE.ERROR && /^no such (table|column)/.test(cause))
    return damagedDatabase(path, `its tables are not gw's (${cause})`, error)
  if (code === SQLITE.FULL || errno === 'ENOSPC')
    return new LocalStateError('unwritable', `${path} cannot be written: the disk is full (${cause}).`, {
      advice: 'Make room on the disk, then run this again.',
      details: {database: path},
      cause: error,
    })
  if (
    [SQLITE.CANTOPEN, SQLITE.READONLY, SQLITE.PERM, SQLITE.IOERR, SQLITE.AUTH].includes(code ?? -1) ||
    errno === 'EACCES' ||
    errno === 'EPERM' ||
    errno === 'EROFS'
  ) {
    return new LocalStateError('unwritable', `${path} cannot be opened or written (${cause}).`, {
      advice: 'Check that the file and its folder belong to you and can be written, and that the disk is not full.',
      details: {database: path},
      cause: error,
    })
  }
  return error
}
