/**
 * The gw the end-to-end tests run: this checkout's build (bin/run.js on the tests' own Node, from a
 * copy of its own), or, for `npm run test:installed`, an installed one: GW_TEST_COMMAND (a JSON
 * array: the package's `gw`, a single executable, or either behind qemu or wine) run with
 * GW_TEST_PATH as its PATH (the Node of the line under test first; none at all for an executable).
 */
import {join} from 'node:path'

import {inject} from 'vitest'

import {shellWord} from '../../src/lib/errors.js'
import {REPO_ROOT} from './shared.js'

/** An installed gw is under test (npm run test:installed): every case runs it as a process. */
export const INSTALLED = process.env.GW_TEST_COMMAND !== undefined

/**
 * The build the tests run: this checkout's, as vitest's global setup copied it when the run began
 * (build-copy.ts), so that a rebuild meanwhile never changes it. Refused when dist/ was older than
 * src/, naming the command that builds; asked only when a test first starts gw as a process.
 */
function built(): string[] {
  const build = inject('gwBuild')
  if (!build.dir) throw new Error(build.refused ?? 'no build was copied for the tests')
  return [process.execPath, join(build.dir, 'bin', 'run.js')]
}

/** A file of the build the tests run (`dist/build.json`), as its copy holds it. */
export const builtFile = (...path: string[]) => join(inject('gwBuild').dir ?? REPO_ROOT, ...path)

let command: string[] | undefined
/** The gw under test as a program and its first arguments. */
export function gwUnderTest(): string[] {
  command ??= process.env.GW_TEST_COMMAND ? (JSON.parse(process.env.GW_TEST_COMMAND) as string[]) : built()
  return command
}

/** What gw's environment takes over the tests' own. */
export const GW_ENV: Record<string, string> = process.env.GW_TEST_PATH ? {PATH: process.env.GW_TEST_PATH} : {}

/**
 * The environment of every gw a test starts, spawned or in-process: the test's own without any GW_
 * variable the developer may have exported (GW_PROFILE, GW_CONFIG_DIR, a key, a base URL: a gw user
 * may well have them) and without NODE_ENV (vitest's 'test'), colours off; then `extra`.
 */
export function gwEnvironment(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('GW_') && name !== 'NODE_ENV') env[name] = value
  return {...env, NO_COLOR: '1', ...GW_ENV, ...extra}
}

/**
 * The environment of a shell or terminal a test runs gw in (by gwShellLine, which gives gw its own
 * PATH): gw's, but with the test's PATH, where the shell finds tmux, cat and sleep (an executable's
 * PATH has no programs at all).
 */
export const shellEnvironment = (extra: Record<string, string | undefined> = {}) =>
  gwEnvironment({PATH: process.env.PATH, ...extra})

/** gw with `args` as a POSIX shell line, for the tests that run it from a shell or a terminal. */
export function gwShellLine(args: string[]): string {
  const words = [...gwUnderTest(), ...args].map(shellWord).join(' ')
  return GW_ENV.PATH === undefined ? words : `env PATH=${shellWord(GW_ENV.PATH)} ${words}`
}
