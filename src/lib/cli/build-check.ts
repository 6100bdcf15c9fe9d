/**
 * Which build of gw this is, and whether a newer one is out: asked only by `gw version --check
 * URL`, of the build.json that whoever hands gw out publishes (npm run build:binary -- --all
 * writes it beside the executables). Nothing else in gw asks the network about builds.
 */
import {GwError} from '../errors.js'
import {send} from '../io/http.js'
import {quoted} from '../untrusted.js'

/** A build as its name says it: 0.1.0+20261127.4453574 (scripts/build-id.mjs). */
export interface Build {
  id: string
  version: string
  /** The date of its commit, YYYY-MM-DD. */
  date: string
  commit: string
  /** Built with changes not committed. */
  dirty: boolean
}

const BUILD_ID = /^(\d+\.\d+\.\d+)\+(\d{4})(\d{2})(\d{2})\.([0-9a-z]+)(\.dirty)?$/

/** The build a name stands for; undefined when it is not a build's name. */
export function buildOf(id: string): Build | undefined {
  const match = BUILD_ID.exec(id)
  if (!match) return undefined
  const [, version, year, month, day, commit, dirty] = match
  return {id, version: version!, date: `${year}-${month}-${day}`, commit: commit!, dirty: Boolean(dirty)}
}

/** Whether `other` is newer than `build`: a higher version, or the same version from a later day. */
export function isNewer(other: Build, build: Build): boolean {
  const parts = (b: Build) => [...b.version.split('.').map(Number), Number(b.date.replaceAll('-', ''))]
  const [a, b] = [parts(other), parts(build)]
  const differs = a.findIndex((n, i) => n !== b[i])
  return differs !== -1 && a[differs]! > b[differs]!
}

/** The newest build the address names (its build.json), asked once within `timeoutMs`. */
export async function publishedBuild(url: URL, timeoutMs: number): Promise<Build> {
  const unreadable = (why: string) =>
    new GwError('transport', `${url.href} did not say which build is the newest: ${why}.`, {
      advice:
        'Give the address of the build.json published beside the executables (npm run build:binary -- --all writes it).',
    })
  let answer
  try {
    answer = await send(url, {method: 'GET', timeoutMs, connectTimeoutMs: Math.min(timeoutMs, 5000), limit: 64 * 1024})
  } catch (error) {
    throw new GwError(
      'transport',
      `${url.href} could not be asked (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      {
        advice: 'Check the address and the network, then ask again.',
      },
    )
  }
  if (answer.status !== 200) throw unreadable(`it answered HTTP ${answer.status}`)
  let id: unknown
  try {
    id = (JSON.parse(answer.body.toString('utf8')) as {id?: unknown}).id
  } catch {
    throw unreadable('its answer is not JSON')
  }
  const build = typeof id === 'string' ? buildOf(id) : undefined
  if (!build) throw unreadable(`its "id" (${quoted(String(id), 60)}) is not a build's name`)
  return build
}
