#!/usr/bin/env node
import module from 'node:module'

import './node-check.js'

// Node 22.1+ caches compiled code between runs.
module.enableCompileCache?.()
// Stack traces name the TypeScript sources under DEBUG (the bundle ships its source maps).
if (process.env.DEBUG) process.setSourceMapsEnabled(true)
const {execute} = await import('../dist/main.js')
await execute({dir: import.meta.url})
