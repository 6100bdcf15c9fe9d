#!/usr/bin/env node
// oclif's development entry: the built commands with development-mode diagnostics
// (stack traces, no manifest cache warnings). Rebuild with `npm run build` after a change.
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
