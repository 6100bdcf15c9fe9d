#!/usr/bin/env node
// node bench/large-files.mjs [--rows N] (after npm run build): peak RSS and time of bulk-refund
// dry runs on Excel's largest sheet (1,048,576 rows) as CSV and as .xlsx, and on 100,000 rows,
// against gw sandbox start (2,000 paid orders). Targets (issue 23): 1 GiB and 300 MiB.
// Prints a Markdown table; the figures are copied into bench/RESULTS.md by hand.
import {statSync} from 'node:fs'
import {join} from 'node:path'

import {benchSandbox, runGw, seedPaidOrders, tempDir, writeRowsCsv, writeRowsXlsx} from './lib.mjs'

const at = process.argv.indexOf('--rows')
const LARGE = at === -1 ? 1_048_576 : Number(process.argv[at + 1])
const dir = tempDir('gw-bench-large-')

/** Row i: one of the orders, a refund fee no other row of that order has. */
const rowOf = (orders, i) => [orders[i % orders.length], 1 + Math.floor(i / orders.length), 'wechat']

const HEADER = ['mch_order_no', 'refund_fee', 'channel']
const writeCsv = (path, orders, count) => writeRowsCsv(path, HEADER, count, (i) => rowOf(orders, i))
// Excel's largest sheet is 1,048,576 rows with its header.
const writeXlsx = (path, orders, count) => writeRowsXlsx(path, HEADER, count - 1, (i) => rowOf(orders, i))

const bench = await benchSandbox()
const rows = []
try {
  const orders = await seedPaidOrders(bench, 'BL', 2000, 10_000_000)
  const cases = [
    ['CSV, 100,000 rows, --json', await writeCsv(join(dir, 'small.csv'), orders, 100_000), ['--json'], 300],
    ['CSV, 100,000 rows', join(dir, 'small.csv'), [], 300],
    [`CSV, ${LARGE.toLocaleString('en')} rows`, await writeCsv(join(dir, 'large.csv'), orders, LARGE), [], 1024],
    [`.xlsx, ${LARGE.toLocaleString('en')} rows`, await writeXlsx(join(dir, 'large.xlsx'), orders, LARGE), [], 1024],
  ]
  for (const [label, file, extra, target] of cases) {
    const run = await runGw(
      ['refund', 'create', '--from-csv', file, '--dry-run', '--concurrency', '8', ...extra],
      bench.env,
    )
    const mib = Math.round(run.maxRssMiB)
    const size = (statSync(file).size / 2 ** 20).toFixed(1)
    rows.push(
      `| ${label} (${size} MB) | ${mib} MiB | ${(run.ms / 1000).toFixed(1)} s | exit ${run.code} | <= ${target} MiB: ${mib <= target ? 'met' : 'NOT met'} |`,
    )
    if (run.code !== 0) rows.push(`|   stderr: ${run.stderr.slice(-300).replace(/\s+/g, ' ')} | | | | |`)
    console.error(rows.at(-1))
  }
} finally {
  await bench.close()
}
console.log(
  ['| dry run of | peak RSS | time | result | target |', '| --- | --- | --- | --- | --- |', ...rows].join('\n'),
)
