import {spawn, type ChildProcess} from 'node:child_process'
import {join} from 'node:path'

import {REPO_ROOT} from './shared.js'
import {tempDir} from './sandbox.js'

export interface SpawnedSandbox {
  process: ChildProcess
  baseUrl: string
  origin: string
  appid: string
  dataDir: string
  stderr: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** `gw sandbox start` as a user runs it, on a free port, making the "sandbox" profile in configDir. */
export async function spawnSandbox(configDir: string, extra: string[] = []): Promise<SpawnedSandbox> {
  const dataDir = join(configDir, 'sandbox-data')
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'sandbox', 'start', '--port', '0', '--data-dir', dataDir, '--json', ...extra], {
    env: {...process.env, GW_CONFIG_DIR: configDir, NO_COLOR: '1'},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  const info = await new Promise<{base_url: string; origin: string; merchants: {appid: string}[]}>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString()
      let parsed
      try {
        parsed = JSON.parse(stdout)
      } catch {
        return // not complete yet
      }
      if (parsed.error) reject(new Error(`sandbox failed to start: ${stdout}`))
      else resolve(parsed)
    })
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)))
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    process: child,
    baseUrl: info.base_url,
    origin: info.origin,
    appid: info.merchants[0]!.appid,
    dataDir,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      child.kill(signal)
      return exited
    },
  }
}

export {tempDir}
