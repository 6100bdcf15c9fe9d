import {join} from 'node:path'

// The same spawner the demo and the benchmarks use.
import {spawnSandbox as spawnSandboxProcess} from '../../scripts/sandbox-process.js'

interface SpawnedSandbox {
  baseUrl: string
  origin: string
  appid: string
  dataDir: string
  stderr: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/**
 * `gw sandbox start` as a user runs it, on a free port, making the "sandbox" profile in configDir;
 * `gw` says how to run gw when it is not this checkout's (an installed one, the single executable).
 */
export async function spawnSandbox(configDir: string, extra: string[] = [], gw?: string[]): Promise<SpawnedSandbox> {
  const dataDir = join(configDir, 'sandbox-data')
  const sandbox = await spawnSandboxProcess(
    ['--data-dir', dataDir, ...extra],
    {GW_CONFIG_DIR: configDir, NO_COLOR: '1', NODE_ENV: undefined},
    gw,
  )
  return {
    baseUrl: sandbox.info.base_url,
    origin: sandbox.info.origin,
    appid: sandbox.info.merchants[0]!.appid,
    dataDir,
    stderr: sandbox.stderr,
    stop: sandbox.stop,
  }
}
