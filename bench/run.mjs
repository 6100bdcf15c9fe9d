#!/usr/bin/env node
// npm run bench [-- --quick]: every figure of bench/RESULTS.md, measured here and written there.
// Start-up, the bare signed loop, reconcile and bulk refunds against it, reconcile memory at
// two sizes, the sandbox under load, and pure signing. See bench/README.md.
import {cpus, totalmem} from 'node:os'
import {generateKeyPairSync, sign, verify} from 'node:crypto'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {BIN, ROOT, benchSandbox, median, rawLoop, runGw, seedPaidOrders, tempDir, timeCommand} from './lib.mjs'

const quick = process.argv.includes('--quick')
const SIZES = quick
  ? {startupRuns: 7, reconcileRows: 4000, refundRows: 1000, memorySmall: 2000, memoryLarge: 40_000}
  : {startupRuns: 15, reconcileRows: 20_000, refundRows: 5000, memorySmall: 10_000, memoryLarge: 200_000}
const CONCURRENCY = 8
const rows = []
const record = (area, figure, value, target = '', verdict = '') => {
  rows.push({area, figure, value, target, verdict})
  process.stderr.write(`${area} | ${figure} | ${value} | ${target} ${verdict}\n`)
}
const fmt = (n, digits = 1) => n.toFixed(digits)
const pass = (ok) => (ok ? 'met' : 'NOT met')

function signingRate() {
  const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
  const data = Buffer.from('appid=mch1channel=wechatmch_order_no=INV-1nonce_str=abctime_stamp=20261121093015')
  let n = 0
  const until = performance.now() + 2000
  while (performance.now() < until) {
    const signature = sign('md5', data, privateKey)
    verify('md5', data, publicKey, signature)
    n++
  }
  return n / 2
}

async function startup(bench, order) {
  const cases = [
    ['node -e 0', process.execPath, ['-e', '0']],
    ['gw --version', process.execPath, [BIN, '--version']],
    ['gw order query --help', process.execPath, [BIN, 'order', 'query', '--help']],
    ['gw order query X', process.execPath, [BIN, 'order', 'query', order, '--channel', 'wechat']],
  ]
  const times = Object.fromEntries(cases.map(([name]) => [name, []]))
  // Alternating runs, so drift on a shared machine touches every case alike.
  for (let run = 0; run < SIZES.startupRuns; run++) {
    for (const [name, command, args] of cases) {
      const {ms, code} = await timeCommand(command, args, bench.env)
      if (code !== 0) throw new Error(`${name} exited ${code}`)
      times[name].push(ms)
    }
  }
  const base = median(times['node -e 0'])
  record('start-up', 'node -e 0 (median)', `${fmt(base, 0)} ms`)
  const targets = {'gw --version': 3, 'gw order query --help': 4}
  for (const name of ['gw --version', 'gw order query --help', 'gw order query X']) {
    const ratio = median(times[name]) / base
    const target = targets[name]
    record(
      'start-up',
      `${name} (median)`,
      `${fmt(median(times[name]), 0)} ms = ${fmt(ratio, 2)}x node`,
      target ? `<= ${target}x` : '',
      target ? pass(ratio <= target) : '',
    )
  }
}

async function reconcile(bench, orders) {
  const count = SIZES.reconcileRows
  const csv = join(tempDir('gw-bench-rec-'), 'orders.csv')
  writeFileSync(
    csv,
    `mch_order_no,total_fee,fee_type,status\n${Array.from({length: count}, (_, i) => `${orders[i % orders.length]},100000,THB,paid`).join('\n')}\n`,
  )
  const raw = await rawLoop({
    ...bench,
    operation: 'order_query',
    count,
    concurrency: CONCURRENCY,
    paramsFor: (i) => ({channel: 'wechat', mch_order_no: orders[i % orders.length]}),
  })
  const run = await runGw(['reconcile', csv, '--channel', 'wechat', '--concurrency', String(CONCURRENCY)], bench.env)
  if (run.code !== 0) throw new Error(`reconcile exited ${run.code}: ${run.stderr.slice(-500)}`)
  const rate = count / (run.ms / 1000)
  record('batch', `bare loop, order_query x${count}, concurrency ${CONCURRENCY}`, `${fmt(raw.rate)} req/s`)
  record(
    'batch',
    `gw reconcile ${count} rows, concurrency ${CONCURRENCY} (process start included)`,
    `${fmt(rate)} rows/s = ${fmt((100 * rate) / raw.rate, 0)}% of bare`,
    '>= 80%',
    pass(rate >= 0.8 * raw.rate),
  )
  return raw.rate
}

