#!/usr/bin/env node
// npm run build:binary: gw as one executable for this machine's platform, with Node's single
// executable applications: the local node binary, gw's bundle (dist/, the manifest, package.json)
// as an asset, and a small launcher (sea-launcher.cjs), injected with postject from npm. Nothing
// is downloaded. Run `npm run build` first. Writes build/gw (build/gw.exe on Windows), or into the
// folder given as its argument.
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import postject from 'postject'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = resolve(process.argv[2] ?? join(root, 'build'))
if (!existsSync(join(root, 'dist', 'main.js'))) throw new Error('Run npm run build first: dist/ is missing.')

// What the executable carries: the bundle (without source maps), the manifest, package.json.
const files = {}
for (const file of readdirSync(join(root, 'dist'), {recursive: true}))
  if (file.endsWith('.js')) files[join('dist', file)] = readFileSync(join(root, 'dist', file), 'utf8')
for (const file of ['package.json', 'oclif.manifest.json']) files[file] = readFileSync(join(root, file), 'utf8')
const payload = JSON.stringify(files)
const {version} = JSON.parse(files['package.json'])
const build = `${version}-${createHash('sha256').update(payload).digest('hex').slice(0, 12)}`

const work = mkdtempSync(join(tmpdir(), 'gw-sea-'))
mkdirSync(out, {recursive: true})
writeFileSync(join(work, 'files.json'), payload)
const launcher = readFileSync(join(root, 'scripts', 'sea-launcher.cjs'), 'utf8').replace('__GW_BUILD__', build)
writeFileSync(join(work, 'launcher.cjs'), launcher)
const config = {
  main: join(work, 'launcher.cjs'),
  output: join(work, 'gw.blob'),
  disableExperimentalSEAWarning: true,
  // No code cache: with it, Node 20 gives the launcher no import(), which loads the bundle.
  assets: {'files.json': join(work, 'files.json')},
}
writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2))
// Node talks on success: its words are shown only when it fails.
const quietly = (args) => {
  try {
    execFileSync(process.execPath, args, {stdio: 'pipe'})
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`)
    throw error
  }
}
quietly(['--experimental-sea-config', join(work, 'sea-config.json')])

const binary = join(out, process.platform === 'win32' ? 'gw.exe' : 'gw')
copyFileSync(process.execPath, binary)
chmodSync(binary, 0o755)
if (process.platform === 'darwin') execFileSync('codesign', ['--remove-signature', binary])
// postject's engine may warn on Linux that it "can't find string offset for section name '.note'":
// those are sections it leaves alone.
await postject.inject(binary, 'NODE_SEA_BLOB', readFileSync(config.output), {
  sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ...(process.platform === 'darwin' ? {machoSegmentName: 'NODE_SEA'} : {}),
})
if (process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', binary])
rmSync(work, {recursive: true, force: true})
process.stdout.write(`${relative(process.cwd(), binary)}: gw ${build} for ${process.platform}-${process.arch}\n`)
