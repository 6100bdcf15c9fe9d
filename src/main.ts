/**
 * The entry of the bundled build: oclif's execute, from the one copy of oclif the bundle holds
 * (the commands, the help class and the hook share it), for bin/run.js and bin/dev.js. oclif's
 * version is the build's name (scripts/build-id.mjs, put here by the build): `gw --version` and the
 * reports' audit summaries say which build made them, in every installed form.
 */
import {arch, platform} from 'node:os'
import {fileURLToPath} from 'node:url'

declare const GW_BUILD: string

/**
 * The line `gw --version` prints, as oclif writes its user agent: gw/BUILD PLATFORM-ARCH
 * node-VERSION, the platform `wsl` under Windows' Linux (oclif's own test, is-wsl).
 */
async function versionLine(): Promise<string> {
  const {default: wsl} = await import('is-wsl')
  return `gw/${GW_BUILD} ${wsl ? 'wsl' : platform()}-${arch() === 'ia32' ? 'x86' : arch()} node-${process.version}`
}

export async function execute({dir, development}: {dir: string; development?: boolean}): Promise<void> {
  // `gw --version` (oclif's test: the first word) uses nothing of oclif, whose load is most of a
  // start (bench/README.md): it is answered here, and oclif is loaded for everything else.
  if (process.argv[2] === '--version') return void process.stdout.write(`${await versionLine()}\n`)
  // oclif is CommonJS: imported, it is its module.exports (as Node imports one).
  const {default: oclif} = await import('@oclif/core')
  await oclif.execute({development, loadOptions: {root: fileURLToPath(dir), version: GW_BUILD}})
}
