// The bare loop of signed requests, the floor every batch figure is measured against (bench/README.md),
// and the same loop as a process of its own: `node bench/floor-loop.mjs JOB.json` runs the job's
// loops one after the other and ends, so that its CPU is read as gw's is (the ended child's, its
// start-up and the JIT's warm-up included). It loads only Node's built-ins for that (undici on use).
import {createPrivateKey, randomBytes, sign} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {Agent, request} from 'node:http'
import {pathToFileURL} from 'node:url'

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
  const pool =
    transport === 'undici' ? new (await import('undici')).Pool(url.origin, {connections: concurrency}) : undefined
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

/**
 * A job of the floor as a process of its own: `{baseUrl, appid, privateKeyPem, concurrency,
 * loops: [{operation, params: [...]}]}`, each loop the requests of one operation in order. Says
 * on stdout, as JSON, each loop's failures (answers whose code is not 0).
 */
async function runJob(file) {
  const {loops, ...bench} = JSON.parse(readFileSync(file, 'utf8'))
  const failures = []
  for (const {operation, params} of loops) {
    const run = await rawLoop({...bench, operation, count: params.length, paramsFor: (i) => params[i]})
    failures.push(run.failures)
  }
  process.stdout.write(`${JSON.stringify({failures})}\n`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runJob(process.argv[2])
