#!/usr/bin/env node
// Runs the TypeScript sources without a build (development only): node --import tsx bin/dev.js
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