async function refunds(bench) {
  const count = SIZES.refundRows
  const perOrder = 5
  const gwOrders = await seedPaidOrders(bench, 'BRF', count / perOrder)
  const rawOrders = await seedPaidOrders(bench, 'BRR', count / perOrder)
  const raw = await rawLoop({
    ...bench,
    operation: 'order_refund',
    count,
    concurrency: CONCURRENCY,
    paramsFor: (i) => ({
      mch_order_no: rawOrders[i % rawOrders.length],
      total_fee: 100_000,
      fee_type: 'THB',
      mch_refund_no: `BRR-R${i}`,
      refund_fee: 100 + Math.floor(i / rawOrders.length),
    }),
  })
  const dir = tempDir('gw-bench-refund-')
  const csv = join(dir, 'refunds.csv')
  writeFileSync(
    csv,
    `mch_order_no,refund_fee,channel\n${Array.from({length: count}, (_, i) => `${gwOrders[i % gwOrders.length]},${100 + Math.floor(i / gwOrders.length)},wechat`).join('\n')}\n`,
  )
  // A dry run of the same file is the fixed part: start-up, the whole-file check, one order
  // query per distinct order. It sends no refund and writes no journal.
  const dry = await runGw(
    ['refund', 'create', '--from-csv', csv, '--dry-run', '--concurrency', String(CONCURRENCY)],
    bench.env,
  )
  if (dry.code !== 0) throw new Error(`dry run exited ${dry.code}: ${dry.stderr.slice(-500)}`)
  const run = await runGw(
    ['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', String(CONCURRENCY)],
    bench.env,
  )
  if (run.code !== 0) throw new Error(`bulk refund exited ${run.code}: ${run.stderr.slice(-500)}`)
  const rate = count / (run.ms / 1000)
  const sendRate = count / ((run.ms - dry.ms) / 1000)
  record('batch', `bare loop, order_refund x${count}, concurrency ${CONCURRENCY}`, `${fmt(raw.rate)} req/s`)
  record(
    'batch',
    `gw refund create --from-csv ${count} rows, journal on (preflight and start included)`,
    `${fmt(rate)} rows/s = ${fmt((100 * rate) / raw.rate, 0)}% of bare`,
    '>= 70%',
    pass(rate >= 0.7 * raw.rate),
  )
  record(
    'batch',
    `  of which start-up, file check and ${count / perOrder} preflight order queries (a --dry-run)`,
    `${fmt(dry.ms / 1000, 2)} s of ${fmt(run.ms / 1000, 2)} s`,
  )
  record(
    'batch',
    '  sending phase alone (journal, refunds, report)',
    `${fmt(sendRate)} rows/s = ${fmt((100 * sendRate) / raw.rate, 0)}% of bare`,
  )
}

async function memory(bench, orders) {
  const results = {}
  for (const count of [SIZES.memorySmall, SIZES.memoryLarge]) {
    const csv = join(tempDir('gw-bench-mem-'), 'orders.csv')
    writeFileSync(
      csv,
      `mch_order_no,total_fee,fee_type\n${Array.from({length: count}, (_, i) => `${orders[i % orders.length]},100000,THB`).join('\n')}\n`,
    )
    const run = await runGw(['reconcile', csv, '--channel', 'wechat', '--concurrency', String(CONCURRENCY)], bench.env)
    if (run.code !== 0) throw new Error(`reconcile exited ${run.code}: ${run.stderr.slice(-500)}`)
    results[count] = run.maxRssMiB
    record('memory', `gw reconcile ${count} rows, peak RSS`, `${fmt(run.maxRssMiB)} MiB`)
  }
  const ratio = results[SIZES.memoryLarge] / results[SIZES.memorySmall]
  record(
    'memory',
    `peak RSS ${SIZES.memoryLarge} rows / ${SIZES.memorySmall} rows`,
    `${fmt(ratio, 2)}x`,
    '<= 1.3x',
    pass(ratio <= 1.3),
  )
}

const bench = await benchSandbox()
try {
  record('machine', 'signing (RSA-2048 MD5 sign + verify, one core)', `${fmt(signingRate(), 0)} /s`)
  const orders = await seedPaidOrders(bench, 'BQ', 2000)
  const sandboxRate = await rawLoop({
    ...bench,
    operation: 'order_query',
    count: 4000,
    concurrency: 16,
    paramsFor: (i) => ({channel: 'wechat', mch_order_no: orders[i % orders.length]}),
  })
  record('sandbox', 'order_query under load (bare loop, concurrency 16)', `${fmt(sandboxRate.rate)} req/s`)
  await startup(bench, orders[0])
  await reconcile(bench, orders)
  await refunds(bench)
  await memory(bench, orders)
} finally {
  await bench.close()
}

const cpu = cpus()[0]?.model ?? 'unknown CPU'
const lines = [
  '# Benchmark results',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} x ${cpu}, ${fmt(totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}${quick ? ' (--quick sizes)' : ''}.`,
  'Reproduce: `npm run bench` (or `npm run bench -- --quick` for smaller sizes). The sandbox runs in its own process;',
  'gw and the bare loop each in theirs. Both sign every request with RSA-2048; the sandbox signs every answer.',
  '',
  '| area | figure | value | target | verdict |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.area} | ${r.figure} | ${r.value} | ${r.target} | ${r.verdict} |`),
  '',
]
if (!quick) writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), `${lines.join('\n')}\n${readNotes()}`)
process.stdout.write(`${lines.join('\n')}\n`)

function readNotes() {
  const missed = rows
    .filter((r) => r.verdict === 'NOT met')
    .map((r) => `- ${r.figure}: ${r.value} (target ${r.target})`)
  return [
    '## Notes',
    '',
    missed.length
      ? `Targets not met:\n${missed.join('\n')}\n\nWhy, with the profile of where the time goes: "What the figures say" in bench/README.md.`
      : 'Every target is met.',
    '',
    'See bench/README.md for what each figure measures and what bounds it.',
    '',
  ].join('\n')
}
