#!/usr/bin/env node
// npm run bench [-- --quick]: every figure of bench/RESULTS.md, measured here and written there.
// Start-up against Node's own; reconcile and bulk refunds against the true floor (the same
// signed requests in a bare loop, over the faster of undici and node:http), on loopback and with
// network-like latency; memory at two sizes and for a 100,000-row dry run. See bench/README.md.
import {generateKeyPairSync, sign, verify} from 'node:crypto'
import {existsSync, writeFileSync} from 'node:fs'
import {cpus, totalmem} from 'node:os'
import {join} from 'node:path'

import {BIN, ROOT, benchSandbox, floorLoop, median, runGw, seedPaidOrders, tempDir, timeCommand} from './lib.mjs'

const quick = process.argv.includes('--quick')
const SIZES = quick
  ? {
      startupRuns: 7,
      reconcileRows: 1000,
      refundRows: 500,
      latencyRows: 300,
      memorySmall: 2000,
      memoryLarge: 40_000,
      dryRun: 20_000,
    }
  : {
      startupRuns: 15,
      reconcileRows: 3000,
      refundRows: 1500,
      latencyRows: 1500,
      memorySmall: 10_000,
      memoryLarge: 200_000,
      dryRun: 100_000,
    }
const CONCURRENCY = 8
const BINARY = join(ROOT, 'build', process.platform === 'win32' ? 'gw.exe' : 'gw')
const rows = []
const record = (area, figure, value, target = '', verdict = '') => {
  rows.push({area, figure, value, target, verdict})
  process.stderr.write(`${area} | ${figure} | ${value} | ${target} ${verdict}\n`)
}
const fmt = (n, digits = 1) => n.toFixed(digits)
const pass = (ok) => (ok ? 'met' : 'NOT met')
const ratio = (area, figure, gwRate, floor, target) =>
  record(
    area,
    figure,
    `${fmt(gwRate)} rows/s against ${fmt(floor.rate)} req-sets/s (${floor.transport}) = ${fmt(gwRate / floor.rate, 2)}x`,
    `>= ${target}x`,
    pass(gwRate >= target * floor.rate),
  )

function signingRate() {
  const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
  const data = Buffer.from('appid=mch1channel=wechatmch_order_no=INV-1nonce_str=abctime_stamp=20261121093015')
  let n = 0
  const until = performance.now() + 2000
  while (performance.now() < until) {
    verify('md5', data, publicKey, sign('md5', data, privateKey))
    n++
  }
  return n / 2
}

