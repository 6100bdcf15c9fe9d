// The name of a build: the version, the date and the commit it was built from (0.1.0+20261127.4453574,
// semver's build metadata, which npm keeps in the package and its tarball's name), and `.dirty` when
// files tracked by git had changes. The commit's date, not the clock's: the same commit builds under
// the same name, so a tarball, the executables and their SHA256SUMS name one build. npm run build
// writes it to dist/build.json and into the bundle (gw --version); the package and the executables
// take it from there.
import {execFileSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

/** What git says, or undefined outside a checkout (a copy of the sources without git). */
function git(root, ...args) {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: {...process.env, TZ: 'UTC'},
    }).trim()
  } catch {
    return undefined
  }
}

/**
 * {id, version, commit, date, committed_at} of the sources in `root`. `committed_at`, the commit's
 * time (UTC), orders two builds of one day (gw version --check); the name keeps the date alone.
 */
export function buildOf(root) {
  const {version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const commit = git(root, 'rev-parse', '--short=7', 'HEAD')
  const committedAt = commit
    ? new Date(git(root, 'log', '-1', '--format=%cI')).toISOString().replace('.000Z', 'Z')
    : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
  const date = committedAt.slice(0, 10)
  const dirty = Boolean(commit && git(root, 'status', '--porcelain', '--untracked-files=no'))
  const id = `${version}+${date.replaceAll('-', '')}.${commit ?? 'nogit'}${dirty ? '.dirty' : ''}`
  return {id, version, commit: commit ?? null, date, committed_at: committedAt, dirty}
}

/** The build npm run build made: dist/build.json. */
export const builtBuild = (root) => JSON.parse(readFileSync(join(root, 'dist', 'build.json'), 'utf8'))
