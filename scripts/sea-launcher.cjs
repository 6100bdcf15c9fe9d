// The launcher inside the single executable (npm run build:binary). The executable carries
// gw's bundle as an asset; on first run it is written, once, to a cache folder named by its
// build, then every run loads it from there: oclif and the workbook worker need real files.
const {existsSync, mkdirSync, renameSync, rmSync, writeFileSync} = require('node:fs')
const {homedir} = require('node:os')
const {dirname, join} = require('node:path')
const {pathToFileURL} = require('node:url')
const sea = require('node:sea')

const BUILD = '__GW_BUILD__'
const base = process.env.GW_BINARY_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gw')
const root = join(base, BUILD)

function unpack() {
  const files = JSON.parse(sea.getAsset('files.json', 'utf8'))
  const staging = `${root}.${process.pid}.tmp`
  mkdirSync(base, {recursive: true, mode: 0o700})
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(staging, path)), {recursive: true})
    writeFileSync(join(staging, path), content)
  }
  writeFileSync(join(staging, '.complete'), BUILD)
  try {
    renameSync(staging, root)
  } catch {
    // Another run of the same build wrote it first.
    rmSync(staging, {recursive: true, force: true})
  }
}

if (!existsSync(join(root, '.complete'))) {
  try {
    unpack()
  } catch (error) {
    process.stderr.write(
      `gw: cannot unpack itself into ${root} (${error.code ?? error.message}). ` +
        'Set GW_BINARY_CACHE to a folder you can write, e.g. GW_BINARY_CACHE=$HOME/gw-cache.\n',
    )
    process.exit(1)
  }
}

import(pathToFileURL(join(root, 'dist', 'main.js')).href).then(({execute}) =>
  execute({dir: pathToFileURL(join(root, 'dist', 'main.js')).href}),
)
