// The launcher inside the single executable (npm run build:binary). The executable carries
// gw's bundle as an asset; on first run it is written, once, to a cache folder named by its
// build (the system's own place for caches), then every run loads it from there: oclif and the
// workbook worker need real files. What is there is checked against what the build wrote (each
// file's size on every start, and the SHA-256 of each module as it is loaded): a file a cache
// cleaner removed or a full disk cut short is unpacked again, never a module error. The first run
// of a build removes the unpacked copies of the builds before it.
const {createHash} = require('node:crypto')
const {existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync} = require('node:fs')
const module_ = require('node:module')
const {homedir} = require('node:os')
const {dirname, join} = require('node:path')
const {pathToFileURL} = require('node:url')
const sea = require('node:sea')

const BUILD = '__GW_BUILD__'
/** Each file of the bundle: its size and SHA-256, as the build wrote them. */
const FILES = JSON.parse(sea.getAsset('sums.json', 'utf8'))
function systemCache() {
  if (process.platform === 'win32')
    return join(process.env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'gw', 'Cache')
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'gw')
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gw')
}
const base = process.env.GW_BINARY_CACHE || systemCache()
const root = join(base, BUILD)
const rootUrl = `${pathToFileURL(root).href}/`
/** A staging folder older than this was left by a run that died: removed with the old builds. */
const STALE_STAGING_MS = 3_600_000

let files
const bundle = () => (files ??= JSON.parse(sea.getAsset('files.json', 'utf8')))

function cannot(error) {
  process.stderr.write(
    `gw: cannot unpack itself into ${root} (${error.code ?? error.message}). ` +
      'Set GW_BINARY_CACHE to a folder you can write (e.g. a gw-cache folder in your home folder).\n',
  )
  process.exit(1)
}

/**
 * Writes the bundle to a staging folder and moves it into place. Two first runs at once (a shell's
 * completion and a command) each stage their own: the one that moves second keeps the first's copy
 * when it is whole. A copy there that is damaged (`replacing`) or unfinished is moved aside, then
 * removed.
 */
function unpack(replacing) {
  const staging = `${root}.${process.pid}.tmp`
  mkdirSync(base, {recursive: true, mode: 0o700})
  for (const [path, content] of Object.entries(bundle())) {
    mkdirSync(dirname(join(staging, path)), {recursive: true})
    writeFileSync(join(staging, path), content)
  }
  writeFileSync(join(staging, '.complete'), BUILD)
  const aside = `${root}.${process.pid}.old.tmp`
  if ((replacing || !existsSync(join(root, '.complete'))) && existsSync(root)) renameSync(root, aside)
  try {
    renameSync(staging, root)
  } catch (error) {
    // Another run of the same build moved its copy in first: used when whole.
    if (!existsSync(join(root, '.complete')) || firstDamaged() !== undefined) throw error
  }
  // Left over when a copy was moved in first, or when another run still reads the old one: the
  // removal of stale staging folders takes what cannot go now.
  for (const left of [staging, aside]) {
    try {
      rmSync(left, {recursive: true, force: true})
    } catch {
      // Still open in another run (Windows): removed with the stale staging folders later.
    }
  }
}

/** The unpacked copies of other builds, and staging folders of runs that died. */
function removeOtherBuilds() {
  for (const entry of readdirSync(base)) {
    const path = join(base, entry)
    const stale = entry.endsWith('.tmp')
      ? Date.now() - statSync(path).mtimeMs > STALE_STAGING_MS
      : entry !== BUILD && existsSync(join(path, '.complete'))
    if (stale) rmSync(path, {recursive: true, force: true})
  }
}

/** The first file that is not as the build wrote it (missing, or of another size), if any. */
function firstDamaged() {
  if (!existsSync(join(root, '.complete'))) return undefined
  for (const [path, [size]] of Object.entries(FILES)) {
    try {
      if (statSync(join(root, path)).size !== size) return path
    } catch {
      return path
    }
  }
  return undefined
}

/** Unpacks the bundle again, saying why: `path` was missing or damaged. */
function repair(path) {
  process.stderr.write(`gw: ${join(root, path)} was missing or damaged; gw unpacked itself again.\n`)
  try {
    unpack(true)
  } catch (error) {
    cannot(error)
  }
}

try {
  if (!existsSync(join(root, '.complete'))) {
    unpack(false)
    removeOtherBuilds()
  } else {
    const damaged = firstDamaged()
    if (damaged) repair(damaged)
  }
} catch (error) {
  cannot(error)
}

// Each module of the bundle is checked as it is loaded: one whose content is not the build's is
// unpacked again and loaded as the build wrote it; one gone since the start is unpacked again.
const sha256 = (source) => createHash('sha256').update(source).digest('hex')
const pathOf = (url) =>
  typeof url === 'string' && url.startsWith(rootUrl) ? decodeURIComponent(url.slice(rootUrl.length)) : undefined
module_.registerHooks?.({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context)
    } catch (error) {
      const parent = pathOf(context.parentURL)
      if (error.code !== 'ERR_MODULE_NOT_FOUND' || parent === undefined) throw error
      repair(pathOf(new URL(specifier, context.parentURL).href) ?? specifier)
      return nextResolve(specifier, context)
    }
  },
  load(url, context, nextLoad) {
    const path = pathOf(url)
    const loaded = nextLoad(url, context)
    if (path === undefined || !FILES[path] || sha256(loaded.source) === FILES[path][1]) return loaded
    repair(path)
    return {...loaded, source: bundle()[path]}
  },
})

const main = pathToFileURL(join(root, 'dist', 'main.js')).href
import(main)
  .then(({execute}) => execute({dir: main}))
  .catch((error) => {
    process.stderr.write(
      `gw: could not start (${error.code ?? error.message}). Run it again; if it persists, remove ${root}.\n`,
    )
    process.exit(1)
  })
