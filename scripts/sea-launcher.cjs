// The launcher inside the single executable (npm run build:binary). The executable carries
// gw's bundle as an asset; on first run it is written, once, to a cache folder named by its
// build (the system's own place for caches), then every run loads it from there: oclif and the
// workbook worker need real files. The cache runs code, so it is the user's alone: made 0700, and
// one that another user owns or others could write (a shared GW_BINARY_CACHE) is refused, never
// used or removed. What is there is checked against what the build wrote (each file's size on
// every start, the SHA-256 of the files oclif reads on every start, of each module as it is
// loaded, and of every file before a worker loads from there; a module the build did not write is
// never loaded): a file a cache cleaner removed or a full disk cut short is unpacked again, never a
// module error. The first run of a build removes the unpacked copies of the builds before it.
const {createHash, randomBytes} = require('node:crypto')
const {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs')
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

/** What to do when the cache cannot be used: a folder of the user's own, which gw makes private. */
const OWN_CACHE = 'set GW_BINARY_CACHE to a folder of your own that does not exist yet (gw makes it, mode 700)'

function cannot(error) {
  process.stderr.write(
    `gw: cannot unpack itself into ${root} (${error.code ?? error.message}). Nothing was sent. To run, ${OWN_CACHE}.\n`,
  )
  process.exit(1)
}

/**
 * Refuses (exit 2) a folder of the cache that is not the user's alone: another user's, one others
 * can read or write, or a link (`follow`: the cache's own folder may be one, to a folder of the
 * user's). Nothing in it is run, or removed. (Owners and modes are not Windows': there the
 * cache is under the user's own profile.)
 */
function refuseNotOwn(path, follow) {
  const uid = process.getuid?.()
  if (uid === undefined) return
  const folder = gone(() => (follow ? statSync : lstatSync)(path))
  // Moved away by another run since it was seen (a repair): nothing there to refuse.
  if (!folder) return
  const mode = (folder.mode & 0o7777).toString(8).padStart(4, '0')
  const why = !folder.isDirectory()
    ? 'it is not a folder'
    : folder.uid !== uid
      ? `it belongs to another user (uid ${folder.uid}), not to you (uid ${uid})`
      : folder.mode & 0o077
        ? `its mode is ${mode}, not 0700: others can look in or write it`
        : undefined
  if (!why) return
  process.stderr.write(
    `gw: ${path} is not used: ${why}. gw runs code from its cache, so only from a folder of yours alone. Nothing was sent. To run, ${OWN_CACHE}.\n`,
  )
  process.exit(2)
}

/**
 * What `act` returns, or undefined when what it works on is gone: runs of gw at once (a shell's
 * completion and a command, CI lanes sharing one cache) move and remove the cache's folders while
 * another reads them, and a folder gone is no error of this run's.
 */
function gone(act) {
  try {
    return act()
  } catch (error) {
    if (error.code !== 'ENOENT') throw error
    return undefined
  }
}

/**
 * Writes the bundle to a staging folder and moves it into place. Runs at once each stage their
 * own, under a name no other run has (the process id and random bytes: processes of two containers
 * sharing the cache can have one id): the one that moves second keeps the first's copy when it is
 * whole. A copy there that is damaged (`replacing`) or unfinished is moved aside, then removed.
 */
function unpack(replacing) {
  const own = `${root}.${process.pid}-${randomBytes(6).toString('hex')}`
  const staging = `${own}.tmp`
  mkdirSync(staging, {mode: 0o700})
  for (const [path, content] of Object.entries(bundle())) {
    mkdirSync(dirname(join(staging, path)), {recursive: true, mode: 0o700})
    writeFileSync(join(staging, path), content, {mode: 0o600})
  }
  writeFileSync(join(staging, '.complete'), BUILD)
  const aside = `${own}.old.tmp`
  if (replacing) gone(() => renameSync(root, aside))
  const whole = () => existsSync(join(root, '.complete')) && firstDamaged() === undefined
  try {
    renameSync(staging, root)
  } catch (error) {
    if (!existsSync(root)) throw error
    // A copy is there: another run's, moved in first, used when whole; one left unfinished (by a gw
    // before staging folders) or damaged is moved aside for this one, unless another run's came
    // in meanwhile.
    if (!whole()) {
      gone(() => renameSync(root, aside))
      try {
        renameSync(staging, root)
      } catch (again) {
        if (!whole()) throw again
      }
    }
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

/**
 * The unpacked copies of other builds, and staging folders of runs that died. Each is first moved
 * to a name of this run's: two first runs at once never remove one folder together (one would find
 * files gone under it), and a run of that other build still using its copy finds it whole or gone
 * (it unpacks itself again), never half removed. Tidying only: what cannot go now goes next time.
 */
function removeOtherBuilds() {
  for (const entry of readdirSync(base)) {
    const path = join(base, entry)
    try {
      const stale = entry.endsWith('.tmp')
        ? Date.now() - statSync(path).mtimeMs > STALE_STAGING_MS
        : entry !== BUILD && existsSync(join(path, '.complete'))
      if (!stale) continue
      const doomed = `${root}.${process.pid}-${randomBytes(6).toString('hex')}.old.tmp`
      renameSync(path, doomed)
      rmSync(doomed, {recursive: true, force: true})
    } catch {
      // Moved or removed by another run meanwhile, or still open in one (Windows).
    }
  }
}

const sha256 = (source) => createHash('sha256').update(source).digest('hex')
/** Whether a file of the copy has the content the build wrote. */
function asBuilt(path) {
  try {
    return sha256(readFileSync(join(root, path))) === FILES[path][1]
  } catch {
    return false
  }
}

/**
 * The first file that is not as the build wrote it (missing, or of another size; `contents`:
 * those files' content too), if any.
 */
function firstDamaged(contents = []) {
  if (!existsSync(join(root, '.complete'))) return undefined
  for (const [path, [size]] of Object.entries(FILES)) {
    try {
      if (statSync(join(root, path)).size !== size) return path
    } catch {
      return path
    }
  }
  return contents.find((path) => !asBuilt(path))
}

/** What oclif reads with fs rather than loads as a module: checked whole on every start. */
const READ_BY_OCLIF = ['package.json', 'oclif.manifest.json']

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
  mkdirSync(base, {recursive: true, mode: 0o700})
} catch (error) {
  cannot(error)
}
refuseNotOwn(base, true)
if (existsSync(root)) refuseNotOwn(root, false)
try {
  if (!existsSync(join(root, '.complete'))) {
    unpack(false)
    removeOtherBuilds()
  } else {
    const damaged = firstDamaged(READ_BY_OCLIF)
    if (damaged) repair(damaged)
  }
} catch (error) {
  cannot(error)
}

// Node keeps the code it compiled of the bundle's modules (Node 22.1 and later) in the copy's own
// folder, checked above as the user's alone (about a tenth of a command's start-up; never Node's
// default, the system's shared temporary folder); it goes with the copy when a build removes it.
module_.enableCompileCache?.(join(root, '.compile-cache'))

// Each module of the bundle is checked as it is loaded: one whose content is not the build's is
// unpacked again and loaded as the build wrote it; one gone since the start is unpacked again;
// one the build did not write is never loaded.
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
    if (path !== undefined && !FILES[path]) {
      process.stderr.write(
        `gw: ${join(root, path)} is not part of this build: gw runs nothing else from its cache. Nothing was sent.\n`,
      )
      process.exit(2)
    }
    const loaded = nextLoad(url, context)
    if (path === undefined || sha256(loaded.source) === FILES[path][1]) return loaded
    repair(path)
    return {...loaded, source: bundle()[path]}
  },
})

// A worker thread loads its modules without these hooks (they are this thread's): before one
// starts from the cache, every file there is checked against the build, and unpacked again if not.
const threads = require('node:worker_threads')
const {Worker} = threads
threads.Worker = class CheckedWorker extends Worker {
  constructor(entry, options) {
    if (pathOf(String(entry)) !== undefined) {
      const damaged = firstDamaged(Object.keys(FILES))
      if (damaged) repair(damaged)
    }
    super(entry, options)
  }
}
module_.syncBuiltinESMExports()

const main = pathToFileURL(join(root, 'dist', 'main.js')).href
import(main)
  .then(({execute}) => execute({dir: main}))
  .catch((error) => {
    process.stderr.write(
      `gw: could not start (${error.code ?? error.message}). Run it again; if it persists, remove ${root}.\n`,
    )
    process.exit(1)
  })
