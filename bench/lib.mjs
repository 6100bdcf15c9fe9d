// Shared pieces of the benchmarks: a sandbox, seeded orders, gw as a child process, timing.
import {spawn} from 'node:child_process'
import {createPrivateKey, randomBytes, sign} from 'node:crypto'
import {createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {once} from 'node:events'
import {Agent, request} from 'node:http'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {Pool} from 'undici'

import {spawnSandbox} from '../scripts/sandbox-process.js'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(ROOT, 'bin', 'run.js')

/** The folders the benchmarks made: removed when the process exits, a failed run included. */
const made = []
process.once('exit', () => made.forEach((dir) => rmSync(dir, {recursive: true, force: true})))

export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
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
export async function benchSandbox(dataDir = tempDir('gw-bench-sandbox-')) {
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
      // The zone the sandbox writes its times in, as \`gw sandbox start\` gives its profile: without
      // it every query warns of the profile's default zone (and lists every zone at the offset).
      GW_GATEWAY_ZONE: sandbox.info.gateway_zone,
    },
    /** Sets the sandbox's faults ('' for none), e.g. latency=50-150ms. */
    async faults(spec) {
      const response = await fetch(`${info.origin}/sandbox/faults`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({spec}),
      })
      if (response.status !== 200) throw new Error(`faults ${spec}: HTTP ${response.status}`)
    },
    /** Stops the sandbox, keeping its data dir (to start another on it). */
    stop,
    async close() {
      await stop()
      rmSync(dataDir, {recursive: true, force: true})
      rmSync(configDir, {recursive: true, force: true})
    },
  }
}

