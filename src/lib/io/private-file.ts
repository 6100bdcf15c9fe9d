/**
 * Files only their owner may read: folders 0700, files 0600, written whole or not at all
 * (a temporary file renamed into place). Shared by everything that keeps keys or state:
 * the profile store, reports, and the sandbox's data dir.
 */
import {chmodSync, mkdirSync, renameSync, writeFileSync} from 'node:fs'
import {dirname} from 'node:path'

/** A folder only its owner can read (0700). */
export function ensurePrivateDir(path: string): string {
  mkdirSync(path, {recursive: true, mode: 0o700})
  chmodSync(path, 0o700)
  return path
}

/** Writes a file only its owner can read (0600), atomically: readers see the old or the new file. */
export function writePrivateFile(path: string, content: string): void {
  ensurePrivateDir(dirname(path))
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, content, {mode: 0o600})
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
}
