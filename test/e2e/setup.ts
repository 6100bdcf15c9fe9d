/**
 * The end-to-end tier runs the built gw (dist/): a dist/ older than a file of src/ would test
 * yesterday's gw without a word, so it is refused, naming the file and the command that builds.
 */
import {readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'

import {REPO_ROOT} from '../helpers/shared.js'

function newest(dir: string): {path: string; ms: number} {
  let found = {path: dir, ms: 0}
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    const file = entry.isDirectory() ? newest(path) : {path, ms: statSync(path).mtimeMs}
    if (file.ms > found.ms) found = file
  }
  return found
}

export default function setup(): void {
  // Tests of an installed gw (npm run test:installed) do not run dist/.
  if (process.env.GW_TEST_COMMAND) return
  const built = statSync(join(REPO_ROOT, 'dist', 'commands'), {throwIfNoEntry: false})
  const source = newest(join(REPO_ROOT, 'src'))
  const manifest = statSync(join(REPO_ROOT, 'oclif.manifest.json'), {throwIfNoEntry: false})
  if (!built || !manifest || manifest.mtimeMs < source.ms)
    throw new Error(
      `dist/ is older than ${relative(REPO_ROOT, source.path)}: the end-to-end tests would run an old gw. Build first: npm run build`,
    )
}
