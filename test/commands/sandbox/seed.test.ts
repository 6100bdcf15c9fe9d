/** gw sandbox seed: practice data, refused off the sandbox, its suggested commands run as printed. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {gw} from '../../helpers/cli.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {startReceiver} from '../../helpers/receiver.js'
import {removeDir, tempDir} from '../../helpers/shared.js'
import {spawnSandbox} from '../../helpers/spawned-sandbox.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('practice data', () => {
  it('sandbox seed makes orders across channels and currencies, and files on which reconcile finds exactly what was planted', async () => {
    const dir = tempDir('gw-seed-')
    const seeded = await world.run(['sandbox', 'seed', '--orders', '24', '--out-dir', dir, '--json'])
    expect(seeded.code, seeded.stderr).toBe(0)
    const result = seeded.json<{orders: number; paid: number; planted: {line: number; difference: string}[]}>()
    expect(result).toMatchObject({orders: 24, paid: 18})
    const reconciled = await world.run(['reconcile', join(dir, 'orders-export.csv'), '--json'])
    expect(reconciled.code).toBe(1)
    const flagged = reconciled
      .json<{results: {line: number; classification: string}[]}>()
      .results.filter((r) => r.classification !== 'match')
    expect(flagged.map((r) => [r.line, r.classification])).toEqual(
      result.planted.map((p) => [p.line, p.difference.split(' ')[0]]),
    )
    const currencies = new Set(readFileSync(join(dir, 'orders-export.csv'), 'utf8').match(/,(THB|MYR|JPY|AED),/g))
    expect(currencies.size).toBe(4)
    const plan = await world.run(['refund', 'create', '--from-csv', join(dir, 'refunds.csv'), '--dry-run'])
    expect(plan.code, plan.stderr).toBe(0)
    expect((await world.run(['order', 'list', '--since', '10m'])).stdout).toContain('SEED-')
  })

  it('sandbox seed refuses a live profile and a gateway that is not the sandbox, before making anything', async () => {
    const base = world.environmentProfile()
    const nowhere = await world.run(['sandbox', 'seed'], {env: {...base, GW_BASE_URL: 'http://127.0.0.1:9/Gateway'}})
    expect(nowhere.code).toBe(3)
    expect(nowhere.stderr).toContain('cannot reach the sandbox')
    // A gateway (here one that answers 401 to everything) is not the sandbox: asked its health, then left alone.
    const gateway = await startReceiver(() => ({status: 401, body: '{"error":"unauthorized"}'}))
    try {
      for (const args of [
        ['sandbox', 'seed'],
        ['sandbox', 'pay', 'INV-1'],
        ['sandbox', 'notify', 'INV-1'],
      ]) {
        const refused = await world.run(args, {env: {...base, GW_BASE_URL: gateway.url}})
        expect(refused.code, args.join(' ')).toBe(2)
        expect(refused.stderr).toContain('is not gw sandbox')
        expect(refused.stderr).toContain('nothing was sent')
      }
      expect(gateway.received).toHaveLength(3)
      expect(gateway.received.every((r) => r.body === '')).toBe(true)
    } finally {
      await gateway.close()
    }
    // One that sends the health check on to the real sandbox is not the sandbox either.
    const {createServer} = await import('node:http')
    const asked: string[] = []
    const redirecting = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`)
      res.writeHead(302, {location: `${world.sandbox.info.origin}/sandbox/health`}).end()
    })
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = redirecting.address() as {port: number}
      const env = {...base, GW_BASE_URL: `http://127.0.0.1:${port}/Gateway`}
      const refused = await world.run(['sandbox', 'seed', '--orders', '2'], {env})
      expect(refused.code, refused.stderr).toBe(2)
      expect(refused.stderr).toContain('is not gw sandbox')
      expect(asked).toEqual(['GET /sandbox/health'])
    } finally {
      redirecting.closeAllConnections()
      await new Promise((resolve) => redirecting.close(resolve))
    }
    await world.run(world.profileAdd('real', '--live'))
    const before = (await world.requests()).native_pay ?? 0
    const live = await world.run(['sandbox', 'seed', '--profile', 'real'])
    expect(live.code).toBe(2)
    expect(live.stderr).toContain('Profile "real" is live: seeding is for the sandbox only.')
    expect((await world.requests()).native_pay ?? 0).toBe(before)
  })
})

describe('practice data in a folder with a space in its name', () => {
  it('the commands gw sandbox seed suggests run as printed', async () => {
    const folder = join(world.configDir, 'seed here')
    const seeded = await world.run(['sandbox', 'seed', '--orders', '4', '--out-dir', folder])
    expect(seeded.code, seeded.stderr).toBe(0)
    const next = seeded.stdout
      .split('Next:\n')[1]!
      .trim()
      .split('\n')
      .map((line) => line.trim())
    expect(next).toEqual([
      `gw reconcile '${folder}/orders-export.csv'`,
      `gw refund create --from-csv '${folder}/refunds.csv' --dry-run`,
      'gw order list --since today',
    ])
    // Reconcile finds the differences planted (1); the dry run and the list run clean.
    const codes = []
    for (const line of next) codes.push((await world.asPrinted(line)).code)
    expect(codes).toEqual([1, 0, 0])
  })
})

describe('a sandbox gw starts as a process', () => {
  const home = tempDir('gw-sandbox-cli-')

  afterAll(() => removeDir(home))

  describe('a developer at the sandbox', () => {
    it('seeds practice data into a new folder whatever --auto-pay is: at once (0) or later (unpaid orders closed first)', async () => {
      const seedWith = async (autoPay: string) => {
        const dir = tempDir('gw-sandbox-seed-')
        const env = {GW_CONFIG_DIR: dir}
        const sandbox = await spawnSandbox(dir, ['--auto-pay', autoPay, '--quiet'])
        try {
          const outDir = join(dir, 'practice', 'today')
          const seeded = await gw(['sandbox', 'seed', '--orders', '8', '--out-dir', outDir, '--json'], {env})
          expect(seeded.code, seeded.stderr).toBe(0)
          const result = seeded.json<{orders: number; planted: {line: number; difference: string}[]}>()
          expect(result.orders).toBe(8)
          // What the export says is what the sandbox holds: reconcile finds the planted differences only.
          const reconciled = await gw(['reconcile', join(outDir, 'orders-export.csv'), '--json'], {env})
          const flagged = reconciled
            .json<{results: {line: number; classification: string}[]}>()
            .results.filter((r) => r.classification !== 'match')
          expect(flagged.map((r) => [r.line, r.classification])).toEqual(
            result.planted.map((p) => [p.line, p.difference.split(' ')[0]]),
          )
          return readFileSync(join(outDir, 'orders-export.csv'), 'utf8')
        } finally {
          await sandbox.stop()
          removeDir(dir)
        }
      }
      const [atOnce, later] = await Promise.all([seedWith('0'), seedWith('600')])
      expect(atOnce).toMatch(/,paid,/)
      expect(later).toMatch(/,closed,/)
    })
  })
})
