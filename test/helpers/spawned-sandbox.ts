import {join} from 'node:path'

// The same spawner the demo and the benchmarks use.
import {spawnSandbox as spawnSandboxProcess} from '../../scripts/sandbox-process.js'
import {GW_ENV, gwUnderTest} from './gw-under-test.js'

interface SpawnedSandbox {
  baseUrl: string
  origin: string
  appid: string
  dataDir: string
  /** What the sandbox said on stdout once it listened (--json): its profile among the rest. */
  info: {profile: string | null; gateway_zone: string}
  stderr: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

interface SpawnOptions {
  /** The sandbox's own environment beyond the config dir (TZ: the zone it writes its times in). */
  env?: Record<string, string>
  /** Its data dir (default: sandbox-data in configDir). */
  dataDir?: string
}

/** `gw sandbox start` of the gw under test, as a user runs it, on a free port, making its profile in configDir. */
export async function spawnSandbox(
  configDir: string,
  extra: string[] = [],
  options: SpawnOptions = {},
): Promise<SpawnedSandbox> {
  const dataDir = options.dataDir ?? join(configDir, 'sandbox-data')
  const sandbox = await spawnSandboxProcess(
    ['--data-dir', dataDir, ...extra],
    {GW_CONFIG_DIR: configDir, NO_COLOR: '1', NODE_ENV: undefined, ...GW_ENV, ...options.env},
    gwUnderTest(),
  )
  return {
    baseUrl: sandbox.info.base_url,
    origin: sandbox.info.origin,
    appid: sandbox.info.merchants[0]!.appid,
    dataDir,
    info: sandbox.info as unknown as SpawnedSandbox['info'],
    stderr: sandbox.stderr,
    stop: sandbox.stop,
  }
}
