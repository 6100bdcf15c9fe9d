/**
 * The gw the end-to-end tests run: this checkout's (bin/run.js on the tests' own Node), or, for
 * `npm run test:installed`, an installed one: GW_TEST_COMMAND (a JSON array: the package's `gw`, a
 * single executable, or either behind qemu or wine) run with GW_TEST_PATH as its PATH (the Node of
 * the line under test first; none at all for an executable).
 */
import {readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'

import {shellWord} from '../../src/lib/errors.js'
import {REPO_ROOT} from './shared.js'

/** An installed gw is under test (npm run test:installed): every case runs it as a process. */
export const INSTALLED = process.env.GW_TEST_COMMAND !== undefined

function newest(dir: string): {path: string; ms: number} {
  let found = {path: dir, ms: 0}
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    const file = entry.isDirectory() ? newest(path) : {path, ms: statSync(path).mtimeMs}
    if (file.ms > found.ms) found = file
  }
  return found
}

/**
 * This checkout's built gw (dist/), when it is as new as src/: a dist/ older than a file of src/
 * would test yesterday's gw without a word, so it is refused, naming the file and the command that
 * builds. Checked when a test first starts gw as a process: the command tier's in-process cases
 * need no build.
 */
function built(): string[] {
  const dist = statSync(join(REPO_ROOT, 'dist', 'commands'), {throwIfNoEntry: false})
  const source = newest(join(REPO_ROOT, 'src'))
  const manifest = statSync(join(REPO_ROOT, 'oclif.manifest.json'), {throwIfNoEntry: false})
  if (!dist || !manifest || manifest.mtimeMs < source.ms)
    throw new Error(
      `dist/ is older than ${relative(REPO_ROOT, source.path)}: the tests would run an old gw. Build first: npm run build`,
    )
  return [process.execPath, join(REPO_ROOT, 'bin', 'run.js')]
}

let command: string[] | undefined
/** The gw under test as a program and its first arguments. */
export function gwUnderTest(): string[] {
  command ??= process.env.GW_TEST_COMMAND ? (JSON.parse(process.env.GW_TEST_COMMAND) as string[]) : built()
  return command
}

/** What gw's environment takes over the tests' own. */
export const GW_ENV: Record<string, string> = process.env.GW_TEST_PATH ? {PATH: process.env.GW_TEST_PATH} : {}

/** gw with `args` as a POSIX shell line, for the tests that run it from a shell or a terminal. */
export function gwShellLine(args: string[]): string {
  const words = [...gwUnderTest(), ...args].map(shellWord).join(' ')
  return GW_ENV.PATH === undefined ? words : `env PATH=${shellWord(GW_ENV.PATH)} ${words}`
}
