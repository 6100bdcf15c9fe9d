/**
 * gw order list as support uses it: orders by their total (--amount) and by their payer (--payer),
 * the payer in a column of the table (shortened safely) and whole in --json, as --payer takes it.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, startWorld} from '../../helpers/gw-env.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld({spawned: false})
})
afterAll(() => world.close())

type Listed = {mch_order_no: string; total_amount: string; openid?: string}
const listed = async (args: string[], env?: Record<string, string>) => {
  const run = await world.run(['order', 'list', ...args, '--json'], {env})
  expect(run.code, run.stderr).toBe(0)
  return run.json<{orders: Listed[]}>().orders
}

describe('gw order list', () => {
  it('shows who paid: a payer column, openid in --json, and --payer takes what --json gives', async () => {
    const made = await world.run(orderCreate('OL-PAYER', 'wechat', '61.25'))
    expect(made.code, made.stderr).toBe(0)
    await world.pay('OL-PAYER')
    const queried = await world.run(['order', 'query', 'OL-PAYER', '--json'])
    const {openid} = queried.json<{record: {openid: string}}>().record

    const [order] = await listed(['--amount', '61.25'])
    expect(order).toMatchObject({mch_order_no: 'OL-PAYER', total_amount: '61.25', openid})
    expect((await listed(['--payer', order!.openid!])).map((o) => o.mch_order_no)).toEqual(['OL-PAYER'])

    const text = await world.run(['order', 'list', '--amount', '61.25'])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/│ gateway order +│ payer +│/)
    expect(text.stdout).toMatch(new RegExp(`│ OL-PAYER .*│ \\d+ +│ ${openid} +│`))
    expect(text.stdout).not.toContain('are shortened')
  })

  it('lists an order gw refunded under REFUND, single or bulk, and its timeline says REFUND: paid, and at least one refund succeeded, as of the refund', async () => {
    for (const mch of ['OL-REFUNDED', 'OL-BULK', 'OL-PAID']) {
      const made = await world.run(orderCreate(mch, 'wechat', '84.87'))
      expect(made.code, made.stderr).toBe(0)
      await world.pay(mch)
      expect((await world.run(['order', 'query', mch])).code).toBe(0)
    }
    const single = await world.run(['refund', 'create', 'OL-REFUNDED', '--amount', '50.00'])
    expect(single.code, single.stderr).toBe(0)
    const csv = world.file('ol-bulk.csv', 'mch_order_no,refund_amount\nOL-BULK,84.87\n')
    const bulk = await world.run(['refund', 'create', '--from-csv', csv, '--yes'])
    expect(bulk.code, bulk.stderr).toBe(0)

    const states = async (state: string) =>
      (await listed(['--amount', '84.87', '--state', state])).map((o) => o.mch_order_no).sort()
    expect(await states('REFUND')).toEqual(['OL-BULK', 'OL-REFUNDED'])
    expect(await states('SUCCESS')).toEqual(['OL-PAID'])
    const timeline = await world.run(['order', 'timeline', 'OL-REFUNDED'])
    expect(timeline.code, timeline.stderr).toBe(0)
    expect(timeline.stdout.split('\n')[0]).toMatch(/REFUND: paid, and at least one refund succeeded, as of /)
    expect(timeline.stdout).not.toContain('SUCCESS: paid, as of')
  })

  it('--limit keeps the newest so many on the screen, in --json and in --out alike, and says how many match', async () => {
    for (const mch of ['OL-LIMIT-1', 'OL-LIMIT-2', 'OL-LIMIT-3']) {
      const made = await world.run(orderCreate(mch, 'wechat', '7.31'))
      expect(made.code, made.stderr).toBe(0)
    }
    const text = await world.run(['order', 'list', '--amount', '7.31', '--limit', '2'])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('the newest 2 of 3 orders (--limit 2)')
    expect(text.stdout).toContain('OL-LIMIT-3 ')
    expect(text.stdout).not.toContain('OL-LIMIT-1 ')
    expect((await listed(['--amount', '7.31', '--limit', '2'])).map((o) => o.mch_order_no)).toEqual([
      'OL-LIMIT-3',
      'OL-LIMIT-2',
    ])
    const out = join(world.configDir, 'limited.csv')
    expect((await world.run(['order', 'list', '--amount', '7.31', '--limit', '1', '--out', out])).code).toBe(0)
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain('OL-LIMIT-3')
    // With --refresh, only the newest so many are asked about.
    const before = (await world.requests()).order_query ?? 0
    const refreshed = await listed(['--amount', '7.31', '--limit', '1', '--refresh'])
    expect(refreshed.map((o) => o.mch_order_no)).toEqual(['OL-LIMIT-3'])
    expect((await world.requests()).order_query).toBe(before + 1)
    const refunds = await world.run(['refund', 'list', '--limit', '0'])
    expect(refunds.code).toBe(2)
  })

  it("shortens a long openid to its first and last characters, says so, and never lets the gateway's text reach the terminal raw", async () => {
    const {dir, env} = world.machine()
    const long = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o'
    const hostile = 'u_\u001b[2J\u001b]0;owned\u0007'
    const line = (mch: string, openid: string) =>
      JSON.stringify({
        type: 'order',
        appid: world.sandbox.info.merchants[0]!.appid,
        at: '2026-03-01T10:00:00Z',
        mch_order_no: mch,
        channel: 'wechat',
        total_fee: 4200,
        fee_type: 'THB',
        state: 'SUCCESS',
        openid,
      })
    writeFileSync(join(dir, 'history.jsonl'), [line('OL-LONG', long), line('OL-HOSTILE', hostile)].join('\n'))

    const text = await world.run(['order', 'list', '--amount', '42.00'], {env})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/│ OL-LONG .*│ oUpF8uMu…eS6o +│/)
    expect(text.stdout).toContain(
      'payer: openids longer than 16 characters show their first 8 and last 4 (whole in --json and --out, for --payer).',
    )
    // eslint-disable-next-line no-control-regex -- the escape and bell characters are what must not be there
    expect(text.stdout).not.toMatch(/\u001b|\u0007/)
    expect(text.stdout).toMatch(/│ OL-HOSTILE .*│ u_\\x1B\[2…\\x07 +│/)
    const json = await listed(['--payer', long], env)
    expect(json).toEqual([expect.objectContaining({mch_order_no: 'OL-LONG', openid: long})])
  })
})
