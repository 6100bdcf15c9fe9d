#!/usr/bin/env node
// node bench/reader-rounds.mjs FILE [ROOT...] (after npm run build in each ROOT, default this
// checkout): the workbook reader alone, as a bulk run starts it (its worker thread, batches of
// rows asked for one at a time), on FILE, each ROOT's build in a process of its own, alternating,
// ROUNDS rounds (default 3): time to the last row and the process's peak RSS. A build before a
// change against the build after it, with no gateway in the way.
import {spawnSync} from 'node:child_process'
import {existsSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {ROOT, tempDir} from './lib.mjs'

const [file, ...given] = process.argv.slice(2)
if (!file) throw new Error('usage: node bench/reader-rounds.mjs FILE [ROOT...]')
const roots = (given.length ? given : [ROOT]).map((root) => resolve(root))
const rounds = Number(process.env.ROUNDS ?? 3)

/** A build's workbook worker: beside its chunks, or (builds before 2026-12) under lib/files. */
const workerOf = (root) =>
  [`${root}/dist/chunks/workbook-worker.js`, `${root}/dist/lib/files/workbook-worker.js`].find((path) =>
    existsSync(path),
  )

/** One reading in a fresh process: every row of FILE through ROOT's worker. */
const reading = (root) => `
  import {Worker} from 'node:worker_threads'
  const started = performance.now()
  const worker = new Worker(${JSON.stringify(workerOf(root))}, {
    workerData: {path: ${JSON.stringify(resolve(file))}},
    resourceLimits: {maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32},
  })
  const next = () => new Promise((done) => worker.once('message', done))
  let rows = 0
  let message = await next()
  if (message.type !== 'opened') throw new Error(message.message)
  for (;;) {
    worker.postMessage('more')
    message = await next()
    if (message.type !== 'rows') break
    rows += message.rows.length
  }
  await worker.terminate()
  console.log(JSON.stringify({rows, ms: performance.now() - started, rssMiB: process.resourceUsage().maxRSS / 1024}))
`

const results = new Map(roots.map((root) => [root, []]))
for (let round = 0; round < rounds; round++) {
  for (const root of roots) {
    const script = join(tempDir('gw-bench-reader-'), 'read.mjs')
    writeFileSync(script, reading(root))
    const run = spawnSync(process.execPath, [script], {encoding: 'utf8'})
    if (run.status !== 0) throw new Error(run.stderr)
    const result = JSON.parse(run.stdout)
    results.get(root).push(result)
    console.error(`${root}: ${result.rows} rows, ${(result.ms / 1000).toFixed(2)} s, ${Math.round(result.rssMiB)} MiB`)
  }
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(['| build | rows | time (median) | peak RSS (median) |', '| --- | --- | --- | --- |'].join('\n'))
for (const [root, runs] of results)
  console.log(
    `| ${root} | ${runs[0].rows} | ${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s | ${Math.round(median(runs.map((r) => r.rssMiB)))} MiB |`,
  )
