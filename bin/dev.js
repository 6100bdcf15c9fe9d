#!/usr/bin/env -S npx tsx
// Runs the TypeScript sources under tsx, without a build (development only).
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
