import {type ChildProcess, execFileSync, spawn} from 'node:child_process'
import {chownSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {GwError} from '../../../src/lib/errors.js'
import {LockHeld, holdLock, isHeld} from '../../../src/lib/io/lock.js'
import {removeDir, tempDir} from '../../helpers/shared.js'

const dir = tempDir('gw-lock-unit-')
afterAll(() => removeDir(dir))

/**
 * Another process holding the lock at `path` as gw does (an exclusive SQLite transaction, its note
 * beside), until it is killed or `lifeMs` has passed (it ends without letting go): resolves once it holds it.
 */
async function holder(path: string, lifeMs = 60_000): Promise<ChildProcess> {
  const script = `
    const {DatabaseSync} = require('node:sqlite')
    const db = new DatabaseSync(${JSON.stringify(path)})
    db.exec('PRAGMA journal_mode = MEMORY'); db.exec('BEGIN EXCLUSIVE')
    require('node:fs').writeFileSync(${JSON.stringify(`${path}.holder`)}, JSON.stringify({pid: process.pid, host: 'there', since: 'now'}))
    process.stdout.write('held\\n'); setTimeout(() => process.exit(0), ${lifeMs})`
  const child = spawn(process.execPath, ['--no-warnings', '-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
  return child
}
const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })

describe('a lock the system holds', () => {
  it('is refused while another process holds it, naming it as its note says; free once that process is killed', async () => {
    const path = join(dir, 'batch.lock')
    const other = await holder(path)
    expect(isHeld(path)).toBe(true)
    expect(() => holdLock(path)).toThrow(new LockHeld(path, {pid: other.pid!, host: 'there', since: 'now'}))
    await killed(other)
    expect(isHeld(path)).toBe(false)
    const lock = holdLock(path)
    // The note the killed holder left is said, never taken for a holder.
    expect(lock.left).toEqual({pid: other.pid, host: 'there', since: 'now'})
    expect(JSON.parse(readFileSync(`${path}.holder`, 'utf8'))).toMatchObject({pid: process.pid, host: hostname()})
    lock.release()
    expect([existsSync(path), existsSync(`${path}.holder`)]).toEqual([false, false])
  })

  it('waits for a holder that lets go within the wait', async () => {
    const path = join(dir, 'waited.lock')
    await holder(path, 300)
    const lock = holdLock(path, {waitMs: 10_000})
    expect(lock.left).toMatchObject({host: 'there'})
    lock.release()
  })

  it('is held against the same process too, and never opened again while held', () => {
    const path = join(dir, 'here.lock')
    const lock = holdLock(path)
    expect(() => holdLock(path)).toThrow(LockHeld)
    expect(isHeld(path)).toBe(true)
    lock.release()
    expect(isHeld(path)).toBe(false)
    holdLock(path).release()
  })

  it('in a file an earlier gw or anyone wrote (naming pid 1, or this very pid): taken, what it says kept as a note only', () => {
    for (const pid of [1, process.pid]) {
      const path = join(dir, `planted-${pid}.lock`)
      writeFileSync(path, JSON.stringify({pid, host: hostname(), started_at: '2026-01-01T00:00:00.000Z'}))
      const lock = holdLock(path)
      expect(lock.left).toEqual({pid, host: hostname(), since: '2026-01-01T00:00:00.000Z'})
      lock.release()
    }
    const garbage = join(dir, 'garbage.lock')
    writeFileSync(garbage, 'not a lock of anyone\n')
    holdLock(garbage).release()
  })

  it.skipIf(process.getuid?.() !== 0)('of another user is refused, naming it: exit 2', () => {
    const path = join(dir, 'theirs.lock')
    writeFileSync(path, '')
    chownSync(path, 65534, 65534)
    let refused: unknown
    try {
      holdLock(path)
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(GwError)
    expect((refused as GwError).exitCode).toBe(2)
    expect((refused as GwError).message).toMatch(/theirs\.lock is not used: it belongs to another user \(uid 65534\)/)
    execFileSync('rm', [path])
  })
})
