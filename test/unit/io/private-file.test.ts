import {closeSync, readFileSync, readdirSync, statSync} from 'node:fs'
import {basename, join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {GwError} from '../../../src/lib/errors.js'
import {temporaryBeside, writePrivateFile} from '../../../src/lib/io/private-file.js'
import {removeDir, tempDir} from '../../helpers/shared.js'

const dir = tempDir('gw-private-file-unit-')
afterAll(() => removeDir(dir))

describe('a file only its owner may read', () => {
  it('is written whole, 0600, through a temporary file that leaves nothing behind', () => {
    const path = join(dir, 'kept', 'profiles.json')
    writePrivateFile(path, '{"a": 1}\n')
    writePrivateFile(path, '{"a": 2}\n')
    expect(readFileSync(path, 'utf8')).toBe('{"a": 2}\n')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'kept')).mode & 0o777).toBe(0o700)
    expect(readdirSync(join(dir, 'kept'))).toEqual(['profiles.json'])
  })

  it('writes first to a new temporary file beside it: hidden, unpredictable, 0600', () => {
    const opened = Array.from({length: 20}, () => temporaryBeside(join(dir, 'report.csv')))
    opened.forEach(({fd}) => closeSync(fd))
    expect(new Set(opened.map((o) => o.temporary)).size).toBe(20)
    for (const {temporary} of opened) {
      expect(basename(temporary)).toMatch(/^\.report\.csv\.[0-9a-f]{16}\.tmp$/)
      expect(statSync(temporary).mode & 0o777).toBe(0o600)
    }
  })

  it('in a folder that is gone, is said as that, naming the file asked for, exit 5', () => {
    const asked = join(dir, 'gone', 'refunds.report.csv')
    let thrown: unknown
    try {
      temporaryBeside(asked)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(GwError)
    expect((thrown as GwError).exitCode).toBe(5)
    expect((thrown as GwError).message).toBe(`${asked} could not be written: its folder is gone (ENOENT).`)
  })
})
