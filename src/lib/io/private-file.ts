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

import {localWriteFailure} from '../errors.js'

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

/** A folder only its owner can read (0700). */
export function ensurePrivateDir(path: string): string {
  mkdirSync(path, {recursive: true, mode: 0o700})
  chmodSync(path, 0o700)
  return path
}

/**
 * Why a file in one of gw's folders is not one this user's gw wrote, or undefined when it may
 * be: not a plain file, another user's, or in a folder others can write (where another user
 * could have put it), unless the folder is `sharedFolder`. Such a file is evidence of nothing and
 * is never read as gw's. (Owners and modes are not Windows'.)
 */
export function notOurs(path: string, file: Stats, {sharedFolder = false} = {}): string | undefined {
  if (!file.isFile()) return 'it is not a file gw wrote (a link, a pipe or a folder)'
  const uid = process.getuid?.()
  if (uid === undefined) return undefined
  if (file.uid !== uid) return `it belongs to another user (uid ${file.uid}), not to you (uid ${uid})`
  // A folder shared with others (finance's, beside their files) can hold only their own files
  // under their names: a file of yours there is still yours.
  if (sharedFolder) return undefined
  const folder = statSync(dirname(path))
  if (folder.mode & 0o022 || folder.uid !== uid)
    return `its folder ${dirname(path)} can be written by other users, who could have put it there`
  return undefined
}

/** Writes a file only its owner can read (0600), atomically: readers see the old or the new file. */
export function writePrivateFile(path: string, content: string): void {
  ensurePrivateDir(dirname(path))
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
