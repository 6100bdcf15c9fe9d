#!/usr/bin/env node
// The one build (npm run build): src bundled with esbuild into dist, each command its own entry
// (oclif loads only the one run) and what several share in chunks loaded when first used:
// oclif, undici and zod once, the workbook library only by the commands that read or write a
// workbook. Source maps beside, used with DEBUG. Then oclif's manifest and the command reference.
import {build} from 'esbuild'
import {spawnSync} from 'node:child_process'
import {readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {builtinModules} from 'node:module'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {buildOf} from './build-id.mjs'

/** Packages the bundle may fail to load, each where its caller expects that (oclif, in a try: development only). */
const OPTIONAL = new Set(['typescript', 'ts-node'])

/**
 * The installed gw (the npm package, the single executable) has no node_modules: the build fails
 * when the bundle would load a module it does not contain, by an import esbuild left outside it, a
 * require of a package name, or a require made at run time (createRequire beyond each chunk's
 * banner), as the table library once was (every table crashed in the installed forms).
 */
function checkSelfContained(metafile) {
  const builtin = (name) => name.startsWith('node:') || builtinModules.includes(name.split('/')[0])
  const problems = []
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!file.endsWith('.js')) continue
    for (const {path, external} of output.imports)
      if (external && !builtin(path) && !OPTIONAL.has(path)) problems.push(`${file} imports ${path}`)
    const code = readFileSync(file, 'utf8')
    for (const [, name] of code.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g))
      if (!builtin(name) && !OPTIONAL.has(name)) problems.push(`${file} requires ${name}`)
    if ((code.match(/createRequire/g) ?? []).length > 1) problems.push(`${file} builds a require at run time`)
  }
  if (problems.length) {
    process.stderr.write(`The bundle loads what it does not contain:\n  ${problems.join('\n  ')}\n`)
    process.exit(1)
  }
}

/**
 * Node's built-in modules are loaded with require, never import: an import makes Node build the
 * module's ES facade, which reads every export, and node:http's lazy WebSocket export then loads
 * Node's bundled undici with its http2, zlib and assert (about 40 ms of CPU on a busy core) for
 * a plain http request. esbuild makes each a CommonJS module of the bundle, its exports read
 * when used (the banner's require).
 */
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    const builtin = new RegExp(`^(node:.*|${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})$`)
    build.onResolve({filter: builtin}, ({path, namespace}) =>
      // The require inside that module is Node's own.
      namespace === 'builtin'
        ? {path, external: true}
        : {path: path.replace(/^(node:)?/, 'node:'), namespace: 'builtin'},
    )
    build.onLoad({filter: /.*/, namespace: 'builtin'}, ({path}) => ({
      contents: `module.exports = require(${JSON.stringify(path)})`,
      loader: 'js',
    }))
  },
}

/**
 * What oclif loads at each start and gw never uses, not run (about 10 ms of CPU, bench/README.md):
 * its check of Node's version against its own engines field (gw's bin/node-check.js checks first,
 * and more strictly), which loads semver whole; the debug package, loaded only when DEBUG is set
 * (its logs are shown only then, as before); and, required when first used, the glob and pattern
 * libraries of plugins without a manifest (gw ships its manifest) and node:perf_hooks (for oclif's
 * timings, which gw never turns on). A change of oclif's that these no longer fit stops the build.
 */
const LAZY = 'const lazy = (load) => { let m; return new Proxy({}, {get: (_, key) => (m ??= load())[key]}) };'
const OCLIF_PATCHES = {
  'index.js': [['\ncheckNodeVersion();\n', '\n']],
  'logger.js': [
    [
      'const debug_1 = __importDefault(require("debug"));',
      'const debug_1 = {default: (namespace) => (process.env.DEBUG ? require("debug")(namespace) : () => {})};',
    ],
  ],
  'config/plugin.js': [
    ['const tinyglobby_1 = require("tinyglobby");', `${LAZY} const tinyglobby_1 = lazy(() => require("tinyglobby"));`],
  ],
  'config/plugin-loader.js': [
    ['const minimatch_1 = require("minimatch");', `${LAZY} const minimatch_1 = lazy(() => require("minimatch"));`],
  ],
  'performance.js': [
    [
      'const node_perf_hooks_1 = require("node:perf_hooks");',
      `${LAZY} const node_perf_hooks_1 = lazy(() => require("node:perf_hooks"));`,
    ],
  ],
}
const oclifStart = {
  name: 'oclif-start',
  setup(build) {
    const patched = new Set()
    build.onLoad({filter: /@oclif[\\/]core[\\/]lib[\\/]/}, ({path}) => {
      const file = path.replaceAll('\\', '/').split('/@oclif/core/lib/')[1]
      if (!OCLIF_PATCHES[file]) return undefined
      patched.add(file)
      let source = readFileSync(path, 'utf8')
      for (const [from, to] of OCLIF_PATCHES[file]) {
        if (!source.includes(from))
          throw new Error(`oclif's lib/${file} has changed: ${JSON.stringify(from)} is not in it`)
        source = source.replace(from, to)
      }
      return {contents: source, loader: 'js'}
    })
    build.onEnd(() => {
      const gone = Object.keys(OCLIF_PATCHES).filter((file) => !patched.has(file))
      if (gone.length) throw new Error(`oclif has no lib/${gone.join(', lib/')} any more: see OCLIF_PATCHES`)
    })
  },
}

// A command's run beside it (create.run.ts) is no command: bundled into the command that imports it.
const commands = readdirSync('src/commands', {recursive: true})
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.run.ts'))
  .map((file) => join('src/commands', file))
const entries = [
  'src/main.ts',
  ...commands,
  'src/lib/cli/help.ts',
  'src/lib/cli/not-found.ts',
  // Beside the chunks, where the chunk that starts it looks for it (files/workbook-records.ts).
  {in: 'src/lib/files/workbook-worker.ts', out: 'chunks/workbook-worker'},
]

rmSync('dist', {recursive: true, force: true})
const named = buildOf('.')
const {metafile} = await build({
  entryPoints: entries,
  outbase: 'src',
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  metafile: true,
  define: {GW_BUILD: JSON.stringify(named.id), GW_COMMITTED_AT: JSON.stringify(named.committed_at)},
  // oclif reads tsconfig with TypeScript when it is installed (development only), in a try.
  external: [...OPTIONAL],
  plugins: [builtinsByRequire, oclifStart],
  // CommonJS packages in an ESM bundle still call require (node:fs and the like).
  banner: {
    js: "import {createRequire as __gwRequire} from 'node:module'; const require = __gwRequire(import.meta.url);",
  },
})
checkSelfContained(metafile)
// GW_METAFILE=FILE npm run build: esbuild's account of which source went into which file (bench/README.md).
if (process.env.GW_METAFILE) writeFileSync(process.env.GW_METAFILE, JSON.stringify(metafile))
writeFileSync('dist/build.json', `${JSON.stringify(named, null, 2)}\n`)

// oclif's development tool checks npm for a newer version of itself and warns ("oclif update
// available") on every build and so on every `npm run demo`: its own documented switch turns the
// check off (gw itself has no update check: it is installed from a tarball or an executable).
const oclif = fileURLToPath(import.meta.resolve('oclif/bin/run.js'))
for (const args of [
  ['manifest'],
  ['readme', '--readme-path', 'docs/commands.md', '--no-aliases', '--no-source-links'],
]) {
  const run = spawnSync(process.execPath, [oclif, ...args], {
    stdio: 'inherit',
    env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
  })
  if (run.status !== 0) process.exit(run.status ?? 1)
}
