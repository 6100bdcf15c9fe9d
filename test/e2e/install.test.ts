/**
 * The npm package (npm run test:installed installs it and runs the user-level cases with it, on
 * each Node line): named by its build, the bundle and what oclif reads, the reference its README
 * links to, nothing of the repository, no way to publish it by accident, and never installed on a
 * Node gw cannot run on, where the gw installed before stays.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join, posix, relative} from 'node:path'
import {pathToFileURL} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'
import {builtFile, gwEnvironment, gwUnderTest} from '../helpers/gw-under-test.js'

const scratch = tempDir('gw-install-')
afterAll(() => removeDir(scratch))

const build = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'build.json'), 'utf8')) as {id: string; commit: string}

/** The machine's own Node where it is older than gw takes (these machines have Node 20); else Node told it is 20. */
const system = spawnSync('/usr/bin/node', ['--version'], {encoding: 'utf8'})
const systemIsOld = system.status === 0 && /^v(1\d|20|21|22\.(\d|1[0-2])\.)/.test(system.stdout)
const pretend20 = join(scratch, 'node-20.mjs')
writeFileSync(pretend20, "Object.defineProperty(process.versions, 'node', {value: '20.20.2'})\n")
const oldNode = {
  PATH: systemIsOld ? '/usr/bin:/bin' : process.env.PATH!,
  ...(systemIsOld ? {} : {NODE_OPTIONS: `--import=${pathToFileURL(pretend20).href}`}),
}

let tarball: string
beforeAll(() => {
  const out = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'pack.mjs'), scratch], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
  tarball = out.trim()
})

const npm = (args: string[], env: Record<string, string | undefined> = {}, cwd = scratch) =>
  spawnSync('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd,
    encoding: 'utf8',
    env: {...process.env, npm_config_cache: join(scratch, 'npm-cache'), ...env},
  })

describe('a build people can name', () => {
  it('gw --version says it: version, commit date and commit, with the system and the Node', () => {
    const shown = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), '--version'], {encoding: 'utf8'})
    expect(shown.stdout).toBe(`gw/${build.id} ${process.platform}-${process.arch} node-${process.version}\n`)
  })
})

describe('npm run package', () => {
  it('names the tarball by the build: version, commit date and commit, kept in its package.json', () => {
    expect(build.id).toMatch(new RegExp(`^\\d+\\.\\d+\\.\\d+\\+\\d{8}\\.${build.commit}(\\.dirty)?$`))
    expect(tarball).toBe(join(scratch, `gw-${build.id}.tgz`))
    const shipped = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], {encoding: 'utf8'}))
    expect(shipped.version).toBe(build.id)
    expect(shipped.scripts).toEqual({preinstall: 'node bin/node-check.js'})
  })

  it('holds the bundle, what oclif reads, and the guides and reference its README links to; no sources, tests or development entry', () => {
    const paths = execFileSync('tar', ['-tzf', tarball], {encoding: 'utf8'})
      .trim()
      .split('\n')
      .map((path) => path.replace(/^package\//, ''))
    expect(paths).toEqual(
      expect.arrayContaining(['bin/run.js', 'dist/main.js', 'oclif.manifest.json', 'package.json', 'README.md']),
    )
    expect(paths.filter((path) => /^(src|test|bench|scripts)\/|^bin\/dev|\.node$/.test(path))).toEqual([])
    // The README and every guide of the repository, each of whose links is a file the package holds.
    const docs = readdirSync(join(REPO_ROOT, 'docs')).map((name) => `docs/${name}`)
    // Every file of docs/ is in the package (the desk's screenshot too); the pages are read for their links.
    expect(paths).toEqual(expect.arrayContaining(docs))
    const pages = ['README.md', ...docs.filter((name) => name.endsWith('.md'))]
    expect(paths).toEqual(expect.arrayContaining(pages))
    for (const page of pages) {
      const text = execFileSync('tar', ['-xzOf', tarball, `package/${page}`], {encoding: 'utf8'})
      const links = [...text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)]
        .map(([, target]) => target!)
        .filter((target) => !/^[a-z]+:/i.test(target))
        .map((target) => posix.join(posix.dirname(page), target))
      expect(
        links.filter((target) => !paths.includes(target)),
        page,
      ).toEqual([])
    }
    expect(pages).toContain('docs/commands.md')
  })

  it('is the one way to pack: plain npm pack is refused, saying which', () => {
    const packed = npm(['pack', '--dry-run'], {}, REPO_ROOT)
    expect(packed.status).not.toBe(0)
    expect(packed.stderr).toContain('Pack gw with npm run package: it names the tarball by its build')
  })

  it('cannot be published by accident: the package is private', () => {
    const published = npm([
      'publish',
      tarball,
      '--offline',
      '--registry',
      'http://127.0.0.1:9/',
      '--//127.0.0.1:9/:_authToken=x',
    ])
    expect(published.status).not.toBe(0)
    expect(published.stderr).toContain('EPRIVATE')
  })
})

