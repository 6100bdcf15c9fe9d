import {closeSync, openSync, renameSync, writeFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {ExitCode, exitCodeOfSignal, localWriteFailure, stopSignalOf, stoppedError} from '../../src/lib/errors.js'
import {removeDir, tempDir} from '../helpers/shared.js'

const dir = tempDir('gw-errors-unit-')
afterAll(() => removeDir(dir))

/** The error a real system call throws. */
function thrownBy(work: () => void): unknown {
  try {
    work()
  } catch (error) {
    return error
  }
  throw new Error('it did not fail')
}

describe('a write the machine refuses', () => {
  it('a full disk is said as that, exit 5, with what to do', () => {
    const full = openSync('/dev/full', 'w')
    try {
      const said = localWriteFailure(thrownBy(() => writeSync(full, 'a row\n')))
      expect(said?.exitCode).toBe(ExitCode.Unknown)
      expect(said?.message).toBe('A file could not be written: the disk is full (ENOSPC).')
      expect(said?.advice).toMatch(/Make room .* run the same command again/)
    } finally {
      closeSync(full)
    }
  })

  it('an output put in place in a folder removed meanwhile names that output', () => {
    const temp = join(dir, 'out.csv.tmp')
    writeFileSync(temp, 'x')
    const said = localWriteFailure(thrownBy(() => renameSync(temp, join(dir, 'gone', 'out.csv'))))
    expect(said?.message).toBe(`${join(dir, 'gone', 'out.csv')} could not be written: its folder is gone (ENOENT).`)
  })

  it('any other failure is not one (reading a file that is not there, a plain error)', () => {
    expect(localWriteFailure(thrownBy(() => openSync(join(dir, 'missing.csv'), 'r')))).toBeUndefined()
    expect(localWriteFailure(new Error('boom'))).toBeUndefined()
    expect(localWriteFailure(undefined)).toBeUndefined()
  })
})

describe('a signal that stops the work', () => {
  it('ends with the exit code of its kind: 130 for Ctrl-C, 143 for SIGTERM, 129 for a closed terminal', () => {
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map(exitCodeOfSignal)).toEqual([130, 143, 129])
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => stoppedError(s, 'stopped', 'again').exitCode)).toEqual([
      130, 143, 129,
    ])
  })

  it('is taken for Ctrl-C when an abort names no stop signal', () => {
    expect([undefined, 'SIGKILL', new Error('x')].map(stopSignalOf)).toEqual(['SIGINT', 'SIGINT', 'SIGINT'])
    expect(stopSignalOf('SIGHUP')).toBe('SIGHUP')
  })
})
