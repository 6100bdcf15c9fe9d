/**
 * The four executables of `npm run build:binary -- --all`, and this machine's of `npm run
 * build:binary` (npm run test:installed builds them into GW_TEST_BUILD): each is its platform's format for its processor, unsigned and so ready for
 * codesign or signtool, carries this build's bundle, and says which system and Node it is. The
 * ones this machine can run say it themselves: linux-x64 natively, linux-arm64 under qemu-user,
 * win-x64 under wine.
 */
import {spawn, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {GUIDES, type Guide, guideText} from '../../src/lib/cli/guides.js'
import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'
import {gwEnvironment} from '../helpers/gw-under-test.js'

const build = process.env.GW_TEST_BUILD ?? join(REPO_ROOT, 'build')
const scratch = tempDir('gw-executables-')
afterAll(() => removeDir(scratch))

const {id} = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'build.json'), 'utf8')) as {id: string}
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
    const named = new RegExp(`^${id.replace(/[.+]/g, '\\$&')}-[0-9a-f]{12}$`)
    expect(new Set(builds.values())).toEqual(new Set([expect.stringMatching(named)]))
  })

  const versionLine = (platform: string) => `gw/${id} ${platform} node-v${process.versions.node}\n`
  const env = gwEnvironment({PATH: join(scratch, 'no-node'), GW_BINARY_CACHE: join(scratch, 'cache')})

  it('linux-x64 says so, with no node on PATH', () => {
    const shown = spawnSync(join(build, 'gw-linux-x64'), ['--version'], {env, encoding: 'utf8'})
    expect(shown.stdout).toBe(versionLine('linux-x64'))
  })

  it('linux-x64 carries the full reference: gw help --all, every command as its --help shows it', () => {
    const reference = spawnSync(join(build, 'gw-linux-x64'), ['help', '--all'], {
      env: {...env, NODE_ENV: undefined},
      encoding: 'utf8',
    })
    expect(reference.status, reference.stderr).toBe(0)
    expect(reference.stdout).toMatch(/^={80}\ngw refund create\n/m)
    expect(reference.stdout).toContain('$ gw refund create --from-csv FILE [--dry-run] [--yes] [FLAGS]')
    expect(reference.stdout).toMatch(/^={80}\ngw completion\n/m)
  })

  it('linux-x64 carries the guides: gw help GUIDE prints each as docs/ holds it', () => {
    for (const guide of Object.keys(GUIDES) as Guide[]) {
      const shown = spawnSync(join(build, 'gw-linux-x64'), ['help', guide], {env, encoding: 'utf8'})
      expect(shown.status, shown.stderr).toBe(0)
      expect(shown.stdout).toBe(`${guideText(REPO_ROOT, guide).trimEnd()}\n`)
    }
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

  it('wrote SHA256SUMS beside them, as sha256sum writes and checks it', () => {
    const sums = readFileSync(join(build, 'SHA256SUMS'), 'utf8')
    const line = (file: string) =>
      `${createHash('sha256')
        .update(readFileSync(join(build, file)))
        .digest('hex')}  ${file}\n`
    expect(sums).toBe(Object.keys(EXECUTABLES).map(line).join(''))
    const checked = spawnSync('sha256sum', ['--check', 'SHA256SUMS'], {cwd: build, encoding: 'utf8'})
    expect(checked.stdout).toBe(
      Object.keys(EXECUTABLES)
        .map((file) => `${file}: OK\n`)
        .join(''),
    )
    // And the build's name, for gw version --check where the builds are handed out.
    expect(JSON.parse(readFileSync(join(build, 'build.json'), 'utf8'))).toMatchObject({id})
  })

  // npm run test:installed builds them with GW_SIGNING_KEY naming a GnuPG key it made for the run (GNUPGHOME).
  it('signed SHA256SUMS with the key the builder named: gpg verifies it, and refuses an edited copy', () => {
    const verify = (sums: string) =>
      spawnSync('gpg', ['--verify', join(build, 'SHA256SUMS.asc'), sums], {encoding: 'utf8', env: process.env})
    const good = verify(join(build, 'SHA256SUMS'))
    expect(good.status, good.stderr).toBe(0)
    expect(good.stderr).toMatch(/Good signature from "gw builder/)
    const edited = join(scratch, 'SHA256SUMS')
    writeFileSync(
      edited,
      readFileSync(join(build, 'SHA256SUMS'), 'utf8').replace(/^[0-9a-f]/, (c) => (c === '0' ? '1' : '0')),
    )
    const bad = verify(edited)
    expect(bad.status).not.toBe(0)
    expect(bad.stderr).toMatch(/BAD signature/)
  })
})

describe('the unpacked copy of an executable', () => {
  const cache = join(scratch, 'repaired')
  // NODE_ENV as a user has it: vitest's 'test' makes oclif look for TypeScript.
  const env = gwEnvironment({
    PATH: join(scratch, 'no-node'),
    GW_BINARY_CACHE: cache,
    GW_CONFIG_DIR: join(scratch, 'config'),
  })
  const gw = (...args: string[]) => spawnSync(join(build, 'gw-linux-x64'), args, {env, encoding: 'utf8'})
  const unpacked = (path: string) => join(cache, builds.get('gw-linux-x64')!, path)

  /** gw run with a cache of its own at `folder`. */
  const gwWith = (folder: string, ...args: string[]) =>
    spawnSync(join(build, 'gw-linux-x64'), args, {env: {...env, GW_BINARY_CACHE: folder}, encoding: 'utf8'})
  /** This build unpacked in a cache of its own at `folder` (gw makes it 0700), with a module that says it ran: its copy. */
  function copyWithPlant(folder: string): string {
    expect(gwWith(folder, '--version').status).toBe(0)
    const copy = join(folder, builds.get('gw-linux-x64')!)
    writeFileSync(join(copy, 'dist', 'commands', 'versiox.js'), PLANTED)
    return copy
  }
  const PLANTED = 'process.stderr.write("PLANTED CODE RAN\\n"); export default class {static run() {}}\n'

  it.skipIf(process.getuid?.() !== 0)(
    'never runs from a cache folder others can write, or a copy another user made: exit 2, its code never loaded',
    () => {
      const shared = join(scratch, 'shared-cache')
      mkdirSync(shared)
      chmodSync(shared, 0o1777)
      const refused = gwWith(shared, '--version')
      expect(refused.status).toBe(2)
      expect(refused.stderr).toBe(
        `gw: ${shared} is not used: its mode is 1777, not 0700: others can look in or write it. gw runs code from its cache, so only from a folder of yours alone. Nothing was sent. To run, set GW_BINARY_CACHE to a folder of your own that does not exist yet (gw makes it, mode 700).\n`,
      )
      expect(readdirSync(shared)).toEqual([])
      // Another user's copy of this build, its main module theirs: in a folder of yours, still refused.
      const theirs = copyWithPlant(join(scratch, 'their-copy'))
      writeFileSync(
        join(theirs, 'dist', 'main.js'),
        `import './commands/versiox.js'\n${readFileSync(join(theirs, 'dist', 'main.js'), 'utf8')}`,
      )
      spawnSync('chown', ['-R', 'nobody', theirs])
      const planted = gwWith(join(scratch, 'their-copy'), '--version')
      expect(planted.status).toBe(2)
      expect(planted.stderr).toMatch(
        /their-copy\/[^ ]+ is not used: it belongs to another user \(uid \d+\), not to you/,
      )
      expect(planted.stderr).not.toContain('PLANTED CODE RAN')
    },
  )

  it('a manifest line changed to load a module added to the copy: the manifest unpacked again, the module never run', () => {
    const copy = copyWithPlant(join(scratch, 'edited-manifest'))
    const manifest = join(copy, 'oclif.manifest.json')
    const text = readFileSync(manifest, 'utf8')
    const at = text.indexOf('"version.js"', text.indexOf('"id": "version"'))
    // The same size: only its content tells it from the build's.
    writeFileSync(manifest, `${text.slice(0, at)}"versiox.js"${text.slice(at + '"version.js"'.length)}`)
    const shown = gwWith(join(scratch, 'edited-manifest'), 'version')
    expect(shown.stderr).not.toContain('PLANTED CODE RAN')
    expect(shown.stderr).toContain(`gw: ${manifest} was missing or damaged; gw unpacked itself again.`)
    expect(shown.status, shown.stderr).toBe(0)
    expect(shown.stdout).toContain(`gw ${id}: version`)
  })

  // Found in CI once: "cannot unpack itself ... (ENOENT)" when launches raced to unpack one build
  // (a shell's completion and a command; two lanes sharing a cache).
  it('several first launches at once of one build into one cache: every one runs, one copy is left', async () => {
    const launch = (folder: string) =>
      new Promise<{status: number | null; stdout: string; stderr: string}>((resolve, reject) => {
        const child = spawn(join(build, 'gw-linux-x64'), ['--version'], {env: {...env, GW_BINARY_CACHE: folder}})
        let [stdout, stderr] = ['', '']
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
        child.on('error', reject)
        child.on('close', (status) => resolve({status, stdout, stderr}))
      })
    for (let round = 0; round < 5; round++) {
      const folder = join(scratch, `raced-${round}`)
      // An earlier build's copy, which each of them sets out to remove.
      const earlier = join(folder, '0.0.9+20260101.aaaaaaa-000000000000')
      for (let part = 0; part < 20; part++) {
        mkdirSync(join(earlier, 'dist', `${part}`), {recursive: true, mode: 0o700})
        for (let file = 0; file < 50; file++) writeFileSync(join(earlier, 'dist', `${part}`, `${file}.js`), '')
      }
      writeFileSync(join(earlier, '.complete'), '')
      const runs = await Promise.all(Array.from({length: 8}, () => launch(folder)))
      for (const run of runs)
        expect(run).toEqual({status: 0, stdout: `gw/${id} linux-x64 node-v${process.versions.node}\n`, stderr: ''})
      // The winner's copy, whole; the others' staging folders gone.
      const left = readdirSync(folder)
      expect(left).toHaveLength(1)
      expect(existsSync(join(folder, left[0]!, '.complete'))).toBe(true)
    }
  })

  it("removes the copies of earlier builds when a build first unpacks, nothing else of the cache's", () => {
    const earlier = join(cache, '0.0.9+20260101.aaaaaaa-000000000000')
    // The cache as gw makes it: the user's alone.
    mkdirSync(cache, {mode: 0o700})
    mkdirSync(join(earlier, 'dist'), {recursive: true})
    writeFileSync(join(earlier, '.complete'), '')
    mkdirSync(join(cache, 'kept'))
    expect(gw('--version').stdout).toBe(`gw/${id} linux-x64 node-v${process.versions.node}\n`)
    expect(readdirSync(cache).sort()).toEqual([builds.get('gw-linux-x64'), 'kept'])
  })

  it('unpacks again a file that was removed, and says so: never a module error', () => {
    rmSync(unpacked('dist/commands/completion.js'))
    const shown = gw('completion', 'bash')
    expect(shown.status, shown.stderr).toBe(0)
    expect(shown.stdout).toMatch(/^# gw completion for bash/)
    expect(shown.stderr).toBe(
      `gw: ${unpacked('dist/commands/completion.js')} was missing or damaged; gw unpacked itself again.\n`,
    )
    expect(existsSync(unpacked('dist/commands/completion.js'))).toBe(true)
  })

  it.each(['dist/main.js', 'dist/commands/completion.js'])(
    'unpacks again %s damaged in place (same size), and runs as built: never a stack trace',
    (path) => {
      const original = readFileSync(unpacked(path))
      const damaged = Buffer.from(original)
      damaged.write('}}}}{{{{', 40)
      writeFileSync(unpacked(path), damaged)
      const shown = gw('completion', 'fish')
      expect(shown.status, shown.stderr).toBe(0)
      expect(shown.stdout).toMatch(/^# gw completion for fish/)
      expect(shown.stderr).toBe(`gw: ${unpacked(path)} was missing or damaged; gw unpacked itself again.\n`)
      expect(readFileSync(unpacked(path)).equals(original)).toBe(true)
    },
  )
})
