/**
 * Installing gw as finance and support do, without the repository: the tarball `npm pack` makes,
 * installed with `npm install -g` into a scratch prefix with no registry, and the single executable
 * `npm run build:binary` makes. Both need the build (`npm test` makes it first).
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, readFileSync, readdirSync} from 'node:fs'
import {delimiter, dirname, join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'
import {spawnSandbox} from '../helpers/spawned-sandbox.js'

const scratch = tempDir('gw-install-')
afterAll(() => removeDir(scratch))

const {version} = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string}
const versionLine = new RegExp(`^gw/${version.replaceAll('.', '\\.')} `)

/** A clean environment: node on PATH (the installed bin starts with `env node`), nothing of this checkout. */
function environment(configDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter),
    HOME: join(scratch, 'home'),
    GW_CONFIG_DIR: configDir,
    NO_COLOR: '1',
    ...extra,
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = scratch) {
  const result = spawnSync(command, args, {env, encoding: 'utf8', timeout: 60_000, cwd})
  return {code: result.status, stdout: result.stdout, stderr: result.stderr}
}

describe('npm pack, then npm install -g of the tarball', () => {
  it('installs offline into a clean prefix, where gw --version, gw sandbox start and gw doctor work', async () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], {cwd: REPO_ROOT, encoding: 'utf8'}),
    ) as {filename: string; files: {path: string}[]}[]
    const tarball = join(scratch, packed[0]!.filename)
    expect(packed[0]!.filename).toBe(`gw-${version}.tgz`)
    // The bundle and what oclif reads; no sources, tests or development entry.
    const paths = packed[0]!.files.map((file) => file.path)
    expect(paths).toEqual(expect.arrayContaining(['bin/run.js', 'dist/main.js', 'oclif.manifest.json', 'package.json']))
    expect(paths.filter((path) => /^(src|test|bench|scripts)\/|^bin\/dev/.test(path))).toEqual([])

    const prefix = join(scratch, 'prefix')
    const npmEnv = {...environment(join(scratch, 'npm-config')), PATH: process.env.PATH!}
    // --offline: the tarball needs nothing from the registry, everything is in its bundle.
    const installed = run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--offline', '--no-update-notifier', '--no-audit', '--no-fund', tarball],
      {
        ...npmEnv,
        npm_config_cache: join(scratch, 'npm-cache'),
      },
    )
    expect(installed.code, installed.stderr).toBe(0)
    expect(readdirSync(join(prefix, 'lib', 'node_modules', 'gw'))).not.toContain('node_modules')

    const installedGw = join(prefix, 'bin', 'gw')
    const configDir = join(scratch, 'config')
    const shown = run(installedGw, ['--version'], environment(configDir))
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toMatch(versionLine)

    const sandbox = await spawnSandbox(configDir, [], {gw: [installedGw]})
    try {
      const doctor = run(installedGw, ['doctor'], environment(configDir))
      expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0)
      expect(doctor.stdout).toContain(sandbox.appid)
    } finally {
      expect(await sandbox.stop()).toBe(0)
    }
  }, 120_000)

  it('cannot be published by accident: the package is private', () => {
    const published = run(
      'npm',
      [
        'publish',
        '--offline',
        '--no-update-notifier',
        '--registry',
        'http://127.0.0.1:9/',
        '--//127.0.0.1:9/:_authToken=x',
      ],
      {
        ...process.env,
        npm_config_cache: join(scratch, 'npm-cache'),
      },
      REPO_ROOT,
    )
    expect(published.code).not.toBe(0)
    expect(published.stderr).toContain('EPRIVATE')
  })
})

describe('npm run build:binary', () => {
  it('makes one executable that starts, runs the sandbox, and makes signed requests whose answers it verifies', async () => {
    const out = join(scratch, 'binary')
    const built = run(process.execPath, [join(REPO_ROOT, 'scripts', 'build-binary.mjs'), out], process.env)
    expect(built.code, built.stderr).toBe(0)
    const binary = join(out, process.platform === 'win32' ? 'gw.exe' : 'gw')
    expect(existsSync(binary)).toBe(true)

    // No node on PATH: the executable carries its own.
    const configDir = join(scratch, 'binary-config')
    const env = {...environment(configDir, {GW_BINARY_CACHE: join(scratch, 'binary-cache')}), PATH: '/usr/bin:/bin'}
    const shown = run(binary, ['--version'], env)
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toMatch(versionLine)

    const sandbox = await spawnSandbox(configDir, [], {gw: [binary]})
    try {
      const created = run(
        binary,
        ['order', 'create', '--channel', 'wechat', '--amount', '12.50', '--fee-type', 'THB', '--json'],
        env,
      )
      expect(created.code, created.stderr).toBe(0)
      const {order} = JSON.parse(created.stdout) as {order: {mch_order_no: string}}
      const queried = run(binary, ['order', 'query', order.mch_order_no, '--channel', 'wechat', '--json'], env)
      expect(queried.code, queried.stderr).toBe(0)
      expect(JSON.parse(queried.stdout)).toMatchObject({
        record: {mch_order_no: order.mch_order_no, total_fee: 1250, result: 'NOTPAY'},
      })
    } finally {
      expect(await sandbox.stop()).toBe(0)
    }
  }, 120_000)
})
