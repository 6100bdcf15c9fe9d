import {join} from 'node:path'

// The same spawner the demo and the benchmarks use.
import {spawnSandbox as spawnSandboxProcess} from '../../scripts/sandbox-process.js'
import {GW_COMMAND, GW_ENV} from './gw-under-test.js'

interface SpawnedSandbox {
  baseUrl: string
  origin: string
  appid: string
  dataDir: string
  stderr: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** `gw sandbox start` of the gw under test, as a user runs it, on a free port, making the "sandbox" profile in configDir. */
export async function spawnSandbox(configDir: string, extra: string[] = []): Promise<SpawnedSandbox> {
  const dataDir = join(configDir, 'sandbox-data')
  const sandbox = await spawnSandboxProcess(
    ['--data-dir', dataDir, ...extra],
    {GW_CONFIG_DIR: configDir, NO_COLOR: '1', NODE_ENV: undefined, ...GW_ENV},
    GW_COMMAND,
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
