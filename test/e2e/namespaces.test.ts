/**
 * Locks the system holds, seen from containers: gw runs in pid namespaces of its own (unshare
 * --pid --fork, as two containers of a pod or a compose service with a fixed hostname: one config
 * dir, one host name, each its own pids). A claim or a batch lock of a live gw is never taken over
 * because its pid is not seen here; one left by a gw killed with its namespace never blocks for
 * good, not even when the next gw gets the same pid. Each asserts the sandbox's ledger.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {gwEnvironment, gwShellLine} from '../helpers/gw-under-test.js'
import {waitFor} from '../helpers/receiver.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

/**
 * gw in a pid namespace of its own, as the process of pid `pid` there: 1, or a later one under a
 * shell that is the namespace's init (as in a container whose entry point is a shell), after that
 * many processes have come and gone (pids are given in turn in a new namespace). Killing it
 * (SIGKILL) ends the namespace and every process in it.
 */
function inNamespace(args: string[], pid: number) {
  const line = gwShellLine(args)
  const before = Array.from({length: pid - 2}, () => '/bin/true; ').join('')
  const command = pid === 1 ? ['sh', '-c', `exec ${line}`] : ['sh', '-c', `${before}${line}; code=$?; exit $code`]
  const child = spawn('unshare', ['--pid', '--fork', '--kill-child', ...command], {
    env: gwEnvironment({GW_CONFIG_DIR: world.configDir}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const result = new Promise<{code: number | null; stdout: string; stderr: string}>((resolve) =>
    child.once('close', (code) => resolve({code, stdout, stderr})),
  )
  return {child, result}
}

/** Resolves once the sandbox has seen `count` more requests of `operation` than it had at `before`. */
async function seen(operation: string, before: number, count = 1): Promise<void> {
  await waitFor(async () => ((await world.requests())[operation] ?? 0) - before >= count)
}
const requests = async (operation: string) => (await world.requests())[operation] ?? 0
const refundsOf = async (order: string) => ((await world.ledger(order))?.refunds ?? []).map((r) => r.refund_fee)
const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('close', () => resolve())
    child.kill('SIGKILL')
  })

describe.skipIf(process.getuid?.() !== 0 || process.platform !== 'linux')('gw in pid namespaces of its own', () => {
  it("two containers sharing a config dir and host name: the second is refused while the first's refund is under way; one refund", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'NS-TWO')
    // Long enough for the second gw to start and check on a loaded machine; the first waits it out.
    await world.underFaults('latency=10000-10000ms@order_refund', async () => {
      const before = await requests('order_refund')
      const first = inNamespace(['refund', 'create', order!, '--amount', '10.00'], 40)
      await seen('order_refund', before)
      // Its pid 40 is no process here (this gw is pid 1 of its own namespace): the claim is live all the same.
      const second = await inNamespace(['refund', 'create', order!, '--amount', '11.00'], 1).result
      expect(second.code, second.stderr).toBe(2)
      expect(second.stderr).toContain(`Order ${order} is being refunded by process 40 on ${hostname()}`)
      expect(second.stderr).toContain('Nothing was sent.')
      const done = await first.result
      expect(done.code, done.stderr).toBe(0)
    })
    expect(await refundsOf(order!)).toEqual([1000])
  })

  it('a claim left by a gw killed with its namespace, and the next gw given the same pid: its refund looked up, never sent again', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'NS-GONE')
    await world.underFaults('latency=5000-5000ms@order_refund', async () => {
      const before = await requests('order_refund')
      const first = inNamespace(['refund', 'create', order!, '--amount', '10.00'], 2)
      await seen('order_refund', before)
      await killed(first.child)
      // The refund it sent is made at the gateway all the same; its answer went nowhere.
      await waitFor(async () => (await refundsOf(order!)).length > 0)
    })
    expect(await refundsOf(order!)).toEqual([1000])
    // A container restarted: its gw is pid 2 again, as the claim says of the one killed.
    const next = await inNamespace(['refund', 'create', order!, '--amount', '10.00'], 2).result
    expect(next.code, next.stderr).toBe(0)
    expect(next.stderr).toContain('it is settled now (refunded). Nothing new was sent.')
    expect(await refundsOf(order!)).toEqual([1000])
  })

  it('a live batch in another namespace refuses a second run; killed with its namespace, it resumes in the next, of the same pid', async () => {
    const orders = await world.paidOrders(4, 10_000, 'NS-BATCH')
    const csv = join(world.configDir, 'ns-batch.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders.map((o) => `${o},10.00`).join('\n')}\n`)
    const bulk = ['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '1']
    // The first run holds its lock for four slow refunds: the second starts and is refused meanwhile.
    await world.underFaults('latency=5000-5000ms@order_refund', async () => {
      const before = await requests('order_refund')
      const first = inNamespace(bulk, 40)
      await seen('order_refund', before)
      const beside = await inNamespace(bulk, 1).result
      expect(beside.code, beside.stderr).toBe(2)
      expect(beside.stderr).toContain(`This batch is being run by process 40 on ${hostname()}`)
      await killed(first.child)
    })
    const resumed = await inNamespace(bulk, 40).result
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toContain('ended without letting go of the lock; the system let go for it')
    for (const order of orders) expect(await refundsOf(order)).toEqual([1000])
  })
})
