#!/usr/bin/env node
import module from 'node:module'

import {execute} from '@oclif/core'

// Node 22.1+ caches compiled code between runs; on Node 20 this is absent and skipped.
module.enableCompileCache?.()
await execute({dir: import.meta.url})
