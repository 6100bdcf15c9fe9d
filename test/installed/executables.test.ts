/**
 * The four executables of `npm run build:binary -- --all`, and this machine's of `npm run
 * build:binary` (npm run test:installed builds them into GW_TEST_BUILD): each is its platform's format for its processor, unsigned and so ready for
 * codesign or signtool, carries this build's bundle, and says which system and Node it is. The
 * ones this machine can run say it themselves: linux-x64 natively, linux-arm64 under qemu-user,
 * win-x64 under wine.
 */
import {spawnSync} from 'node:child_process'
import {closeSync, existsSync, openSync, readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'

const build = process.env.GW_TEST_BUILD ?? join(REPO_ROOT, 'build')
const scratch = tempDir('gw-executables-')
afterAll(() => removeDir(scratch))

const {version} = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string}
const main = readFileSync(join(REPO_ROOT, 'dist', 'main.js'), 'utf8')

interface Format {
  format: 'ELF' | 'PE' | 'Mach-O'
  machine: string
  /** A code signature (Authenticode, Mach-O's) that the injection would have broken. */
  signed: boolean
  /** Where the blob is, as Node looks for it. */
  blob: string | undefined
}

const ELF_MACHINES: Record<number, string> = {62: 'x86-64', 183: 'arm64'}

function formatOf(binary: Buffer): Format {
  if (binary.toString('latin1', 0, 4) === '\x7fELF')
    return {format: 'ELF', machine: ELF_MACHINES[binary.readUInt16LE(18)] ?? '?', signed: false, blob: undefined}
  if (binary.toString('latin1', 0, 2) === 'MZ') {
    const pe = binary.readUInt32LE(0x3c)
    expect(binary.toString('latin1', pe, pe + 4)).toBe('PE\0\0')
    const optional = pe + 24
    return {
      format: 'PE',
      machine: binary.readUInt16LE(pe + 4) === 0x8664 ? 'x86-64' : '?',
      // Data directory 4: the certificate table.
      signed: binary.readUInt32LE(optional + 112 + 4 * 8) !== 0,
      blob: binary.includes(Buffer.from('NODE_SEA_BLOB', 'utf16le')) ? 'resource NODE_SEA_BLOB' : undefined,
    }
  }
  expect(binary.readUInt32LE(0)).toBe(0xfeedfacf)
  let signed = false
  let blob: string | undefined
  for (let i = 0, at = 32; i < binary.readUInt32LE(16); i++, at += binary.readUInt32LE(at + 4)) {
    const command = binary.readUInt32LE(at)
    if (command === 0x1d) signed = true
    const name = (from: number) => binary.toString('latin1', from, from + 16).replace(/\0+$/, '')
    // LC_SEGMENT_64, its sections after its 72 bytes, 80 each.
    if (command === 0x19 && name(at + 8) === 'NODE_SEA') blob = `segment NODE_SEA, section ${name(at + 72)}`
  }
  return {format: 'Mach-O', machine: binary.readUInt32LE(4) === 0x01000007 ? 'x86-64' : '?', signed, blob}
}

const EXECUTABLES = {
  'gw-linux-x64': {format: 'ELF', machine: 'x86-64', signed: false, blob: undefined},
  'gw-linux-arm64': {format: 'ELF', machine: 'arm64', signed: false, blob: undefined},
  'gw-win-x64.exe': {format: 'PE', machine: 'x86-64', signed: false, blob: 'resource NODE_SEA_BLOB'},
  'gw-darwin-x64': {
    format: 'Mach-O',
    machine: 'x86-64',
    signed: false,
    blob: 'segment NODE_SEA, section __NODE_SEA_BLOB',
  },
} satisfies Record<string, Format>

/** The build each executable's launcher names (the hash of the bundle it carries). */
const builds = new Map<string, string | undefined>()

describe('npm run build:binary -- --all', () => {
  it.each(Object.entries(EXECUTABLES))(
    '%s is its platform and processor, unsigned, with this bundle inside',
    (file, expected) => {
      const binary = readFileSync(join(build, file))
      expect(formatOf(binary)).toEqual(expected)
      // Node runs the blob only when the fuse is blown; the blob holds the launcher and the bundle of this build.
      expect(binary.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1')).toBe(true)
      expect(binary.includes(`"dist/main.js":${JSON.stringify(main)}`)).toBe(true)
      builds.set(file, /const BUILD = '([^']+)'/.exec(binary.toString('latin1'))?.[1])
    },
  )

  it("npm run build:binary alone writes this machine's as gw: the same as --all's for linux-x64", () => {
    expect(readFileSync(join(build, 'gw')).equals(readFileSync(join(build, 'gw-linux-x64')))).toBe(true)
  })

  it('put one blob in all four: the same build of gw', () => {
    expect(builds.size).toBe(4)
    expect(new Set(builds.values())).toEqual(new Set([expect.stringMatching(new RegExp(`^${version}-[0-9a-f]{12}$`))]))
  })

  const versionLine = (platform: string) => `gw/${version} ${platform} node-v${process.versions.node}\n`
  const env = {...process.env, PATH: join(scratch, 'no-node'), GW_BINARY_CACHE: join(scratch, 'cache')}

  it('linux-x64 says so, with no node on PATH', () => {
    const shown = spawnSync(join(build, 'gw-linux-x64'), ['--version'], {env, encoding: 'utf8'})
    expect(shown.stdout).toBe(versionLine('linux-x64'))
  })

  it('linux-arm64 says so, under qemu-user', () => {
    const [qemu, ...args] = JSON.parse(process.env.GW_TEST_QEMU!) as string[]
    const shown = spawnSync(qemu!, [...args, join(build, 'gw-linux-arm64'), '--version'], {env, encoding: 'utf8'})
    expect(shown.stdout).toBe(versionLine('linux-arm64'))
  })

  it('win-x64 says so under wine, unpacked in %LOCALAPPDATA%\\gw\\Cache', () => {
    const output = join(scratch, 'win.out')
    const fd = openSync(output, 'w')
    spawnSync(process.env.GW_TEST_WINE!, [join(build, 'gw-win-x64.exe'), '--version'], {
      env: {...env, GW_BINARY_CACHE: undefined},
      stdio: ['ignore', fd, fd],
    })
    closeSync(fd)
    expect(readFileSync(output, 'utf8').replaceAll('\r\n', '\n')).toBe(versionLine('win32-x64'))
    const users = join(process.env.WINEPREFIX!, 'drive_c', 'users')
    const unpacked = readdirSync(users).map((user) =>
      join(users, user, 'AppData', 'Local', 'gw', 'Cache', builds.get('gw-win-x64.exe')!, '.complete'),
    )
    expect(unpacked.filter((path) => existsSync(path))).toHaveLength(1)
  })
})
