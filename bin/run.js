#!/usr/bin/env node
import module from 'node:module'

// gw keeps its history in the SQLite built into Node 22.13 and later: an older Node gets one line
// saying what to do, never a stack trace from deep inside.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(
    `gw needs Node.js 22.13 or later; this is Node.js ${process.versions.node}. Install a current LTS from https://nodejs.org, or use gw's single executable, which carries its own Node (README: "Installing gw").\n`,
  )
  process.exit(2)
}
// Node 22.1+ caches compiled code between runs.
module.enableCompileCache?.()
// Stack traces name the TypeScript sources under DEBUG (the bundle ships its source maps).
if (process.env.DEBUG) process.setSourceMapsEnabled(true)
const {execute} = await import('../dist/main.js')
await execute({dir: import.meta.url})
