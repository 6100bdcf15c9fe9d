import {existsSync, readFileSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {LockHeld, acquireLock} from '../../../src/lib/io/lock.js'
import {removeDir, tempDir} from '../../helpers/shared.js'

const dir = tempDir('gw-lock-unit-')
afterAll(() => removeDir(dir))

describe('a lock file', () => {
  it('left empty by a process killed between creating and writing it is taken over once it is old', () => {
    const path = join(dir, 'batch.lock')
    writeFileSync(path, '')
    const old = new Date(Date.now() - 60_000)
    utimesSync(path, old, old)
    const lock = acquireLock(path)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({pid: process.pid})
    lock.release()
    expect(existsSync(path)).toBe(false)
  })

  it('being written (empty, just made) is held: never taken from under its writer', () => {
    const path = join(dir, 'fresh.lock')
    writeFileSync(path, '')
    expect(() => acquireLock(path)).toThrow(LockHeld)
    expect(readFileSync(path, 'utf8')).toBe('')
  })
})
