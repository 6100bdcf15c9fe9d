// Shared pieces of the benchmarks: a sandbox, seeded orders, gw as a child process, timing.
import {spawn} from 'node:child_process'
import {createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {once} from 'node:events'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {Pool} from 'undici'

import {spawnSandbox} from '../scripts/sandbox-process.js'
import {rawLoop} from './floor-loop.mjs'

export {rawLoop}

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
export const runGw = (args, env = {}, bin = BIN) => runNode(bin, args, env)

/** The first 64 KiB of a child's stdout are kept (the floor's job says its failures there). */
const KEPT_STDOUT = 64 * 1024

/** Runs `script` in a Node child process with the maxRSS hook, as runGw does for gw. */
function runNode(script, args, env) {
  const hook = join(ROOT, 'bench', 'maxrss-hook.mjs')
  const cpuBefore = endedChildrenCpuMs()
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', hook, script, ...args], {
      env: {...process.env, ...env, NO_COLOR: '1'},
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    })
    let stderr = ''
    let stdout = ''
    let rss = ''
    let stdoutBytes = 0
    child.stdout.on('data', (c) => {
      if (stdoutBytes < KEPT_STDOUT) stdout += c
      stdoutBytes += c.length
    })
    child.stderr.on('data', (c) => (stderr += c))
    child.stdio[3].on('data', (c) => (rss += c))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = performance.now() - started
      const cpuMs = endedChildrenCpuMs() - cpuBefore
      resolve({ms, code, stdout, stderr, stdoutBytes, maxRssMiB: Number(rss) / 1024, cpuMs})
    })
  })
}

/**
 * The floor as a process of its own (bench/floor-loop.mjs): `loops`, each `{operation, params}`
 * (the requests' business parameters in order), run one after the other at `concurrency` over
 * node:http, as gw sends. Its CPU is the ended child's, start-up and the JIT's warm-up included,
 * measured as runGw measures gw's.
 */
export async function floorProcess(bench, loops, concurrency) {
  const job = join(tempDir('gw-bench-floor-'), 'job.json')
  const {baseUrl, appid, privateKeyPem} = bench
  writeFileSync(job, JSON.stringify({baseUrl, appid, privateKeyPem, concurrency, loops}))
  const run = await runNode(join(ROOT, 'bench', 'floor-loop.mjs'), [job], {})
  if (run.code !== 0) throw new Error(`the floor's process exited ${run.code}: ${run.stderr.slice(-500)}`)
  const {failures} = JSON.parse(run.stdout)
  if (failures.some((n) => n > 0)) throw new Error(`the floor's process had failed answers: ${failures.join(', ')}`)
  return {cpuMs: run.cpuMs, ms: run.ms}
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
