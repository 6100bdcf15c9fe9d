/**
 * Inputs far larger than a day's refunds, generated at test time: nothing is done per row that
 * grows the stack (no recursion, no spread over rows), and problems on screen are capped.
 * Memory and time are measured by bench/large-files.mjs, never asserted here.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

it('a 125,000-row CSV is checked and planned in a dry run: no stack overflow, every row planned', async () => {
  const orders = await world.paidOrders(50, 1_000_000, 'BIG')
  const csv = join(world.configDir, 'big.csv')
  const rows = Array.from({length: 125_000}, (_, i) => `${orders[i % 50]},${1 + (i % 7)},wechat,R${i}`)
  writeFileSync(csv, `mch_order_no,refund_fee,channel,mch_refund_no\n${rows.join('\n')}\n`)
  const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--allow-repeats', '--json'], {
    timeoutMs: 240_000,
  })
  expect(result.code, result.stderr.slice(0, 3000)).toBe(0)
  const plan = result.json<{rows: {status: string}[]}>()
  expect(plan.rows).toHaveLength(125_000)
  expect(plan.rows.every((r) => r.status === 'would_refund')).toBe(true)
}, 300_000)

it('125,000 rows of unknown orders: the first 20 problems on screen and how many more', async () => {
  const csv = join(world.configDir, 'unknown.csv')
  const rows = Array.from({length: 125_000}, (_, i) => `NONE-${i % 300},${1 + i}`)
  writeFileSync(csv, `mch_order_no,refund_fee\n${rows.join('\n')}\n`)
  const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--channel', 'wechat'], {
    timeoutMs: 240_000,
  })
  expect(result.code, result.stderr.slice(-2000)).toBe(2)
  expect(result.stderr.match(/^ {2}line \d+: /gm)).toHaveLength(20)
  expect(result.stderr).toMatch(/\.\.\. and \d+ more \(all are in --json and the report\)/)
}, 300_000)
