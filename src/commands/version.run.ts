/**
 * Which build of gw this is, and whether a newer one is out: asked only by `gw version --check
 * URL`, of the build.json that whoever hands gw out publishes (npm run build:binary -- --all
 * writes it beside the executables). Nothing else in gw asks the network about builds.
 */
import {GwError} from '../lib/errors.js'
import {send} from '../lib/io/http.js'
import {quoted} from '../lib/untrusted.js'

/** A build as its name says it: 0.1.0+20261127.4453574 (scripts/build-id.mjs), and when its commit was made. */
export interface Build {
  id: string
  version: string
  /** The date of its commit, YYYY-MM-DD. */
  date: string
  commit: string
  /** Built with changes not committed. */
  dirty: boolean
  /** The time of its commit (UTC), which orders builds of one day; unknown for a build.json of an earlier gw. */
  committed_at?: string
}

const BUILD_ID = /^(\d+\.\d+\.\d+)\+(\d{4})(\d{2})(\d{2})\.([0-9a-z]+)(\.dirty)?$/
const COMMIT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

/** The build a name stands for (with its commit's time, when it is one); undefined when it is not a build's name. */
export function buildOf(id: string, committedAt?: unknown): Build | undefined {
  const match = BUILD_ID.exec(id)
  if (!match) return undefined
  const [, version, year, month, day, commit, dirty] = match
  const build = {id, version: version!, date: `${year}-${month}-${day}`, commit: commit!, dirty: Boolean(dirty)}
  const time = typeof committedAt === 'string' && COMMIT_TIME.test(committedAt) ? Date.parse(committedAt) : NaN
  return Number.isNaN(time) ? build : {...build, committed_at: committedAt as string}
}

declare const GW_COMMITTED_AT: string

/** The build running, by its name: with its commit's time, which the build puts in the bundle (not known from the sources). */
export const runningBuild = (id: string) =>
  buildOf(id, typeof GW_COMMITTED_AT === 'string' ? GW_COMMITTED_AT : undefined)

/**
 * How `other` stands to `build`: a higher version, or the same version of a later day or (both
 * builds knowing it) a later commit time, is newer; two builds of one version and day of which
 * one does not know its commit's time cannot be ordered.
 */
export function compareBuilds(other: Build, build: Build): 'newer' | 'same' | 'not newer' | 'not known' {
  if (other.id === build.id) return 'same'
  const time = (b: Build) => (b.committed_at ? Date.parse(b.committed_at) : undefined)
  const parts = (b: Build) => [...b.version.split('.').map(Number), Number(b.date.replaceAll('-', '')), time(b)]
  const [a, b] = [parts(other), parts(build)]
  const differs = a.findIndex((n, i) => n !== b[i])
  if (differs === -1) return 'not newer'
  if (a[differs] === undefined || b[differs] === undefined) return 'not known'
  return a[differs] > b[differs] ? 'newer' : 'not newer'
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
  let named: {id?: unknown; committed_at?: unknown}
  try {
    named = (JSON.parse(answer.body.toString('utf8')) ?? {}) as typeof named
  } catch {
    throw unreadable('its answer is not JSON')
  }
  const id = named.id
  const build = typeof id === 'string' ? buildOf(id, named.committed_at) : undefined
  if (!build) throw unreadable(`its "id" (${quoted(String(id), 60)}) is not a build's name`)
  return build
}
