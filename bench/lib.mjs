// Shared pieces of the benchmarks: a sandbox, seeded orders, gw as a child process, timing.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {Pool} from 'undici'

import {spawnSandbox} from '../scripts/sandbox-process.js'
import {compactTimestamp} from '../dist/lib/gateway/protocol/time.js'
import {newNonce, parsePrivateKey, sign} from '../dist/lib/gateway/signing.js'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(ROOT, 'bin', 'run.js')

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), prefix))
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/**
 * `gw sandbox start` in a process of its own (so that neither gw nor the bare loop shares a
 * core with it), and the environment that makes gw use it (a profile written nowhere).
 */
export async function benchSandbox() {
  const dataDir = tempDir('gw-bench-sandbox-')
  const configDir = tempDir('gw-bench-config-')
  const {info, stop} = await spawnSandbox(['--data-dir', dataDir, '--no-profile', '--quiet'], {
    GW_CONFIG_DIR: configDir,
  })
  const sandbox = {info}
  const merchant = info.merchants[0]
  return {
    sandbox,
    appid: merchant.appid,
    privateKeyPem: readFileSync(merchant.private_key_file, 'utf8'),
    baseUrl: sandbox.info.base_url,
    env: {
      GW_CONFIG_DIR: configDir,
      GW_APPID: merchant.appid,
      GW_PRIVATE_KEY: merchant.private_key_file,
      GW_GATEWAY_PUBLIC_KEY: sandbox.info.gateway_public_key_file,
      GW_BASE_URL: sandbox.info.base_url,
    },
    async close() {
      await stop()
      rmSync(dataDir, {recursive: true, force: true})
      rmSync(configDir, {recursive: true, force: true})
    },
  }
}

/**
 * The bare loop: the same signed requests with undici at a given concurrency and nothing
 * else: no validation, no verification, no journal, no CSV. The reference rate.
 */
export async function rawLoop({baseUrl, appid, privateKeyPem, operation, paramsFor, count, concurrency}) {
  const key = parsePrivateKey(privateKeyPem)
  const url = new URL(baseUrl)
  const pool = new Pool(url.origin, {connections: concurrency})
  let next = 0
  let failures = 0
  const started = performance.now()
  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (next < count) {
        const i = next++
        const params = {appid, nonce_str: newNonce(), time_stamp: compactTimestamp(), ...paramsFor(i)}
        params.sign = sign(params, key, 'rsa-md5')
        const response = await pool.request({
          path: `${url.pathname}/${operation}`,
          method: 'POST',
          headers: {'content-type': 'application/x-www-form-urlencoded'},
          body: new URLSearchParams(params).toString(),
        })
        const body = await response.body.json()
        if (body.code !== 0) failures++
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  return {rate: count / seconds, seconds, failures}
}

/** Creates and pays `count` orders straight through the sandbox: their merchant numbers. */
export async function seedPaidOrders(bench, prefix, count, totalFee = 100_000) {
  const numbers = Array.from({length: count}, (_, i) => `${prefix}${i}`)
  await rawLoop({
    ...bench,
    operation: 'native_pay',
    count,
    concurrency: 8,
    paramsFor: (i) => ({channel: 'wechat', mch_order_no: numbers[i], total_fee: totalFee, fee_type: 'THB'}),
  })
  const pool = new Pool(bench.sandbox.info.origin, {connections: 8})
  let next = 0
  await Promise.all(
    Array.from({length: 8}, async () => {
      while (next < count) {
        const mch = numbers[next++]
        const response = await pool.request({
          path: '/sandbox/pay',
          method: 'POST',
          headers: {'content-type': 'application/json'},
          body: JSON.stringify({mch_order_no: mch}),
        })
        await response.body.dump()
      }
    }),
  )
  await pool.close()
  return numbers
}

/**
 * Runs gw as a child process; resolves with wall time, exit code and peak memory (maxRSS of
 * the gw process, in MiB, reported by a tiny preloaded hook).
 */
export function runGw(args, env = {}) {
  const hook = join(ROOT, 'bench', 'maxrss-hook.mjs')
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', hook, BIN, ...args], {
      env: {...process.env, ...env, NO_COLOR: '1'},
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    })
    let stderr = ''
    let rss = ''
    child.stdout.resume()
    child.stderr.on('data', (c) => (stderr += c))
    child.stdio[3].on('data', (c) => (rss += c))
    child.on('error', reject)
    child.on('close', (code) => resolve({ms: performance.now() - started, code, stderr, maxRssMiB: Number(rss) / 1024}))
  })
}

/** Wall time of a command, for start-up comparisons. */
export function timeCommand(command, args, env = {}) {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {env: {...process.env, ...env}, stdio: 'ignore'})
    child.on('error', reject)
    child.on('close', (code) => resolve({ms: performance.now() - started, code}))
  })
}
