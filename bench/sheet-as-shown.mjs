#!/usr/bin/env node
// node bench/sheet-as-shown.mjs [BASE] (after npm run build here and in BASE): what rendering every
// cell as its sheet shows it costs (issue 44). Dry runs of a 125,000-row CSV and of a 125,000-row
// workbook whose amounts carry a number format (#,##0.00), against gw sandbox start (2,000 paid
// orders), this build and BASE's alternating (ROUNDS rounds, default 3, medians: time, CPU and
// peak RSS); then the 200,000-row workbook's dry run with this build (its target: 512 MiB).
// Prints a Markdown table; the figures are copied into bench/RESULTS.md by hand.
import {join, resolve} from 'node:path'

import {BIN, benchSandbox, median, runGw, seedPaidOrders, tempDir, writeRowsCsv, writeRowsXlsx} from './lib.mjs'

const base = process.argv[2] && resolve(process.argv[2])
const rounds = Number(process.env.ROUNDS ?? 3)
const dir = tempDir('gw-bench-shown-')

/** Row i: one of the orders, an amount no other row of that order has (a decimal, as finance writes it). */
const rowOf = (orders, i) => [orders[i % orders.length], (1 + Math.floor(i / orders.length)) / 100, `reason ${i % 13}`]

const HEADER = ['mch_order_no', 'refund_amount', 'reason']
const writeCsv = (path, orders, count) =>
  writeRowsCsv(path, HEADER, count, (i) => {
    const [order, amount, reason] = rowOf(orders, i)
    return [order, amount.toFixed(2), reason]
  })
const writeXlsx = (path, orders, count) => writeRowsXlsx(path, HEADER, count, (i) => rowOf(orders, i), {2: '#,##0.00'})

const bench = await benchSandbox()
const lines = []
try {
  const orders = await seedPaidOrders(bench, 'SA', 2000, 10_000_000)
  // Each build its own config dir: a history one build made may be of a schema the other does not read.
  const builds = [['this build', BIN], ...(base ? [['BASE', join(base, 'bin', 'run.js')]] : [])].map(([name, bin]) => [
    name,
    bin,
    {...bench.env, GW_CONFIG_DIR: tempDir('gw-bench-shown-config-')},
  ])
  const files = [
    ['CSV, 125,000 rows', await writeCsv(join(dir, 'r125k.csv'), orders, 125_000)],
    ['.xlsx, 125,000 rows, #,##0.00', await writeXlsx(join(dir, 'r125k.xlsx'), orders, 125_000)],
  ]
  for (const [label, file] of files) {
    const runs = new Map(builds.map(([name]) => [name, []]))
    for (let round = 0; round < rounds; round++)
      for (const [name, bin, env] of builds) {
        const run = await runGw(
          ['refund', 'create', '--from-csv', file, '--dry-run', '--allow-repeats', '--concurrency', '8', '--json'],
          env,
          bin,
        )
        if (run.code !== 0) throw new Error(`${name} ${label}: exit ${run.code}: ${run.stderr.slice(-500)}`)
        runs.get(name).push(run)
        console.error(`${label}, ${name}: ${(run.ms / 1000).toFixed(1)} s, ${Math.round(run.maxRssMiB)} MiB`)
      }
    const figures = builds.map(([name]) => {
      const done = runs.get(name)
      return {
        name,
        s: median(done.map((r) => r.ms)) / 1000,
        cpu: median(done.map((r) => r.cpuMs ?? NaN)) / 1000,
        mib: median(done.map((r) => r.maxRssMiB)),
      }
    })
    const [ours, theirs] = figures
    const change = theirs ? ` (${ours.s > theirs.s ? '+' : ''}${((ours.s / theirs.s - 1) * 100).toFixed(0)}%)` : ''
    for (const f of figures)
      lines.push(
        `| ${label} | ${f.name} | ${f.s.toFixed(1)} s${f === ours ? change : ''} | ${Number.isNaN(f.cpu) ? '-' : `${f.cpu.toFixed(1)} s`} | ${Math.round(f.mib)} MiB |`,
      )
  }
  const large = await writeXlsx(join(dir, 'r200k.xlsx'), orders, 200_000)
  const run = await runGw(
    ['refund', 'create', '--from-csv', large, '--dry-run', '--allow-repeats', '--concurrency', '8'],
    bench.env,
  )
  const mib = Math.round(run.maxRssMiB)
  lines.push(
    `| .xlsx, 200,000 rows, #,##0.00 | this build | ${(run.ms / 1000).toFixed(1)} s | - | ${mib} MiB (target 512 MiB: ${mib <= 512 ? 'met' : 'NOT met'}), exit ${run.code} |`,
  )
} finally {
  await bench.close()
}
console.log(
  ['| dry run of | build | time (median) | CPU | peak RSS |', '| --- | --- | --- | --- | --- |', ...lines].join('\n'),
)
