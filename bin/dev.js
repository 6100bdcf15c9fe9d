#!/usr/bin/env node
// oclif's development entry: the built commands with development-mode diagnostics (stack
// traces with source maps, no manifest cache). Rebuild with `npm run build` after a change.
process.setSourceMapsEnabled(true)
const {execute} = await import('../dist/main.js')
await execute({development: true, dir: import.meta.url})
