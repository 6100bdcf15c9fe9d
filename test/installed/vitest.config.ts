// npm run test:installed (scripts/test-installed.mjs): the end-to-end cases and these, run against
// an installed gw, files chosen by the script.
import {fileURLToPath} from 'node:url'

import {defineConfig, mergeConfig} from 'vitest/config'

import base from '../../vitest.config.js'

export default mergeConfig(
  base,
  defineConfig({
    root: fileURLToPath(new URL('../..', import.meta.url)),
    test: {include: ['test/installed/**/*.test.ts']},
  }),
)
