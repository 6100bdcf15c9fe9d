/**
 * An exclusive lock file: created with O_EXCL, holding the pid, host and start time of its
 * holder, removed on release. A lock left by a process of this host that no longer runs
 * (killed, crashed) is taken over; a live one is refused, or waited for up to `waitMs`.
 */
import {closeSync, openSync, readFileSync, statSync, unlinkSync} from 'node:fs'
import {hostname} from 'node:os'

import {GwError} from '../errors.js'
import {writeFully} from './private-file.js'

export interface LockHolder {
  pid: number
  host: string
  started_at: string
}

export class LockHeld extends Error {
  constructor(
    readonly path: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      `${path} is held by ${holder ? `process ${holder.pid} on ${holder.host} since ${holder.started_at}` : 'another process'}`,
    )
  }
}

export interface Lock {
  /** The holder whose lock was left behind and taken over, when that happened. */
  tookOver?: LockHolder
  release(): void
}

function readHolder(path: string): LockHolder | undefined | 'gone' {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone'
    throw error
  }
  try {
    const holder = JSON.parse(text) as LockHolder
    return typeof holder.pid === 'number' && typeof holder.host === 'string' ? holder : undefined
  } catch {
    // Being written by its creator at this very moment.
    return undefined
  }
}

/** A process of this host runs under that number (one of another user's counts as running). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const same = (a: LockHolder, b: LockHolder) => a.pid === b.pid && a.host === b.host && a.started_at === b.started_at

/** A blocking wait: lock files are taken by synchronous code (the profile store). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

export function acquireLock(path: string, options: {waitMs?: number} = {}): Lock {
  const mine: LockHolder = {pid: process.pid, host: hostname(), started_at: new Date().toISOString()}
  const deadline = Date.now() + (options.waitMs ?? 0)
  let tookOver: LockHolder | undefined
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      try {
        writeFully(fd, JSON.stringify(mine))
      } catch (error) {
        // Not left behind empty (a full disk), where every later taker would read it as held.
        closeSync(fd)
        unlinkSync(path)
        throw error
      }
      closeSync(fd)
      return {tookOver, release: () => release(path, mine)}
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const holder = readHolder(path)
    if (holder === 'gone') continue
    // Unreadable for longer than its writing takes: left by a process killed between creating and writing it.
    if (holder === undefined && leftUnwritten(path)) continue
    if (holder && holder.host === mine.host && !isRunning(holder.pid)) {
      // Left by a process that no longer runs: take it over, unless another taker was first.
      const again = readHolder(path)
      if (again !== 'gone' && again && same(again, holder)) unlinkSync(path)
      tookOver = holder
      continue
    }
    if (Date.now() >= deadline) throw new LockHeld(path, holder)
    pause(25)
  }
}

/**
 * The lock of a run that sends money, or a usage error (exit 2) naming who holds it: `held` says
 * what is under way ("This batch is being run"), `advice` what to do.
 */
export function lockOrRefuse(path: string, held: string, advice: string): Lock {
  try {
    return acquireLock(path)
  } catch (error) {
    if (!(error instanceof LockHeld)) throw error
    const holder = error.holder
      ? `process ${error.holder.pid} on ${error.holder.host} (since ${error.holder.started_at})`
      : 'another process'
    throw new GwError('usage', `${held} by ${holder}: ${error.path} is held. Nothing was sent.`, {
      advice,
      details: {lock: error.path, holder: error.holder},
    })
  }
}

/** How long a lock file may stay without a holder written in it before it counts as left behind. */
const UNWRITTEN_MS = 5000

/** Removes a lock file with no holder in it that is older than its writing could take; whether it did. */
function leftUnwritten(path: string): boolean {
  try {
    if (Date.now() - statSync(path).mtimeMs < UNWRITTEN_MS || readHolder(path) !== undefined) return false
    unlinkSync(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true
    throw error
  }
}

function release(path: string, mine: LockHolder): void {
  const holder = readHolder(path)
  if (holder !== 'gone' && holder && same(holder, mine)) unlinkSync(path)
}
