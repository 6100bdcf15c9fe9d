// Node (22.1 and later) keeps the code it compiled of gw's modules between runs: about a tenth of
// a command's start-up (bench/README.md). Kept in a folder of the user's alone, as the executable's
// unpacked bundle is: code read from a folder another user can write would run as this user, so
// Node's default (the system's temporary folder, shared by every user) is never used. Where no such
// folder can be had, gw runs without the cache.
//
// Node's built-ins are taken as the bundle takes them, never imported: an import builds a module's
// ES facade, which reads every export, and node:fs's lazy ones then load Node's streams and
// fs/promises (about a tenth of a query's start, bench/README.md). bin/run.js imports this after
// node-check.js, so the Node is one that has process.getBuiltinModule.
const {mkdirSync, statSync} = process.getBuiltinModule('node:fs')
const module = process.getBuiltinModule('node:module')
const {homedir} = process.getBuiltinModule('node:os')
const {join} = process.getBuiltinModule('node:path')

/** The system's place for a user's caches (as the single executable's launcher has it): gw's folder there. */
function gwCache() {
  if (process.platform === 'win32')
    return join(process.env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'gw', 'Cache')
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'gw')
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gw')
}

/** Whether `path` is a folder of this user's that no one else can write (where owners and modes are the system's). */
function ownFolder(path) {
  const folder = statSync(path)
  const uid = process.getuid?.()
  return folder.isDirectory() && (uid === undefined || (folder.uid === uid && (folder.mode & 0o022) === 0))
}

export function enableCompileCache() {
  if (!module.enableCompileCache) return
  const base = gwCache()
  const folder = join(base, 'compile-cache')
  try {
    mkdirSync(folder, {recursive: true, mode: 0o700})
    if (ownFolder(base) && ownFolder(folder)) module.enableCompileCache(folder)
  } catch {
    // No cache folder (a home that cannot be written): gw runs as fast as it did before the cache.
  }
}
