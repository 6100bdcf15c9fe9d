#!/usr/bin/env node
// The README's first command: a whole merchant flow against the embedded sandbox, each
// real gw command printed before it runs. A temporary profile store and sandbox data dir
// are used, and removed at the end, so nothing of yours is touched.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, dirname} from 'node:path'
import {fileURLToPath} from 'node:url'

import {spawnSandbox} from './sandbox-process.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
const home = mkdtempSync(join(tmpdir(), 'gw-demo-'))
const env = {...process.env, GW_CONFIG_DIR: home}
delete env.GW_PROFILE
delete env.GW_APPID

const bold = (text) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001B[1m${text}\u001B[22m` : text)
const dim = (text) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001B[2m${text}\u001B[22m` : text)

/** An argument as a shell word a user can paste: quoted when it holds anything but plain characters. */
const shellWord = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)

/**
 * Runs one gw command, said why first and printed as it can be pasted in this checkout (`npx gw`:
 * gw on the project's Node); `expect` lists the exit codes that are its point.
 */
function gw(why, args, expect = [0]) {
  process.stdout.write(`\n${dim(`# ${why}`)}\n${bold(`$ npx gw ${args.map(shellWord).join(' ')}`)}\n`)
  const run = spawnSync(process.execPath, [bin, ...args], {env, stdio: 'inherit'})
  if (!expect.includes(run.status)) throw new Error(`gw ${args.join(' ')} exited with ${run.status}`)
}

const sandbox = await spawnSandbox(['--quiet'], env)
const info = sandbox.info
process.stdout.write(
  `${bold('gw demo')}: a sandbox gateway is running at ${info.base_url} (merchant ${info.merchants[0].appid}); profile "sandbox" in ${home}\n`,
)

let failed = false
try {
  const order = `DEMO-${Date.now()}`
  gw('Check the profile: its keys, the clock, and a signed request the gateway accepts.', ['doctor'])
  gw('A PromptPay order: its QR code is what any Thai banking app pays.', [
    'order',
    'create',
    '--channel',
    'promptpay',
    '--amount',
    '150.50',
    '--fee-type',
    'THB',
    '--mch-order-no',
    `${order}-PP`,
  ])
  gw('A WeChat Pay order for a product (quoted, as it has spaces).', [
    'order',
    'create',
    '--channel',
    'wechat',
    '--amount',
    '150.50',
    '--fee-type',
    'THB',
    '--mch-order-no',
    order,
    '--product',
    'Green tea x2',
  ])
  gw('Pay it as the customer would: only the sandbox can do this.', ['sandbox', 'pay', order])
  gw('What support sees: the state in words, the amounts, when it was paid.', ['order', 'query', order])
  gw('Refund part of it. A refund whose answer is lost is looked up, never sent twice.', [
    'refund',
    'create',
    order,
    '--amount',
    '50.00',
    '--mch-refund-no',
    `${order}-R1`,
  ])
  gw('Every refund of the order, and the total refunded.', ['refund', 'query', order])
  gw('Close the unpaid PromptPay order, so its code can no longer be paid.', ['order', 'close', `${order}-PP`])
  gw('Practice data for finance: orders, then an export to reconcile and a refunds file.', [
    'sandbox',
    'seed',
    '--orders',
    '20',
    '--out-dir',
    home,
  ])
  gw(
    'Reconcile the export: it finds the three differences planted in it (exit 1: rows need a look).',
    ['reconcile', join(home, 'orders-export.csv')],
    [1],
  )
  gw('Plan the bulk refunds: every row checked against its order, nothing sent.', [
    'refund',
    'create',
    '--from-csv',
    join(home, 'refunds.csv'),
    '--dry-run',
  ])
  gw('What was refunded today, on this machine.', ['refund', 'list', '--since', 'today'])
} catch (error) {
  failed = true
  process.stderr.write(`demo failed: ${error.message}\n`)
} finally {
  await sandbox.stop()
  rmSync(home, {recursive: true, force: true})
}
process.stdout.write(
  failed ? '\n' : `\n${bold('Done.')} Next: the tests (npm test), or your own sandbox: gw sandbox start\n`,
)
process.exitCode = failed ? 1 : 0