describe('a Node older than gw supports', () => {
  it('gets one line saying which version is needed and where the single executable is, exit 2, never a stack trace', () => {
    const run = spawnSync('node', [join(REPO_ROOT, 'bin', 'run.js'), 'order', 'list'], {
      encoding: 'utf8',
      env: gwEnvironment({...oldNode, GW_CONFIG_DIR: scratch}),
    })
    expect(run.status).toBe(2)
    expect(run.stdout).toBe('')
    // In a checkout, whose npm ci brought the project's Node: the way that works here.
    expect(run.stderr).toMatch(
      /^gw needs Node\.js 22\.13 or later; this is Node\.js 20\.\d+\.\d+\. In this checkout, run it as npx gw \(npx runs it on the project's own Node\)\.\n$/,
    )
  })

  it('under --json, the refusal is also an error document on stdout', () => {
    const run = spawnSync('node', [join(REPO_ROOT, 'bin', 'run.js'), 'order', 'list', '--json'], {
      encoding: 'utf8',
      env: gwEnvironment({...oldNode, GW_CONFIG_DIR: scratch}),
    })
    expect(run.status).toBe(2)
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        kind: 'usage',
        exit_code: 2,
        message: expect.stringMatching(/^gw needs Node\.js 22\.13 or later; this is Node\.js 20\./),
        advice: expect.stringContaining('npx gw'),
      },
    })
  })

  it('an upgrade with it is refused before the gw installed is replaced: the old one still runs', () => {
    // The gw installed before: a package of that name whose gw runs on this Node, as earlier builds did.
    const old = join(scratch, 'old')
    mkdirSync(old)
    writeFileSync(join(old, 'package.json'), JSON.stringify({name: 'gw', version: '0.0.9', bin: {gw: 'gw.js'}}))
    writeFileSync(join(old, 'gw.js'), '#!/usr/bin/env node\nconsole.log("gw/0.0.9, the gw installed before")\n')
    const prefix = join(scratch, 'prefix')
    const global = ['install', '-g', '--offline', '--prefix', prefix]
    const first = npm([...global, old], oldNode)
    expect(first.status, first.stderr).toBe(0)

    const upgrade = npm([...global, tarball], oldNode)
    expect(upgrade.status).not.toBe(0)
    expect(upgrade.stderr).toMatch(
      /gw was not installed: it needs Node\.js 22\.13 or later; this is Node\.js 20\.\S+ Install a current LTS from https:\/\/nodejs\.org and install gw again \(the gw installed before is unchanged\)/,
    )
    const gw = spawnSync(join(prefix, 'bin', 'gw'), [], {encoding: 'utf8', env: gwEnvironment(oldNode)})
    expect(gw.stdout).toBe('gw/0.0.9, the gw installed before\n')
  })
})

describe('the gw the tests run', () => {
  it("is a copy of this checkout's build made when the run began: a rebuild meanwhile never changes it", () => {
    const [node, runJs] = gwUnderTest()
    expect(node).toBe(process.execPath)
    expect(relative(REPO_ROOT, runJs!).startsWith('..')).toBe(true)
    expect(readFileSync(builtFile('dist', 'build.json'), 'utf8')).toBe(
      readFileSync(join(REPO_ROOT, 'dist', 'build.json'), 'utf8'),
    )
  })
})
