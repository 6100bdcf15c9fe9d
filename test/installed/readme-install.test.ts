/**
 * The install lines of the README and docs/install.md, run exactly as written: each block is read
 * from the pages the package ships (the one after its `<!-- install: NAME -->` mark) and run by
 * bash, in a folder holding what a user is handed (npm run test:installed's executables,
 * SHA256SUMS and its signature, the package), for an account with nothing of gw's: no
 * ~/.local/bin, no ~/.profile.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, readFileSync, statSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'
import {gwEnvironment} from '../helpers/gw-under-test.js'

const build = process.env.GW_TEST_BUILD!
const scratch = tempDir('gw-readme-install-')
afterAll(() => removeDir(scratch))

const {id} = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'build.json'), 'utf8')) as {id: string}
const tarball = process.env.GW_TEST_TARBALL!
/** The README and install guide as the package ships them. */
const pages = ['README.md', 'docs/install.md'].map((page) =>
  execFileSync('tar', ['-xzOf', tarball, `package/${page}`], {encoding: 'utf8'}),
)
/** The lines of the block marked `<!-- install: name -->` (in the README or docs/install.md). */
function block(name: string): string {
  const mark = new RegExp(`<!-- install: ${name} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``)
  const found = pages.map((page) => mark.exec(page)).find(Boolean)
  if (!found) throw new Error(`neither README.md nor docs/install.md has a block marked install: ${name}`)
  return found[1]!
}

const home = join(scratch, 'home')
const handedOut = join(scratch, 'Downloads')
mkdirSync(home)
mkdirSync(handedOut)
for (const file of ['gw-linux-x64', 'SHA256SUMS', 'SHA256SUMS.asc'])
  copyFileSync(join(build, file), join(handedOut, file))

/** `script` run by bash as a new account's shell would, stopping at the first line that fails. */
function bash(script: string, env: Record<string, string | undefined> = {}) {
  return spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', script], {
    cwd: handedOut,
    encoding: 'utf8',
    env: gwEnvironment({HOME: home, PATH: '/usr/bin:/bin', ...env}),
  })
}

const versionLine = `gw/${id} linux-x64 node-v${process.versions.node}\n`

describe("the README's install lines, as written", () => {
  it('are every block of the pages it ships marked install:, each run below', () => {
    const marks = pages.flatMap((page) => [...page.matchAll(/<!-- install: (\S+) -->/g)].map((mark) => mark[1]))
    expect(marks.sort()).toEqual(['linux', 'linux-path', 'package', 'remove-linux', 'signature'])
  })

  it('Linux: the file checked against SHA256SUMS, installed into a ~/.local/bin the account did not have', () => {
    const installed = bash(block('linux'))
    expect(installed.status, installed.stderr).toBe(0)
    expect(installed.stdout).toBe('gw-linux-x64: OK\n')
    expect(statSync(join(home, '.local', 'bin', 'gw')).mode & 0o777).toBe(0o755)
    // Not yet on this account's PATH: the README's next lines put it there.
    expect(bash('gw --version').stderr).toMatch(/gw: command not found/)
  })

  it('Linux: the lines that put ~/.local/bin on the PATH, then gw --version names the build', () => {
    const onPath = bash(block('linux-path'))
    expect(onPath.status, onPath.stderr).toBe(0)
    expect(onPath.stdout).toBe(versionLine)
    expect(bash('. ~/.profile; command -v gw').stdout).toBe(`${join(home, '.local', 'bin', 'gw')}\n`)
  })

  it("the signature: gpg says SHA256SUMS is the builder's (their key imported, here the run's own keyring)", () => {
    const verified = bash(block('signature'), {GNUPGHOME: process.env.GNUPGHOME})
    expect(verified.status, verified.stderr).toBe(0)
    expect(verified.stderr).toMatch(/Good signature from "gw builder <builder@example\.invalid>"/)
  })

  it('the package: installed with npm from the tarball handed out, under its own name; gw --version names the build', () => {
    const lines = block('package')
    // The tarball as the builder hands it out: named by its build, whichever build the README was written at.
    expect(basename(tarball)).toBe(`gw-${id}.tgz`)
    copyFileSync(tarball, join(handedOut, basename(tarball)))
    const prefix = join(scratch, 'npm-global')
    const installed = bash(lines, {
      PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      npm_config_prefix: prefix,
      npm_config_cache: join(scratch, 'npm-cache'),
      npm_config_offline: 'true',
    })
    expect(installed.status, installed.stderr).toBe(0)
    expect(installed.stdout).toContain(versionLine)
  }, 60_000)

  it('Linux: the remove lines, where the sandbox never ran, take the file and its unpacked copy', () => {
    const account = join(scratch, 'removing')
    mkdirSync(account)
    const env = {HOME: account, XDG_CACHE_HOME: undefined, XDG_DATA_HOME: undefined}
    expect(bash(block('linux'), env).status).toBe(0)
    // A run unpacks the executable into ~/.cache/gw; no sandbox ran, so no ~/.local/share/gw.
    expect(bash('~/.local/bin/gw --version', env).status).toBe(0)
    expect(existsSync(join(account, '.cache', 'gw'))).toBe(true)
    expect(existsSync(join(account, '.local', 'share', 'gw'))).toBe(false)
    const removed = bash(block('remove-linux'), env)
    expect(removed.status, removed.stderr).toBe(0)
    expect(removed.stderr).toBe('')
    for (const path of [
      ['.local', 'bin', 'gw'],
      ['.cache', 'gw'],
    ])
      expect(existsSync(join(account, ...path))).toBe(false)
  })
})
