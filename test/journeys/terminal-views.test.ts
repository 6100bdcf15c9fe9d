/**
 * A journey across commands: the text views as a person sees them on a terminal (tmux), colours on:
 * painted, never an escape sequence as text, their shape kept.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {HAS_TMUX, Terminal} from '../helpers/terminal.js'

let world: GwWorld

const CYAN = '\u001B[36m'

const BOLD = '\u001B[1m'

/** gw run on a terminal with colours on: the screen as seen, and with its styles, once gw has ended. */
async function onTerminal(args: string[], env: Record<string, string> = {}) {
  const terminal = new Terminal(args, {GW_CONFIG_DIR: world.configDir, NO_COLOR: '', ...env})
  try {
    const seen = await terminal.waitFor(/EXIT=\d+/)
    return {seen, styled: terminal.screen(true), code: Number(/EXIT=(\d+)/.exec(seen)![1])}
  } finally {
    terminal.close()
  }
}

/** Nothing on the screen is an escape sequence made visible: gw's own colours are obeyed, not printed. */
const noEscapesAsText = (seen: string) => expect(seen).not.toMatch(/\\x1B|\\u001B|\[3\dm/)

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe.skipIf(!HAS_TMUX && !process.env.CI)('views on a terminal, as a person sees them', () => {
  it('order list and refund list: table heads in colour, the rows as text, borders whole', async () => {
    const order = 'TTY-LIST-1'
    expect((await world.createOrder(order)).code).toBe(0)
    await world.pay(order)
    await world.run(['refund', 'create', order, '--amount', '1.00'])
    for (const [what, head] of [
      ['order', 'made'],
      ['refund', 'made'],
    ] as const) {
      const {seen, styled, code} = await onTerminal([what, 'list', '--since', '10m'])
      expect(code, seen).toBe(0)
      noEscapesAsText(seen)
      expect(seen).toMatch(new RegExp(`│ ${head} +│`))
      expect(seen).toContain(order)
      expect(styled).toContain(`${CYAN}${head}`)
      // Every row of the table as wide as its top border.
      const rows = seen.split('\n').filter((line) => /^[┌│├└]/.test(line))
      expect(new Set(rows.map((line) => line.trimEnd().length)).size, seen).toBe(1)
    }
  })

  it('order query: the first value bold, states in words; refund query: a PROCESSING row in a narrow table', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TTY-QUERY')
    const query = await onTerminal(['order', 'query', order!])
    noEscapesAsText(query.seen)
    expect(query.seen).toMatch(/state: +SUCCESS: paid/)
    expect(query.styled).toContain(`${BOLD}${order}`)

    await world.underFaults('refund-processing=1', async () => {
      await world.run(['refund', 'create', order!, '--amount', '2.00'])
    })
    const refunds = await onTerminal(['refund', 'query', order!])
    noEscapesAsText(refunds.seen)
    expect(refunds.seen).toMatch(/│ PROCESSING: processing │/)
    const table = refunds.seen.split('\n').filter((line) => line.startsWith('│'))
    for (const line of table) expect(line.trimEnd().length, line).toBeLessThanOrEqual(120)
    expect(refunds.styled).toContain(`${CYAN}refund`)
  })

  it('a bulk run asks over its plan, said as test: the rows, what goes out; no answer sends nothing', async () => {
    const orders = await world.paidOrders(2, 10_000, 'TTY-ASK')
    const csv = join(world.configDir, 'tty-ask.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${orders[0]},1.00\n${orders[1]},2.50\n`)
    const terminal = new Terminal(['refund', 'create', '--from-csv', csv], {GW_CONFIG_DIR: world.configDir})
    try {
      const asked = await terminal.waitFor(/\? TEST: send .*\(y\/N\)/)
      const merchant = world.sandbox.info.merchants[0]!
      expect(asked).toContain(`Plan for ${csv} (profile "sandbox", ${merchant.appid}, test):`)
      expect(asked).toContain('2 rows, 2 orders; to send: 2 rows, 3.50 THB')
      // Each row said as the dry run says it: would_refund, not pending.
      expect(asked).toMatch(new RegExp(`│ 2 +│ ${orders[0]} .*│ would_refund │`))
      expect(asked).toMatch(new RegExp(`│ 3 +│ ${orders[1]} .*│ would_refund │`))
      expect(asked).not.toContain('pending')
      expect(asked).toContain(
        `TEST: send 2 rows, 3.50 THB of refunds from ${csv} (profile "sandbox", ${merchant.appid})?`,
      )
      terminal.press('Enter')
      const screen = await terminal.waitFor(/EXIT=\d+/)
      expect(screen).toContain('Cancelled; nothing was sent.')
      expect(screen).toContain('EXIT=2')
    } finally {
      terminal.close()
    }
    for (const order of orders) expect((await world.ledger(order))!.refunds).toEqual([])
  })

  it("a bulk plan's tables and a listener's lines: painted, never escapes as text", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'TTY-BULK')
    const csv = join(world.configDir, 'tty-refunds.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${order},1.00\n`)
    const plan = await onTerminal(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(plan.code, plan.seen).toBe(0)
    noEscapesAsText(plan.seen)
    expect(plan.styled).toContain(`${CYAN}line`)

    const listener = await world.listen(['--exit-after', '1'])
    const terminal = new Terminal(['notify', 'listen', '--port', '0', '--exit-after', '1'], {
      GW_CONFIG_DIR: world.configDir,
      NO_COLOR: '',
    })
    try {
      const url = /listening for notifications at (\S+)/.exec(
        await terminal.waitFor(/listening for notifications at \S+/),
      )![1]!
      const create = ['order', 'create', '--channel', 'wechat', '--amount', '3', '--fee-type', 'THB', '--no-qr']
      await world.run([...create, '--mch-order-no', 'TTY-NOTIFY', '--notify-url', url])
      await world.pay('TTY-NOTIFY')
      const seen = await terminal.waitFor(/EXIT=\d+/)
      noEscapesAsText(seen)
      expect(seen).toContain('verified  TTY-NOTIFY')
      expect(terminal.screen(true)).toContain('\u001B[32mverified')
    } finally {
      terminal.close()
      listener.child.kill('SIGINT')
      await listener.result
    }
  })
})
