import {chmodSync, chownSync, closeSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {basename, join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {GwError} from '../../../src/lib/errors.js'
import {ensurePrivateDir, notOurs, temporaryBeside, writePrivateFile} from '../../../src/lib/io/private-file.js'
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

/** What `work` threw, a GwError. */
function refusal(work: () => unknown): GwError {
  try {
    work()
  } catch (error) {
    if (error instanceof GwError) return error
    throw error
  }
  throw new Error('nothing was refused')
}

describe.skipIf(process.getuid === undefined)('a folder gw keeps state in (StrictModes)', () => {
  it('that others can write is refused, exit 2, naming it, its mode and the mode to set; its mode left as it was', () => {
    for (const mode of [0o777, 0o1777, 0o770, 0o720]) {
      const folder = join(dir, `open-${mode.toString(8)}`)
      mkdirSync(folder)
      chmodSync(folder, mode)
      const refused = refusal(() => ensurePrivateDir(folder, 'set GW_CONFIG_DIR to a folder of your own'))
      expect(refused.exitCode).toBe(2)
      expect(refused.message).toBe(
        `${folder} can be written by other users (mode ${mode.toString(8).padStart(4, '0')}): anyone who can write it can put a file there under a name gw opens, so gw reads nothing from it. Nothing was sent.`,
      )
      expect(refused.advice).toBe(
        `Make it yours alone: chmod 700 ${folder}, then check that every file in it is yours (ls -la ${folder}), or set GW_CONFIG_DIR to a folder of your own.`,
      )
      expect(statSync(folder).mode & 0o7777).toBe(mode)
    }
  })

  it.skipIf(process.getuid?.() !== 0)('of another user is refused, whatever its mode', () => {
    const folder = join(dir, 'theirs')
    mkdirSync(folder, {mode: 0o700})
    chownSync(folder, 65534, 65534)
    const refused = refusal(() => ensurePrivateDir(folder))
    expect(refused.exitCode).toBe(2)
    expect(refused.message).toMatch(/theirs belongs to another user \(uid 65534\), not to you \(uid 0\)/)
  })

  it('of yours that others can only read is made 0700; a new one is made 0700', () => {
    const folder = join(dir, 'readable')
    mkdirSync(folder, {mode: 0o755})
    chmodSync(folder, 0o755)
    ensurePrivateDir(folder)
    expect(statSync(folder).mode & 0o777).toBe(0o700)
    ensurePrivateDir(join(dir, 'new', 'deeper'))
    expect(statSync(join(dir, 'new', 'deeper')).mode & 0o777).toBe(0o700)
  })

  it('a file in it that others can write, or that is no plain file, is not ours', () => {
    const file = join(dir, 'state.json')
    writeFileSync(file, '{}')
    chmodSync(file, 0o600)
    expect(notOurs(statSync(file))).toBeUndefined()
    chmodSync(file, 0o622)
    expect(notOurs(statSync(file))).toBe('other users can write it (mode 0622)')
    expect(notOurs(statSync(dir))).toBe('it is not a file gw wrote (a link, a pipe or a folder)')
  })
})