async function startup(bench, order) {
  const query = ['order', 'query', order, '--channel', 'wechat']
  const cases = [
    ['node -e 0', process.execPath, ['-e', '0']],
    ['gw --version', process.execPath, [BIN, '--version']],
    ['gw order query --help', process.execPath, [BIN, 'order', 'query', '--help']],
    ['gw order query X --channel wechat', process.execPath, [BIN, ...query]],
    ...(existsSync(BINARY)
      ? [
          ['binary gw --version', BINARY, ['--version']],
          ['binary gw order query X --channel wechat', BINARY, query],
        ]
      : []),
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
  const targets = {'gw --version': 2, 'gw order query X --channel wechat': 3}
  for (const [name] of cases.slice(1)) {
    const x = median(times[name]) / base
    const target = targets[name]
    record(
      'start-up',
      `${name} (median)`,
      `${fmt(median(times[name]), 0)} ms = ${fmt(x, 2)}x node`,
      target ? `<= ${target}x` : '',
      target ? pass(x <= target) : '',
    )
  }
}

/** gw reconcile of `count` rows against the floor of the same order queries. */
async function reconcile(bench, orders, count, label) {
  const csv = join(tempDir('gw-bench-rec-'), 'orders.csv')
  const line = (i) => `${orders[i % orders.length]},100000,THB,paid`
  writeFileSync(
    csv,
    `mch_order_no,total_fee,fee_type,status\n${Array.from({length: count}, (_, i) => line(i)).join('\n')}\n`,
  )
  const floor = await floorLoop({
    ...bench,
    operation: 'order_query',
    count,
    concurrency: CONCURRENCY,
    paramsFor: (i) => ({channel: 'wechat', mch_order_no: orders[i % orders.length]}),
  })
  const run = await runGw(['reconcile', csv, '--channel', 'wechat', '--concurrency', String(CONCURRENCY)], bench.env)
  if (run.code !== 0) throw new Error(`reconcile exited ${run.code}: ${run.stderr.slice(-500)}`)
  const target = label ? 0.95 : 0.85
  ratio(
    'batch',
    `gw reconcile ${count} rows, concurrency ${CONCURRENCY}, start included${label}`,
    count / (run.ms / 1000),
    floor,
    target,
  )
}

/**
 * gw refund create --from-csv of `count` rows, one refund per order (as a finance export
 * usually is), against the floor of the requests it must make: one order query and one refund
 * per row, on other orders of the same shape.
 */
async function refunds(bench, count, label) {
  const gwOrders = await seedPaidOrders(bench, `BRF${label ? 'L' : ''}`, count)
  const floorOrders = await seedPaidOrders(bench, `BRR${label ? 'L' : ''}`, count)
  const queries = await floorLoop({
    ...bench,
    operation: 'order_query',
    count,
    concurrency: CONCURRENCY,
    paramsFor: (i) => ({channel: 'wechat', mch_order_no: floorOrders[i]}),
  })
  const refunded = await floorLoop({
    ...bench,
    operation: 'order_refund',
    count,
    concurrency: CONCURRENCY,
    paramsFor: (i) => ({
      channel: 'wechat',
      mch_order_no: floorOrders[i],
      total_fee: 100_000,
      fee_type: 'THB',
      mch_refund_no: `${floorOrders[i]}-R`,
      refund_fee: 1000,
    }),
  })
  const floor = {
    rate: count / (queries.seconds + refunded.seconds),
    transport: `${queries.transport}/${refunded.transport}`,
  }
  const csv = join(tempDir('gw-bench-refund-'), 'refunds.csv')
  writeFileSync(csv, `mch_order_no,refund_fee,channel\n${gwOrders.map((o) => `${o},1000,wechat`).join('\n')}\n`)
  const run = await runGw(
    ['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', String(CONCURRENCY)],
    bench.env,
  )
  if (run.code !== 0) throw new Error(`bulk refund exited ${run.code}: ${run.stderr.slice(-500)}`)
  const target = label ? 0.95 : 0.85
  ratio(
    'batch',
    `gw refund create --from-csv ${count} rows on ${count} orders, concurrency ${CONCURRENCY}, journal on, start included${label}`,
    count / (run.ms / 1000),
    floor,
    target,
  )
}

async function memory(bench, orders) {
  const results = {}
  for (const count of [SIZES.memorySmall, SIZES.memoryLarge]) {
    const csv = join(tempDir('gw-bench-mem-'), 'orders.csv')
    const line = (i) => `${orders[i % orders.length]},100000,THB`
    writeFileSync(
      csv,
      `mch_order_no,total_fee,fee_type\n${Array.from({length: count}, (_, i) => line(i)).join('\n')}\n`,
    )
    const run = await runGw(['reconcile', csv, '--channel', 'wechat', '--concurrency', String(CONCURRENCY)], bench.env)
    if (run.code !== 0) throw new Error(`reconcile exited ${run.code}: ${run.stderr.slice(-500)}`)
    results[count] = run.maxRssMiB
    record('memory', `gw reconcile ${count} rows, peak RSS`, `${fmt(run.maxRssMiB)} MiB`)
  }
  const x = results[SIZES.memoryLarge] / results[SIZES.memorySmall]
  record(
    'memory',
    `peak RSS ${SIZES.memoryLarge} rows / ${SIZES.memorySmall} rows`,
    `${fmt(x, 2)}x`,
    '<= 1.3x',
    pass(x <= 1.3),
  )
  // A dry run holds the whole file (it is checked before anything is sent): 100,000 rows on 2,000 orders.
  const csv = join(tempDir('gw-bench-dry-'), 'refunds.csv')
  const line = (i) => `${orders[i % orders.length]},${1 + Math.floor(i / orders.length)},wechat`
  writeFileSync(
    csv,
    `mch_order_no,refund_fee,channel\n${Array.from({length: SIZES.dryRun}, (_, i) => line(i)).join('\n')}\n`,
  )
  const dry = await runGw(
    ['refund', 'create', '--from-csv', csv, '--dry-run', '--json', '--concurrency', String(CONCURRENCY)],
    bench.env,
  )
  if (dry.code !== 0) throw new Error(`dry run exited ${dry.code}: ${dry.stderr.slice(-500)}`)
  record(
    'memory',
    `gw refund create --from-csv ${SIZES.dryRun} rows --dry-run --json, peak RSS`,
    `${fmt(dry.maxRssMiB)} MiB (${fmt(dry.ms / 1000, 1)} s)`,
    '<= 300 MiB',
    pass(dry.maxRssMiB <= 300),
  )
}

const bench = await benchSandbox()
try {
  record('machine', 'signing (RSA-2048 MD5 sign + verify, one core)', `${fmt(signingRate(), 0)} /s`)
  const orders = await seedPaidOrders(bench, 'BQ', 2000)
  const capacity = await floorLoop({
    ...bench,
    operation: 'order_query',
    count: 4000,
    concurrency: 16,
    paramsFor: (i) => ({channel: 'wechat', mch_order_no: orders[i % orders.length]}),
  })
  record(
    'sandbox',
    'order_query under load (bare loop, concurrency 16)',
    `${fmt(capacity.rate)} req/s (${capacity.transport})`,
  )
  await startup(bench, orders[0])
  await reconcile(bench, orders, SIZES.reconcileRows, '')
  await refunds(bench, SIZES.refundRows, '')
  await bench.faults('latency=50-150ms')
  try {
    await reconcile(bench, orders, SIZES.latencyRows, ', latency 50-150 ms')
    await refunds(bench, SIZES.latencyRows, ', latency 50-150 ms')
  } finally {
    await bench.faults('')
  }
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
  'gw and the floor loop each in theirs. Both sign every request with RSA-2048; the sandbox signs every answer.',
  'Each ratio is measured in the same run as its reference.',
  '',
  '| area | figure | value | target | verdict |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.area} | ${r.figure} | ${r.value} | ${r.target} | ${r.verdict} |`),
  '',
]
const missed = rows.filter((r) => r.verdict === 'NOT met').map((r) => `- ${r.figure}: ${r.value} (target ${r.target})`)
const notes = [
  '## Notes',
  '',
  missed.length
    ? `Targets not met:\n${missed.join('\n')}\n\nWhy, with the profile of where the time goes: "What the figures say" in bench/README.md.`
    : 'Every target is met.',
  '',
  'See bench/README.md for what each figure measures and what bounds it.',
  '',
]
if (!quick) writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), `${lines.join('\n')}\n${notes.join('\n')}`)
process.stdout.write(`${lines.join('\n')}\n${notes.join('\n')}`)
