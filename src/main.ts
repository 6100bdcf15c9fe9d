/**
 * The entry of the bundled build: oclif's execute, from the one copy of oclif the bundle holds
 * (the commands, the help class and the hook share it), for bin/run.js and bin/dev.js. oclif's
 * version is the build's name (scripts/build-id.mjs, put here by the build): `gw --version` and the
 * reports' audit summaries say which build made them, in every installed form.
 */
import {fileURLToPath} from 'node:url'

import {execute as oclifExecute} from '@oclif/core'

declare const GW_BUILD: string

export const execute = ({dir, development}: {dir: string; development?: boolean}) =>
  oclifExecute({development, loadOptions: {root: fileURLToPath(dir), version: GW_BUILD}})
