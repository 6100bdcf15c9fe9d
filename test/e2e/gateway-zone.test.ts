/**
 * Gateway times are read in the zone the gateway writes them in, never the zone of the machine
 * running gw: the sandbox (its own gw sandbox start, as a user runs it) in one zone, gw in
 * another, and every view, --json, report and reconcile output agree with the sandbox's ledger.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {isoTime} from '../../src/lib/gateway/protocol/index.js'
import {SandboxControl} from '../../src/sandbox/control-client.js'
import {gw} from '../helpers/cli.js'
import {removeDir, tempDir, untab} from '../helpers/shared.js'
import {spawnSandbox} from '../helpers/spawned-sandbox.js'

const folders: string[] = []
afterAll(() => folders.forEach(removeDir))

/** A CSV's rows as objects (gw's outputs start with a BOM; long identifiers after a tab). */
function csvRows(path: string): Record<string, string>[] {
  const [head, ...lines] = readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/)
  const names = head!.split(',')
  return lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [names[i], untab(cell)])))
}

/** An instant as gw writes it in `zone`: to the second, with the offset. */
function inZone(ms: number, zone: string): string {
  const saved = process.env.TZ
  process.env.TZ = zone
  try {
    return isoTime(new Date(Math.floor(ms / 1000) * 1000))
  } finally {
    if (saved === undefined) delete process.env.TZ
    else process.env.TZ = saved
  }
}

describe.each([
  ['Asia/Bangkok', 'UTC'],
  ['UTC', 'Asia/Bangkok'],
])('a gateway writing its times in %s, gw running in %s', (sandboxZone, gwZone) => {
  it('order query, refund query, refund list, a bulk report and reconcile give the true times, in one form', async () => {
    const home = tempDir('gw-zone-')
    folders.push(home)
    const sandbox = await spawnSandbox(home, ['--quiet'], {env: {TZ: sandboxZone}})
    const run = (args: string[]) => gw(args, {env: {GW_CONFIG_DIR: home, TZ: gwZone}})
    try {
      // The sandbox says its zone, and its profile takes it.
      expect(sandbox.info.gateway_zone).toBe(sandboxZone)
      expect((await run(['profile', 'show', '--json'])).json()).toMatchObject({gateway_zone: sandboxZone})

      const control = new SandboxControl(sandbox.origin)
      const made = await run(['order', 'create', '--channel', 'wechat', '--amount', '100', '--fee-type', 'THB'])
      const order = /order: +(\S+)/.exec(made.stdout)![1]!
      expect((await run(['sandbox', 'pay', order])).code).toBe(0)
      expect((await run(['refund', 'create', order, '--amount', '5', '--mch-refund-no', `${order}-R1`])).code).toBe(0)
      const [ledger] = await control.orders(order)
      const paidAt = inZone(ledger!.paid_at!, gwZone)
      const refundedAt = inZone(ledger!.refunds[0]!.created_at, gwZone)

      const query = await run(['order', 'query', order])
      expect(query.stdout).toContain(`paid at:       ${paidAt}\n`)
      expect((await run(['order', 'query', order, '--json'])).json()).toMatchObject({record: {time_end: paidAt}})

      const refunds = (await run(['refund', 'query', order, '--json'])).json<{
        refund: {time_end: string; refund_orders: {refund_time: string}[]}
      }>().refund
      expect(refunds.time_end).toBe(paidAt)
      expect(refunds.refund_orders[0]!.refund_time).toBe(refundedAt)
      expect((await run(['refund', 'query', order])).stdout).toContain(`\t${refundedAt}\t`)

      // refund list gives the time this machine recorded the refund: the same moment, in the same form. A zone
      // read wrong is hours off; the two clocks read it apart by however long the machine took between them.
      const listed = (await run(['refund', 'list', '--json'])).json<{refunds: {made_at: string}[]}>().refunds[0]!
      expect(Math.abs(Date.parse(listed.made_at) - Date.parse(refundedAt))).toBeLessThan(15 * 60_000)
      expect(listed.made_at.slice(-6)).toBe(refundedAt.slice(-6))

      // A bulk run's report, and reconcile's output.
      const refundsFile = join(home, 'refunds.csv')
      writeFileSync(refundsFile, `mch_order_no,refund_amount\n${order},2.00\n`)
      expect((await run(['refund', 'create', '--from-csv', refundsFile, '--yes'])).code).toBe(0)
      const [ledgerAfter] = await control.orders(order)
      const [reported] = csvRows(join(home, 'refunds.report.csv'))
      expect(reported!.refund_time).toBe(inZone(ledgerAfter!.refunds[1]!.created_at, gwZone))
      const export_ = join(home, 'orders.csv')
      writeFileSync(export_, `mch_order_no,amount,fee_type\n${order},100.00,THB\n`)
      await run(['reconcile', export_, '--out', join(home, 'orders.reconciled.csv')])
      expect(csvRows(join(home, 'orders.reconciled.csv'))[0]!.time_paid).toBe(paidAt)
    } finally {
      await sandbox.stop()
    }
  })
})

describe('the zone of a profile', () => {
  it('is Asia/Bangkok unless said; --gateway-zone on profile add and set takes an IANA name, in any case, and refuses others', async () => {
    const home = tempDir('gw-zone-profile-')
    folders.push(home)
    const sandbox = await spawnSandbox(home, ['--quiet', '--no-profile'])
    const run = (args: string[]) => gw(args, {env: {GW_CONFIG_DIR: home}})
    try {
      const keys = [
        '--appid',
        sandbox.appid,
        '--base-url',
        sandbox.baseUrl,
        '--private-key',
        join(sandbox.dataDir, 'keys', `${sandbox.appid}.private.pem`),
        '--gateway-public-key',
        join(sandbox.dataDir, 'keys', 'gateway.public.pem'),
      ]
      expect((await run(['profile', 'add', 'shop', ...keys, '--json'])).json()).toMatchObject({
        gateway_zone: 'Asia/Bangkok',
      })
      const set = await run(['profile', 'set', 'shop', '--gateway-zone', 'europe/berlin', '--json'])
      expect(set.json()).toMatchObject({gateway_zone: 'Europe/Berlin'})
      // A zone is not what the gateway checks: no doctor run after it.
      expect(set.json()).not.toHaveProperty('doctor')
      const wrong = await run(['profile', 'set', 'shop', '--gateway-zone', 'Mars/Olympus'])
      expect(wrong.code).toBe(2)
      expect(wrong.stderr).toContain('--gateway-zone "Mars/Olympus" is not a time zone')
      expect((await run(['profile', 'show', 'shop'])).stdout).toMatch(/gateway zone: +Europe\/Berlin/)
      const fromEnvironment = await gw(['profile', 'show', '--json'], {
        env: {
          GW_CONFIG_DIR: home,
          GW_APPID: sandbox.appid,
          GW_BASE_URL: sandbox.baseUrl,
          GW_PRIVATE_KEY: keys[5]!,
          GW_GATEWAY_PUBLIC_KEY: keys[7]!,
          GW_GATEWAY_ZONE: 'UTC',
        },
      })
      expect(fromEnvironment.json()).toMatchObject({gateway_zone: 'UTC', source: 'environment'})
    } finally {
      await sandbox.stop()
    }
  })
})
