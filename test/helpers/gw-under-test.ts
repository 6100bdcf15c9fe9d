/**
 * The gw the end-to-end tests run: this checkout's (bin/run.js on the tests' own Node), or, for
 * `npm run test:installed`, an installed one: GW_TEST_COMMAND (a JSON array: the package's `gw`, a
 * single executable, or either behind qemu or wine) run with GW_TEST_PATH as its PATH (the Node of
 * the line under test first; none at all for an executable).
 */
import {join} from 'node:path'

import {shellWord} from '../../src/lib/errors.js'
import {REPO_ROOT} from './shared.js'

export const GW_COMMAND: string[] = process.env.GW_TEST_COMMAND
  ? (JSON.parse(process.env.GW_TEST_COMMAND) as string[])
  : [process.execPath, join(REPO_ROOT, 'bin', 'run.js')]

/** What gw's environment takes over the tests' own. */
export const GW_ENV: Record<string, string> = process.env.GW_TEST_PATH ? {PATH: process.env.GW_TEST_PATH} : {}

/** gw with `args` as a POSIX shell line, for the tests that run it from a shell or a terminal. */
export function gwShellLine(args: string[]): string {
  const words = [...GW_COMMAND, ...args].map(shellWord).join(' ')
  return GW_ENV.PATH === undefined ? words : `env PATH=${shellWord(GW_ENV.PATH)} ${words}`
}
