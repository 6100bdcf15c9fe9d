// npm run test:installed (scripts/test-installed.mjs): the end-to-end cases and these, run against
// an installed gw, files chosen by the script. One project: the repository's tiers would run a
// named file once in each tier whose folder it is not in.
import {fileURLToPath} from 'node:url'

import {defineConfig} from 'vitest/config'

import base from '../../vitest.config.js'

const {projects: _tiers, ...shared} = base.test ?? {}

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  // The repository's bounds: they catch a hang, however many times its native time a case takes under qemu or wine.
  test: {
    ...shared,
    include: [
      'test/commands/**/*.test.ts',
      'test/journeys/**/*.test.ts',
      'test/e2e/**/*.test.ts',
      'test/installed/**/*.test.ts',
    ],
  },
})
