#!/usr/bin/env node
// First: what follows needs a Node that gw supports.
import './node-check.js'
import {enableCompileCache} from './compile-cache.js'

enableCompileCache()
// Stack traces name the TypeScript sources under DEBUG (the bundle ships its source maps).
if (process.env.DEBUG) process.setSourceMapsEnabled(true)
const {execute} = await import('../dist/main.js')
await execute({dir: import.meta.url})
