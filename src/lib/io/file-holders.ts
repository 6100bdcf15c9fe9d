/**
 * Which processes hold a lock on a file right now, as the operating system knows it: on Linux,
 * `/proc/locks` lists every POSIX lock with its process and the file's inode, which is how SQLite
 * locks a database (and its WAL index). So a command kept waiting can name the program that
 * really holds gw's database (a `sqlite3` shell, a backup tool), never a gw that wrote to it
 * earlier and has ended. Elsewhere (macOS, Windows) nothing is known: callers say "another program".
 */
import {readFileSync, statSync} from 'node:fs'

import {shown} from '../untrusted.js'

interface FileHolder {
  pid: number
  /** Its command line as the system shows it, made safe to print (another program's words). */
  command: string
}

/** `major:minor:inode` as /proc/locks writes a file (the device's numbers in hex). */
function lockKey(path: string): string | undefined {
  try {
    const {dev, ino} = statSync(path)
    const major = (dev >> 8) & 0xfff
    const minor = (dev & 0xff) | ((dev >> 12) & 0xfff00)
    return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${ino}`
  } catch {
    return undefined
  }
}

function commandOf(pid: number): string {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    return shown(words.join(' '), 100)
  } catch {
    return ''
  }
}

/** Other processes holding a lock on any of `paths`, each once; empty where the system does not say. */
export function fileHolders(paths: readonly string[]): FileHolder[] {
  if (process.platform !== 'linux') return []
  const keys = new Set(paths.map(lockKey).filter((key): key is string => key !== undefined))
  if (!keys.size) return []
  let table: string
  try {
    table = readFileSync('/proc/locks', 'utf8')
  } catch {
    return []
  }
  const pids = new Set<number>()
  for (const line of table.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 4242 fe:01:123456 0 EOF" (a waiting lock's line starts "1: -> ").
    const fields = line.replace(/^\d+:\s+(->\s+)?/, '').split(/\s+/)
    const pid = Number(fields[3])
    if (fields[0] === 'POSIX' && keys.has(fields[4] ?? '') && pid > 0 && pid !== process.pid) pids.add(pid)
  }
  return [...pids].map((pid) => ({pid, command: commandOf(pid)}))
}
