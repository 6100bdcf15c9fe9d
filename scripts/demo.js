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

function gw(...args) {
  process.stdout.write(`\n${bold(`$ gw ${args.join(' ')}`)}\n`)
  const run = spawnSync(process.execPath, [bin, ...args], {env, stdio: 'inherit'})
  if (run.status !== 0) throw new Error(`gw ${args.join(' ')} exited with ${run.status}`)
}

const sandbox = await spawnSandbox(['--quiet'], env)
const info = sandbox.info
process.stdout.write(
  `${bold('gw demo')}: a sandbox gateway is running at ${info.base_url} (merchant ${info.merchants[0].appid}); profile "sandbox" in ${home}\n`,
)

let failed = false
try {
  const order = `DEMO-${Date.now()}`
  gw('doctor')
  gw(
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
  )
  gw(
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
  )
  gw('sandbox', 'pay', order)
  gw('order', 'query', order)
  gw('refund', 'create', order, '--amount', '50.00', '--mch-refund-no', `${order}-R1`)
  gw('refund', 'query', order)
  gw('order', 'close', `${order}-PP`)
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
