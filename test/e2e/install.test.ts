/**
 * What the npm package holds (npm run test:installed installs it and runs the user-level cases
 * with it, on each Node line): the bundle and what oclif reads, nothing of the repository, and no
 * way to publish it by accident.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'

const scratch = tempDir('gw-install-')
afterAll(() => removeDir(scratch))

const {version} = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string}

describe('npm pack', () => {
  it('makes gw-VERSION.tgz of the bundle and what oclif reads; no sources, tests or development entry', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json'], {cwd: REPO_ROOT, encoding: 'utf8'}),
    ) as {filename: string; files: {path: string}[]}[]
    expect(packed[0]!.filename).toBe(`gw-${version}.tgz`)
    const paths = packed[0]!.files.map((file) => file.path)
    expect(paths).toEqual(expect.arrayContaining(['bin/run.js', 'dist/main.js', 'oclif.manifest.json', 'package.json']))
    expect(paths.filter((path) => /^(src|test|bench|scripts)\/|^bin\/dev|\.node$/.test(path))).toEqual([])
  })

  it('cannot be published by accident: the package is private', () => {
    const published = spawnSync(
      'npm',
      [
        'publish',
        '--offline',
        '--no-update-notifier',
        '--registry',
        'http://127.0.0.1:9/',
        '--//127.0.0.1:9/:_authToken=x',
      ],
      {cwd: REPO_ROOT, encoding: 'utf8', env: {...process.env, npm_config_cache: join(scratch, 'npm-cache')}},
    )
    expect(published.status).not.toBe(0)
    expect(published.stderr).toContain('EPRIVATE')
  })
})

describe('a Node older than gw supports', () => {
  it('gets one line saying which version is needed and where the single executable is, exit 2, never a stack trace', () => {
    // The machine's own Node where it is older (these machines have Node 20), else this one told it is 20.
    const system = spawnSync('/usr/bin/node', ['--version'], {encoding: 'utf8'})
    const older = system.status === 0 && /^v(1\d|20|21|22\.(\d|1[0-2])\.)/.test(system.stdout)
    const args = older
      ? ['/usr/bin/node', [join(REPO_ROOT, 'bin', 'run.js'), 'order', 'list']]
      : [
          process.execPath,
          [
            '-e',
            `Object.defineProperty(process.versions, 'node', {value: '20.20.2'}); import(${JSON.stringify(join(REPO_ROOT, 'bin', 'run.js'))})`,
          ],
        ]
    const run = spawnSync(args[0] as string, args[1] as string[], {
      encoding: 'utf8',
      env: {...process.env, GW_CONFIG_DIR: scratch},
    })
    expect(run.status).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(
      /^gw needs Node\.js 22\.13 or later; this is Node\.js 20\.\d+\.\d+\. Install a current LTS from https:\/\/nodejs\.org, or use gw's single executable, which carries its own Node \(README: "Installing gw"\)\.\n$/,
    )
  })
})
