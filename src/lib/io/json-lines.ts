/**
 * Files of JSON lines, one record a line, as gw keeps them: the history's spill file
 * (history.jsonl), the bulk journal, the listener's and the sandbox's logs. One way to read them
 * (in chunks, a line's length bounded: neither a million lines nor one line of a gigabyte sits in
 * memory), one way to append a record that must be on disk (whole, synced, never through a link),
 * one way to write a log (a failed write said once), and one way to cut a last line a crash left
 * half written.
 */
import {
  appendFileSync,
  closeSync,
  constants as fsConstants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
} from 'node:fs'
import {StringDecoder} from 'node:string_decoder'

import {usageError} from '../errors.js'
import {writeFully} from './private-file.js'

/** A record is a few KiB at most: a line longer than this is not one of gw's, and is never held whole. */
export const MAX_LINE_BYTES = 64 * 1024

/**
 * Each line of a file with its number (from 1), read in chunks; a line longer than `maxBytes`
 * is given as undefined (its bytes skipped, never held). A last line with no new line after it
 * is given with `torn` (a write a crash cut short, or a file not written by lines). `progress` is
 * told the bytes read so far.
 */
export function forEachLine(
  path: string,
  onLine: (line: string | undefined, number: number, torn: boolean) => void,
  progress: (bytesRead: number, size: number) => void = () => {},
  maxBytes = MAX_LINE_BYTES,
): void {
  const fd = openSync(path, 'r')
  try {
    const {size} = fstatSync(fd)
    const chunk = Buffer.alloc(1 << 20)
    const decoder = new StringDecoder('utf8')
    let rest = ''
    /** The line being read is too long: its bytes are skipped up to its end. */
    let tooLong = false
    let number = 0
    let read = 0
    for (let got; (got = readSync(fd, chunk, 0, chunk.length, null)) > 0;) {
      read += got
      const lines = (rest + decoder.write(chunk.subarray(0, got))).split('\n')
      rest = lines.pop()!
      for (const line of lines) {
        onLine(tooLong || line.length > maxBytes ? undefined : line, ++number, false)
        tooLong = false
      }
      if (rest.length > maxBytes) {
        tooLong = true
        rest = ''
      }
      progress(read, size)
    }
    rest += decoder.end()
    if (rest || tooLong) onLine(tooLong || rest.length > maxBytes ? undefined : rest, ++number, true)
  } finally {
    closeSync(fd)
  }
}

/** O_NOFOLLOW where the system has it: a link in a file's place is refused (ELOOP), never written through. */
const NO_FOLLOW = fsConstants.O_NOFOLLOW ?? 0

/**
 * Appends lines to a file (0600), whole and synced before this returns: one write (O_APPEND), so
 * lines of two processes never interleave; after a write cut short (a full disk) the next line
 * starts on a line of its own. A link in the file's place is refused, never written through.
 * Throws what the system says (a full disk, ELOOP for a link).
 */
export function appendSynced(path: string, lines: readonly string[]): void {
  const {O_RDWR, O_APPEND, O_CREAT} = fsConstants
  const fd = openSync(path, O_RDWR | O_APPEND | O_CREAT | NO_FOLLOW, 0o600)
  try {
    const {size} = fstatSync(fd)
    const last = Buffer.alloc(1)
    const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a
    writeFully(fd, `${torn ? '\n' : ''}${lines.map((line) => `${line}\n`).join('')}`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** A file that does not end with a new line ends with a record cut short by a crash: it is cut off. */
export function cutTornTail(path: string): void {
  let fd: number
  try {
    fd = openSync(path, 'r+')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  try {
    const size = fstatSync(fd).size
    if (size === 0) return
    const tail = Buffer.alloc(Math.min(size, 64 * 1024))
    let end = size
    for (;;) {
      const start = Math.max(0, end - tail.length)
      const read = readSync(fd, tail, 0, end - start, start)
      const chunk = tail.subarray(0, read)
      if (end === size && chunk.at(-1) === 0x0a) return
      const newline = chunk.lastIndexOf(0x0a)
      if (newline !== -1) return ftruncateSync(fd, start + newline + 1)
      if (start === 0) return ftruncateSync(fd, 0)
      end = start
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * Opens a log to append to (0600), before anything is logged: a folder, a missing folder or a
 * file that may not be written is said at once (exit 2). `flag` names it in messages (--log).
 */
export function openLog(path: string, example: string, flag = '--log'): number {
  let fd: number
  try {
    // Non-blocking: a named pipe nobody reads fails at once (ENXIO) instead of hanging here.
    const {O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK} = fsConstants
    fd = openSync(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, 0o600)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? 'its folder does not exist'
        : code === 'EISDIR'
          ? 'it is a folder'
          : code === 'EACCES' || code === 'EPERM'
            ? 'it may not be written'
            : code === 'ENXIO'
              ? 'it is not a file (a pipe)'
              : `it cannot be opened (${code})`
    throw usageError(`${flag} ${path}: ${why}.`, `Give a file in a folder you can write, like ${example}.`)
  }
  const opened = fstatSync(fd)
  if (!opened.isFile() && !opened.isCharacterDevice()) {
    closeSync(fd)
    throw usageError(`${flag} ${path} is not a file.`, `Give a file, like ${example}.`)
  }
  return fd
}

/**
 * Appends JSON lines to a log opened by openLog; a write that fails (a full disk) is said once
 * through `onFailure` and nothing more is written.
 */
export function logLines(fd: number, onFailure: (error: NodeJS.ErrnoException) => void): (value: unknown) => void {
  let failed = false
  return (value) => {
    if (failed) return
    try {
      appendFileSync(fd, `${JSON.stringify(value)}\n`)
    } catch (error) {
      failed = true
      onFailure(error as NodeJS.ErrnoException)
    }
  }
}
