#!/usr/bin/env node
// The one build (npm run build): src bundled with esbuild into dist, each command its own entry
// (oclif loads only the one run) and what several share in chunks loaded when first used:
// oclif, undici and zod once, the workbook library only by the commands that read or write a
// workbook. Source maps beside, used with DEBUG. Then oclif's manifest and the command reference.
import {build} from 'esbuild'
import {spawnSync} from 'node:child_process'
import {copyFileSync, mkdirSync, readdirSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const commands = readdirSync('src/commands', {recursive: true})
  .filter((file) => file.endsWith('.ts'))
  .map((file) => join('src/commands', file))
const entries = [
  'src/main.ts',
  ...commands,
  'src/lib/cli/help.ts',
  'src/lib/cli/not-found.ts',
  'src/lib/files/workbook-worker.ts',
]

rmSync('dist', {recursive: true, force: true})
await build({
  entryPoints: entries,
  outbase: 'src',
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  // oclif reads tsconfig with TypeScript when it is installed (development only), in a try.
  // better-sqlite3 finds its compiled part with `bindings` only when not given one: gw always gives it.
  external: ['typescript', 'ts-node', 'bindings'],
  // CommonJS packages in an ESM bundle still call require (node:fs and the like).
  banner: {
    js: "import {createRequire as __gwRequire} from 'node:module'; const require = __gwRequire(import.meta.url);",
  },
})
// SQLite's compiled binding, beside the bundle (src/lib/io/database.ts loads it from there): the
// npm tarball and the single executable carry it; it is built for this platform by npm ci.
mkdirSync('dist/native', {recursive: true})
copyFileSync(
  join(
    dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
    'build/Release/better_sqlite3.node',
  ),
  'dist/native/better_sqlite3.node',
)

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
