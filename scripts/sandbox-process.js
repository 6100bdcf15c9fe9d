// `gw sandbox start --json` as a child process, resolved once it listens: used by the demo,
// the benchmarks and the tests, which all need a sandbox of their own.
import {spawn} from 'node:child_process'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js')

/**
 * @param {string[]} args extra flags for `gw sandbox start` (it gets --port 0 --json)
 * @param {Record<string, string | undefined>} env
 * @param {string[]} gw how to run gw: this checkout's by default, or an installed one
 * @returns {Promise<{info: {base_url: string, origin: string, gateway_public_key_file: string, merchants: {appid: string, private_key_file: string}[]}, child: import('node:child_process').ChildProcess, stderr: () => string, stop: (signal?: NodeJS.Signals) => Promise<number | null>}>}
 */
export async function spawnSandbox(args = [], env = {}, gw = [process.execPath, BIN]) {
  const [command, ...before] = gw
  const child = spawn(command, [...before, 'sandbox', 'start', '--port', '0', '--json', ...args], {
    env: {...process.env, ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
  const info = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      let parsed
      try {
        parsed = JSON.parse(stdout)
      } catch {
        return // not all of it yet
      }
      if (parsed.error) reject(new Error(`the sandbox did not start: ${parsed.error.message}`))
      else resolve(parsed)
    })
    void exited.then((code) => reject(new Error(`the sandbox exited with ${code}: ${stderr}`)))
  })
  return {
    info,
    child,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      child.kill(signal)
      return exited
    },
  }
}
