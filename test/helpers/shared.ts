import {generateKeyPairSync} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/**
 * How long the tests wait for what must happen (an answer, a process's end, a line on a terminal)
 * before they call it hung: far beyond what a machine however busy takes, so no verdict depends on
 * its speed (speed is bench/'s to measure). Below vitest's own bound on a case (vitest.config.ts),
 * so a case that waits in vain says what it waited for.
 */
export const HANG_MS = 480_000

/**
 * `../shared` beside the repository, as CI lays it out (or the folder GW_SHARED_DIR names): the
 * reference the committed copies are checked against when it is there. No test needs it.
 */
export const SHARED_DIR = process.env.GW_SHARED_DIR ?? resolve(REPO_ROOT, '..', 'shared')
export const HAS_SHARED = existsSync(resolve(SHARED_DIR, 'vectors'))

/** What the tests need of ../shared, committed (test/fixtures/shared/README.md says where each came from). */
const SHARED_COPY_DIR = resolve(REPO_ROOT, 'test', 'fixtures', 'shared')

/** A file of ../shared as committed under test/fixtures/shared, by its path there (`vectors/signing.json`). */
export function sharedText(relative: string): string {
  return readFileSync(resolve(SHARED_COPY_DIR, relative), 'utf8')
}

export function readShared<T>(relative: string): T {
  return JSON.parse(sharedText(relative)) as T
}

export function tempDir(prefix = 'gw-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export function removeDir(dir: string): void {
  rmSync(dir, {recursive: true, force: true})
}

/** A file with this content in a new temporary folder. */
export function tempFile(name: string, content: string | Buffer): string {
  const path = join(tempDir('gw-unit-'), name)
  writeFileSync(path, content)
  return path
}

/**
 * The public key of a gateway of its own (a live one beside a test sandbox), in a new file: a
 * profile that names it talks to another gateway than the sandbox's, whatever its address.
 */
export const otherGatewayKey = (): string =>
  tempFile(
    'other-gateway.pem',
    generateKeyPairSync('rsa', {modulusLength: 2048}).publicKey.export({type: 'spki', format: 'pem'}),
  )

/** A cell of a CSV gw wrote, as a script reads it: identifiers past 15 digits come after a tab, which keeps them text in a spreadsheet. */
export const untab = (value: string) => value.replace(/^\t(?=\d{16,}$)/, '')

/** gw's one form of a time, as it stands in a text: ISO 8601 to the second with its offset, never Z with milliseconds. */
export const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d/
/** A value that is a time in gw's one form, and nothing else. */
export const ONE_FORM = new RegExp(`^${TIME.source}$`)
