import {closeSync, openSync, renameSync, writeFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {readFileSync} from 'node:fs'

import {
  EXIT_CODES,
  gravest,
  localWriteFailure,
  outcomeOfSignal,
  stopSignalOf,
  stoppedError,
} from '../../src/lib/errors.js'
import {HAS_SHARED, REPO_ROOT, SHARED_DIR, removeDir, tempDir} from '../helpers/shared.js'

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
      expect(said?.exitCode).toBe(EXIT_CODES.unknown)
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
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => EXIT_CODES[outcomeOfSignal(s)])).toEqual([130, 143, 129])
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => stoppedError(s, 'stopped', 'again').exitCode)).toEqual([
      130, 143, 129,
    ])
  })

  it('is taken for Ctrl-C when an abort names no stop signal', () => {
    expect([undefined, 'SIGKILL', new Error('x')].map(stopSignalOf)).toEqual(['SIGINT', 'SIGINT', 'SIGINT'])
    expect(stopSignalOf('SIGHUP')).toBe('SIGHUP')
  })
})

/** A markdown table's rows as [code, meaning], codes split where one row names two (`130 / 143`). */
function exitTable(markdown: string): Map<number, string> {
  const table = /\| code \| *meaning *\|\n\|[-| ]+\|\n((?:\|.*\|\n)+)/.exec(markdown)![1]!
  const rows = table
    .trim()
    .split('\n')
    .map((row) => row.split('|').map((cell) => cell.trim()))
  return new Map(
    rows.flatMap(([, codes, meaning]) => codes!.split('/').map((code) => [Number(code), meaning!] as const)),
  )
}

describe('the one table of exit codes', () => {
  it('gives every outcome its code, as docs/conventions.md says them, and the shared contract where it is at hand', () => {
    expect(EXIT_CODES).toEqual({
      done: 0,
      refused: 1,
      usage: 2,
      transport: 3,
      signature: 4,
      unknown: 5,
      not_confirmable: 6,
      hung_up: 129,
      interrupted: 130,
      terminated: 143,
    })
    const guide = exitTable(readFileSync(`${REPO_ROOT}/docs/conventions.md`, 'utf8'))
    expect([...guide.keys()].sort((a, b) => a - b)).toEqual(Object.values(EXIT_CODES).sort((a, b) => a - b))
    expect(guide.get(6)).toMatch(/not confirmable/)
    if (!HAS_SHARED) return
    const design = exitTable(readFileSync(`${SHARED_DIR}/DESIGN.md`, 'utf8'))
    // The shared contract names the outcomes it fixes (129, SIGHUP, is gw's own): each is the table's.
    for (const [code, meaning] of design) {
      expect(Object.values(EXIT_CODES), meaning).toContain(code)
    }
    expect(design.get(6)).toMatch(/not_confirmable/)
  })

  it('of several outcomes, ends with the gravest', () => {
    expect(gravest([])).toBe('done')
    expect(gravest(['done', 'transport', 'refused'])).toBe('transport')
    expect(gravest(['transport', 'signature'])).toBe('signature')
  })
})