/** The request time stamp of the document: yyyyMMddHHmmss, local time. */
function timeStamp() {
  const d = new Date()
  const pad = (n) => String(n).padStart(2, '0')
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`
}

/** The signed form body of a request, as docs/design.md signs it, written here without gw's code. */
function signedBody(params, key) {
  const canonical = Object.keys(params)
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('')
  return new URLSearchParams({...params, sign: sign('md5', Buffer.from(canonical), key).toString('hex')}).toString()
}

/** One POST over node:http keep-alive, resolving with the answer's text. */
function httpPost(agent, url, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, {method: 'POST', agent, headers: {'content-type': 'application/x-www-form-urlencoded'}})
    req.on('error', reject)
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve(text))
      res.on('error', reject)
    })
    req.end(body)
  })
}

/**
 * The bare loop: the same signed form requests at a given concurrency and nothing else (no
 * validation, no verification, no journal, no CSV), key parsed once, connections kept alive,
 * over `transport`: undici's pool or node:http's agent. The reference rate.
 */
export async function rawLoop({
  baseUrl,
  appid,
  privateKeyPem,
  operation,
  paramsFor,
  count,
  concurrency,
  transport = 'http',
}) {
  const key = createPrivateKey(privateKeyPem)
  const url = new URL(`${baseUrl}/${operation}`)
  const pool = transport === 'undici' ? new Pool(url.origin, {connections: concurrency}) : undefined
  const agent = transport === 'http' ? new Agent({keepAlive: true, maxSockets: concurrency}) : undefined
  const post = async (body) => {
    if (!pool) return httpPost(agent, url, body)
    const headers = {'content-type': 'application/x-www-form-urlencoded'}
    const response = await pool.request({path: url.pathname, method: 'POST', headers, body})
    return response.body.text()
  }
  let next = 0
  let failures = 0
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (next < count) {
        const i = next++
        const params = {appid, nonce_str: randomBytes(16).toString('hex'), time_stamp: timeStamp(), ...paramsFor(i)}
        const answer = JSON.parse(await post(signedBody(params, key)))
        if (answer.code !== 0) failures++
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  // This process's CPU (user and system) over the loop: it runs nothing else meanwhile.
  const cpu = process.cpuUsage(cpuBefore)
  await pool?.close()
  agent?.destroy()
  return {rate: count / seconds, seconds, failures, transport, cpuMs: (cpu.user + cpu.system) / 1000}
}

/** The true floor: the faster of the two transports, each measured over the same requests (its CPU that run's). */
export async function floorLoop(options) {
  const runs = [await rawLoop({...options, transport: 'http'}), await rawLoop({...options, transport: 'undici'})]
  return runs.reduce((best, run) => (run.rate > best.rate ? run : best))
}

/** Creates and pays `count` orders (of `channel`) straight through the sandbox: their merchant numbers. */
export async function seedPaidOrders(bench, prefix, count, totalFee = 100_000, channel = 'wechat') {
  const numbers = Array.from({length: count}, (_, i) => `${prefix}${i}`)
  await rawLoop({
    ...bench,
    operation: 'native_pay',
    count,
    concurrency: 8,
    paramsFor: (i) => ({channel, mch_order_no: numbers[i], total_fee: totalFee, fee_type: 'THB'}),
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
 * The CPU (user and system, ms) used by this process's children that have ended and been
 * waited for: Linux's /proc/self/stat (cutime and cstime, in ticks of 10 ms); NaN elsewhere.
 * Read around one child's run, it is that child's CPU to its very end (its exit handlers too).
 */
function endedChildrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ').at(-1).split(' ')
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return Number.NaN
  }
}

/**
 * Runs gw (this checkout's, or the build at `bin`) as a child process, one at a time; resolves
 * with wall time, exit code, peak memory (maxRSS of the gw process, in MiB, reported by a tiny
 * preloaded hook) and the CPU it used (user and system, ms).
 */
export function runGw(args, env = {}, bin = BIN) {
  const hook = join(ROOT, 'bench', 'maxrss-hook.mjs')
  const cpuBefore = endedChildrenCpuMs()
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', hook, bin, ...args], {
      env: {...process.env, ...env, NO_COLOR: '1'},
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    })
    let stderr = ''
    let rss = ''
    let stdoutBytes = 0
    child.stdout.on('data', (c) => (stdoutBytes += c.length))
    child.stderr.on('data', (c) => (stderr += c))
    child.stdio[3].on('data', (c) => (rss += c))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = performance.now() - started
      const cpuMs = endedChildrenCpuMs() - cpuBefore
      resolve({ms, code, stderr, stdoutBytes, maxRssMiB: Number(rss) / 1024, cpuMs})
    })
  })
}

const TIMED = join(ROOT, 'bench', 'timed.py')
const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((path) => existsSync(path))

/**
 * Wall time of a command and its CPU (user and system, to its end), for start-up comparisons:
 * through bench/timed.py (wait4's CPU, to the microsecond) where Linux has python3, else the wall
 * time alone (CPU NaN).
 */
export function timeCommand(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    const [program, argv] = PYTHON ? [PYTHON, [TIMED, command, ...args]] : [command, args]
    const started = performance.now()
    const child = spawn(program, argv, {
      env: {...process.env, ...env},
      stdio: ['ignore', PYTHON ? 'pipe' : 'ignore', 'ignore'],
    })
    let said = ''
    child.stdout?.on('data', (chunk) => (said += chunk))
    child.on('error', reject)
    child.on('close', (code) =>
      resolve(PYTHON ? JSON.parse(said) : {ms: performance.now() - started, cpuMs: Number.NaN, code}),
    )
  })
}

/** A CSV of `header` and `count` rows, row i as `rowOf(i)` gives it (written as it goes: millions of rows fit). */
export async function writeRowsCsv(path, header, count, rowOf) {
  const out = createWriteStream(path)
  out.write(`${header.join(',')}\n`)
  for (let i = 0; i < count; i++) if (!out.write(`${rowOf(i).join(',')}\n`)) await once(out, 'drain')
  out.end()
  await once(out, 'finish')
  return path
}

/** The same rows as a workbook of one sheet (streamed); `formats`: a number format by column number (1-based). */
export async function writeRowsXlsx(path, header, count, rowOf, formats = {}) {
  const {default: ExcelJS} = await import('exceljs')
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({filename: path, useSharedStrings: true})
  const sheet = workbook.addWorksheet('Refunds')
  sheet.addRow(header).commit()
  for (let i = 0; i < count; i++) {
    const row = sheet.addRow(rowOf(i))
    for (const [column, format] of Object.entries(formats)) row.getCell(Number(column)).numFmt = format
    row.commit()
  }
  sheet.commit()
  await workbook.commit()
  return path
}
