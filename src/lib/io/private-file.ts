/**
 * Files only their owner may read: folders 0700, files 0600, written whole or not at all
 * (a temporary file renamed into place). The temporary file has an unpredictable name and
 * is created exclusively (O_EXCL), so a file or symlink planted in advance is never written
 * through. Shared by everything that keeps keys or state and by the reports gw writes.
 */
import {randomBytes} from 'node:crypto'
import {
  type Stats,
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import {localWriteFailure, shellWord, usageError} from '../errors.js'

/**
 * A new temporary file beside `path`, to be renamed into its place: hidden, unpredictable, 0600
 * and created exclusively. A folder gone or a disk full is said as that (exit 5), naming `path`.
 */
export function temporaryBeside(path: string): {temporary: string; fd: number} {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`)
  try {
    return {temporary, fd: openSync(temporary, 'wx', 0o600)}
  } catch (error) {
    throw localWriteFailure(error, {writing: true, file: path}) ?? error
  }
}

/** Writes every byte (a write may take only part of them) or throws, as on a full disk. */
export function writeFully(fd: number, content: string | Buffer): void {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at)
}

/** The mode of a file or folder as `ls` and `chmod` write it: 0755, 1777. */
const modeText = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0')

/**
 * A folder gw keeps state in, as OpenSSH's StrictModes has it: made 0700 when it is not there,
 * refused when it is not the user's alone (see refuseSharedFolder); one of yours that others can
 * only read is made 0700.
 */
export function ensurePrivateDir(path: string, elsewhere?: string): string {
  mkdirSync(path, {recursive: true, mode: 0o700})
  const folder = refuseSharedFolder(path, elsewhere)
  if (folder && folder.mode & 0o077) chmodSync(path, 0o700)
  return path
}

/**
 * A folder gw reads state from, refused (exit 2, nothing read from it, nothing sent) when another
 * user owns it or others can write it: anyone who can write a folder can put a file in it under a
 * name gw opens (a history.db-wal SQLite would replay, a journal, a lock). `elsewhere`: where
 * else the user can keep it, in the advice. Its stats, or undefined where owners and modes are not
 * the system's (Windows: there a folder under the user's profile is the user's).
 */
export function refuseSharedFolder(path: string, elsewhere?: string): Stats | undefined {
  const uid = process.getuid?.()
  if (uid === undefined) return undefined
  // Followed through a link (a dotfile manager's): the folder it is must be this user's.
  const folder = statSync(path)
  const instead = elsewhere ? `, or ${elsewhere}` : ''
  if (folder.uid !== uid)
    throw usageError(
      `${path} belongs to another user (uid ${folder.uid}), not to you (uid ${uid}): gw keeps its state only in folders of yours, and reads nothing from this one. Nothing was sent.`,
      `Use a folder of your own${instead}.`,
      {folder: path, owner: folder.uid},
    )
  if (folder.mode & 0o022) {
    const mode = modeText(folder.mode)
    throw usageError(
      `${path} can be written by other users (mode ${mode}): anyone who can write it can put a file there under a name gw opens, so gw reads nothing from it. Nothing was sent.`,
      `Make it yours alone: chmod 700 ${shellWord(path)}, then check that every file in it is yours (ls -la ${shellWord(path)})${instead}.`,
      {folder: path, mode, wanted: '0700'},
    )
  }
  return folder
}

/**
 * Why a file gw would open as its own state is not one this user's gw wrote, or undefined when it
 * may be: not a plain file (a link, a pipe, a folder), another user's, or writable by others. Its
 * folder is checked apart (ensurePrivateDir). Such a file is evidence of nothing and is never read
 * as gw's. (Owners and modes are not Windows'.)
 */
export function notOurs(file: Stats): string | undefined {
  if (!file.isFile()) return 'it is not a file gw wrote (a link, a pipe or a folder)'
  const uid = process.getuid?.()
  if (uid === undefined) return undefined
  if (file.uid !== uid) return `it belongs to another user (uid ${file.uid}), not to you (uid ${uid})`
  if (file.mode & 0o022) return `other users can write it (mode ${modeText(file.mode)})`
  return undefined
}

/** Writes a file only its owner can read (0600), atomically: readers see the old or the new file. */
export function writePrivateFile(path: string, content: string): void {
  ensurePrivateDir(dirname(path))
  replaceFile(path, content)
}

/** The same in a folder whose mode is its owner's to set (a journal's, beside the user's files): 0600, atomically. */
export function replaceFile(path: string, content: string): void {
  const {temporary, fd} = temporaryBeside(path)
  try {
    try {
      writeFully(fd, content)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
  } catch (error) {
    // Nothing half-written is left beside it (a full disk fails the write, not the open).
    rmSync(temporary, {force: true})
    throw localWriteFailure(error, {file: path}) ?? error
  }
}
