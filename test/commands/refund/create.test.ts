/**
 * gw refund create ORDER: one refund, checked before it is sent, said refunded only when the gateway showed
 * it; an answer lost or unsure is looked up, never sent again under a new number.
 */
import {readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type CliResult, suggested} from '../../helpers/cli.js'
import {type GwWorld, orderCreate, orderNo, startWorld} from '../../helpers/gw-env.js'
import {waitFor} from '../../helpers/receiver.js'
import {startReplayingProxy} from '../../helpers/replaying-proxy.js'
import type {Wire} from '../../helpers/sandbox.js'
import {removeDir, tempDir, TIME} from '../../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../../helpers/terminal.js'

let world: GwWorld

/** A refund of a paid 100.00 THB wechat order made straight through the sandbox (not gw): its signed answer. */
const refundAtGateway = (wire: Wire, mchOrderNo: string, mchRefundNo: string, refundFee: number) =>
  wire.call('order_refund', {
    mch_order_no: mchOrderNo,
    channel: 'wechat',
    total_fee: 10_000,
    fee_type: 'THB',
    mch_refund_no: mchRefundNo,
    refund_fee: refundFee,
  })

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('a single refund', () => {
  it('whose outcome was lost is settled before anything else, never sent again under a new number', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-S')
    const refund = ['refund', 'create', order!, '--amount', '30.00']
    await world.underFaults('drop-after-commit=1@order_refund,http-500=1@refund_query', async () => {
      const first = await world.run(refund)
      expect(first.code).toBe(5)
      const again = await world.run(refund)
      expect(again.code, again.stderr).toBe(5)
      expect(again.stderr).toMatch(
        /Refund RF\w+ of 30\.00 THB on order ONCE-S-1 was sent earlier and its outcome is still not known/,
      )
      expect(again.stderr).toContain('Nothing new was sent.')
      expect(await world.refundsOf(order!)).toHaveLength(1)
    })
    const settled = await world.run(refund)
    expect(settled.code, settled.stderr).toBe(0)
    expect(settled.stderr).toContain('it is settled now (refunded). Nothing new was sent.')
    expect(await world.refundsOf(order!)).toEqual([expect.objectContaining({refund_fee: 3000, state: 'SUCCESS'})])

    const identical = await world.run(refund)
    expect(identical.code).toBe(2)
    expect(identical.stderr).toMatch(/again: refund RF\w+ of 30\.00 THB was made at \d{4}-/)
    expect(identical.stderr).toContain('Add --again to confirm')
    expect(await world.refundsOf(order!)).toHaveLength(1)
    const deliberate = await world.run([...refund, '--again'])
    expect(deliberate.code, deliberate.stderr).toBe(0)
    expect(await world.refundsOf(order!)).toHaveLength(2)
  })

  it.skipIf(!HAS_TMUX)(
    'asked "again?" on a terminal and stopped there (Ctrl-C, SIGTERM, a closed terminal): nothing sent, no intent left, gw ends',
    async () => {
      for (const [stop, ended] of [
        ['Ctrl-C', {code: 130, signal: null}],
        ['SIGTERM', {code: 143, signal: null}],
        ['hang-up', {code: null, signal: 'SIGHUP'}],
      ] as const) {
        const [order] = await world.paidOrders(1, 10_000, `ONCE-ASK-${stop}`)
        const refund = ['refund', 'create', order!, '--amount', '20.00']
        expect((await world.run(refund)).code).toBe(0)
        // Ctrl-C is typed into the terminal, which then shows how gw ended; the others come from outside.
        const exitFile = stop === 'Ctrl-C' ? undefined : join(world.configDir, `ask-${stop}.json`)
        const terminal = new Terminal(refund, {GW_CONFIG_DIR: world.configDir}, exitFile)
        try {
          await terminal.waitFor(/again: refund RF\w+ of 20\.00 THB was made/)
          if (stop === 'Ctrl-C') {
            // Typed at the question: the question takes the key itself, no signal reaches gw.
            terminal.press('C-c')
            const screen = await terminal.waitFor(/EXIT=\d+/)
            expect(screen).toContain('Stopped before the question was answered: nothing was sent.')
            expect(screen).not.toContain('unexpected failure')
            expect(screen).toContain(`EXIT=${ended.code}`)
          } else if (stop === 'SIGTERM') {
            terminal.kill('SIGTERM')
            expect(await terminal.ended()).toEqual(ended)
          } else expect(await terminal.hangUp()).toEqual(ended)
        } finally {
          terminal.close()
        }
        const listed = (await world.run(['refund', 'list', '--json'])).json<{
          refunds: {mch_order_no: string; status: string}[]
        }>()
        expect(listed.refunds.filter((r) => r.mch_order_no === order).map((r) => r.status)).toEqual(['refunded'])
        expect(await world.refundsOf(order!)).toHaveLength(1)
        const next = await world.run([...refund, '--again'])
        expect(next.code, next.stderr).toBe(0)
        expect(next.stderr).not.toContain('settled')
        expect(await world.refundsOf(order!)).toHaveLength(2)
      }
    },
  )

  it.skipIf(!HAS_TMUX)(
    'asks "again?" with the earlier refund\'s file name made visible, never run by the terminal',
    async () => {
      const [order] = await world.paidOrders(1, 10_000, 'ONCE-ESC')
      const csv = join(world.configDir, 'evil\u001b]2;PWNED\u0007.csv')
      writeFileSync(csv, `mch_order_no,refund_fee\n${order},500\n`)
      expect((await world.bulk(csv)).code).toBe(0)
      const terminal = new Terminal(['refund', 'create', order!, '--amount', '5.00'], {GW_CONFIG_DIR: world.configDir})
      try {
        const screen = await terminal.waitFor(/again: refund RF\w+ of 5\.00 THB was made/)
        expect(screen).toContain('evil\\x1B]2;PWNED\\x07')
        const title = terminal.tmux('display-message', '-p', '-t', terminal.session, '#{pane_title}')
        expect(title).not.toContain('PWNED')
      } finally {
        terminal.close()
      }
      expect(await world.refundsOf(order!)).toHaveLength(1)
    },
  )

  it('on alipay (no refund query) is settled by sending the same number again: sent, not confirmable, never refunded on that word', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-ALI', 'alipay')
    const refund = ['refund', 'create', order!, '--amount', '10.00']
    const first = await world.underFaults('drop-after-commit=1@order_refund', () => world.run(refund))
    expect(first.code).toBe(5)
    expect(first.stdout + first.stderr).not.toContain('gw refund query')
    expect(first.stdout).toMatch(/gw sends refund number RF\w+ again, which the gateway takes once/)
    // The same number again: the gateway holds it, which proves neither its amount nor its state.
    const settled = await world.run([...refund, '--json'])
    expect(settled.code, settled.stderr).toBe(5)
    expect(settled.json()).toMatchObject({status: 'not_confirmable', resolved_by: 'resend', sent_again: true})
    expect(settled.json<{explanation: string}>().explanation).toContain('Confirm refund RF')
    expect(await world.refundsOf(order!)).toEqual([expect.objectContaining({refund_fee: 1000, state: 'SUCCESS'})])
    // Nothing is sent again for it, and a new refund of the same amount is a repeat to confirm.
    const again = await world.run(refund)
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('Add --again to confirm')
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('started twice at once: one is sent, the other refused or told it is a repeat; one refund in the ledger', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-TWICE')
    const refund = ['refund', 'create', order!, '--amount', '2.22']
    const runs = await world.underFaults('latency=400-400ms', () =>
      Promise.all([world.run(refund), world.run(refund), world.run(refund)]),
    )
    expect(runs.map((r) => r.code).sort()).toEqual([0, 2, 2])
    for (const run of runs.filter((r) => r.code === 2))
      expect(run.stderr).toMatch(
        /Order ONCE-TWICE-1 is being refunded by (process \d+|another process)|again: refund RF\w+ of 2\.22 THB/,
      )
    expect(await world.refundsOf(order!)).toEqual([expect.objectContaining({refund_fee: 222, state: 'SUCCESS'})])
    expect(readdirSync(world.configDir).filter((name) => name.includes('.refund-'))).toEqual([])
  })

  it("on alipay, a given refund number another order's refund holds is failed, never taken for this order's", async () => {
    const [wechat] = await world.paidOrders(1, 10_000, 'ONCE-NUMW')
    const [alipay, other] = await world.paidOrders(2, 10_000, 'ONCE-NUMA', 'alipay')
    // SHARED-R1 made elsewhere (the merchant platform, another tool): this machine does not know it.
    const elsewhere = await world.sandbox.wire().call('order_refund', {
      mch_order_no: wechat,
      channel: 'wechat',
      total_fee: 10_000,
      fee_type: 'THB',
      mch_refund_no: 'SHARED-R1',
      refund_fee: 100,
    })
    expect(elsewhere.data.result).toBe('SUCCESS')
    // The alipay order is in state REFUND (refunded in part), which must not pass for proof of SHARED-R1.
    expect((await world.run(['refund', 'create', alipay!, '--amount', '2.00'])).code).toBe(0)
    const single = await world.run(['refund', 'create', alipay!, '--amount', '4.00', '--mch-refund-no', 'SHARED-R1'])
    expect(single.code, single.stderr).toBe(1)
    expect(single.stdout + single.stderr).toContain('Refund number SHARED-R1 is already used at the gateway')
    expect(single.stdout + single.stderr).toContain('Nothing was refunded by this run.')
    expect(await world.refundsOf(alipay!)).toEqual([expect.objectContaining({refund_fee: 200})])

    expect((await world.run(['refund', 'create', other!, '--amount', '3.00'])).code).toBe(0)
    const csv = world.csv(`mch_order_no,refund_amount,mch_refund_no\n${other},5.00,SHARED-R1\n`)
    const run = await world.bulk(csv)
    // This machine has now sent SHARED-R1 (for the alipay order, refused): never sent for another order.
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toContain('Refund number SHARED-R1 was sent from this machine')
    expect(await world.refundsOf(other!)).toEqual([expect.objectContaining({refund_fee: 300})])
    // The plan shows the row's own number, never one made up for a row it does not send.
    const plan = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])
    expect(plan.json<{rows: {status: string; mch_refund_no: string}[]}>().rows).toEqual([
      expect.objectContaining({status: 'skipped_invalid', mch_refund_no: 'SHARED-R1'}),
    ])
    const listed = JSON.parse((await world.run(['refund', 'list', '--json'])).stdout) as {
      refunds: {mch_refund_no: string; mch_order_no: string; status: string}[]
    }
    const shared = listed.refunds.filter((r) => r.mch_refund_no === 'SHARED-R1')
    expect(shared.map((r) => [r.mch_order_no, r.status])).toEqual([[alipay, 'failed']])
  })

  it('of a promptpay order is refused before anything is sent, before any refund number is shown', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-PP', 'promptpay')
    const result = await world.run(['refund', 'create', order!, '--amount', '1.00'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('promptpay orders cannot be refunded through the API')
    expect(result.stderr).not.toContain('refund number')
    expect(await world.refundsOf(order!)).toEqual([])
  })

  it('killed between intent and answer: the intent is in the database, so a rerun settles it, never sends twice', async () => {
    // A history of its own (an environment profile), with an earlier history whose last line a killed write cut short.
    const dir = tempDir('gw-torn-')
    const env = world.environmentProfile({GW_CONFIG_DIR: dir})
    writeFileSync(join(dir, 'history.jsonl'), `{"type":"order","appid":"${env.GW_APPID}","mch_ord`)
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-CUT')
    const refund = ['refund', 'create', order!, '--amount', '30.00']
    try {
      const sent = async () => (await world.requests()).order_refund ?? 0
      const before = await sent()
      const killed = await world.underFaults('latency=1500-1500ms', async () => {
        const {child, result} = world.spawn(refund, {env})
        // Killed once the refund has reached the gateway, which commits it after its latency.
        while ((await sent()) === before) await sleep(20)
        child.kill('SIGKILL')
        return result
      })
      expect(killed.signal).toBe('SIGKILL')
      expect(killed.stderr).toContain(
        'line 1 is not a record of an order or refund (cut short, edited, or longer than 64 KiB)',
      )
      while ((await world.refundsOf(order!)).length === 0) await sleep(50)

      const listed = await world.run(['refund', 'list', '--json'], {env})
      expect(JSON.parse(listed.stdout).refunds).toEqual([
        expect.objectContaining({mch_order_no: order, refund_fee: 3000, status: 'intent'}),
      ])
      const again = await world.run(refund, {env})
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toContain('it is settled now (refunded). Nothing new was sent.')
      expect(await world.refundsOf(order!)).toHaveLength(1)
      expect(readdirSync(dir)).toEqual(expect.arrayContaining(['history.db', 'history.jsonl.imported']))
      expect(readdirSync(dir)).not.toContain('history.jsonl')
    } finally {
      removeDir(dir)
    }
  })
})

describe('gw refund create and query', () => {
  it('refunds part of an order, then shows every refund of it', async () => {
    const mch = await world.createPaid()
    const result = await world.run(['refund', 'create', mch, '--amount', '50.00', '--mch-refund-no', `${mch}-R1`])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/status: +refunded/)
    expect(result.stdout).toMatch(/balance left: +100\.50 THB/)
    expect((await world.ledger(mch))!.refunds).toEqual([
      expect.objectContaining({mch_refund_no: `${mch}-R1`, refund_fee: 5000, state: 'SUCCESS'}),
    ])
    const second = await world.run(['refund', 'create', mch, '--refund-fee', '1000', '--json'])
    // The balance is what is left after this refund, as the text's "balance left" says; each _fee beside its _amount.
    expect(second.json()).toMatchObject({
      status: 'refunded',
      mch_refund_no: expect.stringMatching(/^RF\d{14}[0-9A-F]{6}$/),
      refund_fee: 1000,
      refund_amount: '10.00',
      total_fee: 15050,
      total_amount: '150.50',
      balance_fee: 9050,
      balance_amount: '90.50',
    })
    // The refund number is said once: in the view (or the --json document), not again on stderr.
    expect(second.stderr).toBe('')
    const third = await world.run(['refund', 'create', mch, '--amount', '0.50'])
    expect(third.stdout).toMatch(/balance left: +90\.00 THB/)
    expect(third.stdout.match(/RF\d{14}[0-9A-F]{6}/g)).toHaveLength(1)
    expect(third.stderr).toBe('')
    const query = await world.run(['refund', 'query', mch])
    expect(query.code).toBe(0)
    expect(query.stdout).toMatch(/refunded: +60\.50 THB/)
    expect(query.stdout).toContain(`${mch}-R1`)
    expect(query.stdout).toContain('SUCCESS: refunded')
    const queryJson = (await world.run(['refund', 'query', mch, '--mch-refund-no', `${mch}-R1`, '--json'])).json<{
      refund: {refund_count: number; refund_fee: number}
    }>()
    expect(queryJson.refund).toMatchObject({refund_count: 3, refund_fee: 6050})
  })

  it('refuses a refund above the balance before sending, exit 2', async () => {
    const mch = await world.createPaid('100.00')
    await world.run(['refund', 'create', mch, '--amount', '60'])
    const result = await world.run(['refund', 'create', mch, '--amount', '50'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`50.00 THB is more than the balance of order ${mch}: 40.00 THB`)
    expect(result.stderr).toContain('Nothing was sent')
    expect((await world.ledger(mch))!.refunds).toHaveLength(1)
  })

  it('refuses a refund of an unpaid order before sending, exit 2', async () => {
    const mch = orderNo()
    await world.run(orderCreate(mch, 'wechat', '1', {qr: true}))
    const result = await world.run(['refund', 'create', mch, '--amount', '1'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('NOTPAY (created, not paid yet); only paid orders can be refunded')
  })

  it('a delayed refund ends processing, exit 5, with the command to check later', async () => {
    const mch = await world.createPaid()
    await world.underFaults('refund-processing=1', async () => {
      const result = await world.run(['refund', 'create', mch, '--amount', '1', '--mch-refund-no', `${mch}-P`])
      expect(result.code).toBe(5)
      expect(result.stdout).toMatch(/status: +processing/)
      expect(result.stderr).toContain(`gw refund query ${mch} --mch-refund-no ${mch}-P`)
    })
  })
})

describe('retries never duplicate money', () => {
  it('refunds through 30% HTTP 500s and 30% dropped answers: each refund made at most once, and as reported', async () => {
    const orders = await Promise.all([1, 2, 3, 4, 5, 6].map(() => world.createPaid('20.00')))
    const results: CliResult[] = []
    await world.underFaults('http-500=0.3,drop-after-commit=0.3', async () => {
      for (const mch of orders)
        results.push(
          await world.run(['refund', 'create', mch, '--amount', '5', '--mch-refund-no', `${mch}-F`, '--json']),
        )
    })
    for (const [i, mch] of orders.entries()) {
      const refunds = (await world.ledger(mch))!.refunds
      expect(refunds.length).toBeLessThanOrEqual(1)
      const code = results[i]!.code
      // 0: refunded; 5: unknown after resolving; 3: the order query before sending failed, so nothing was sent.
      expect([0, 3, 5]).toContain(code)
      if (code === 0)
        expect(refunds).toEqual([
          expect.objectContaining({mch_refund_no: `${mch}-F`, refund_fee: 500, state: 'SUCCESS'}),
        ])
      if (code === 3) expect(refunds).toEqual([])
    }
  })
})

describe('exit codes', () => {
  it('2 for a missing order number, never taken from a pipe on standard input; nothing asked of the gateway', async () => {
    const mch = await world.createPaid()
    const before = await world.requests()
    const piped = await world.run(['refund', 'create', '--amount', '1.00', '--yes'], {input: `${mch}\n`})
    expect(piped.code, piped.stderr).toBe(2)
    expect(await world.requests()).toEqual(before)
  })
})

describe('a refund number', () => {
  it('sent with one amount is never sent with another: refused before sending, naming the first (single and bulk)', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-REUSE', 'alipay')
    const first = await world.run(['refund', 'create', order!, '--amount', '10', '--mch-refund-no', 'PRV-X1'])
    expect(first.code, first.stderr).toBe(0)
    const second = await world.run([
      'refund',
      'create',
      order!,
      '--amount',
      '20',
      '--mch-refund-no',
      'PRV-X1',
      '--json',
    ])
    expect(second.code).toBe(2)
    expect(second.json<{error: {message: string}}>().error.message).toMatch(
      /Refund number PRV-X1 was sent from this machine at \S+ for 10\.00 THB of order PRV-REUSE-1; .*Nothing was sent\./,
    )
    const csv = world.csv(`mch_order_no,refund_amount,mch_refund_no\n${order},40.00,PRV-X1\n`)
    const bulk = await world.bulk(csv)
    expect(bulk.code).toBe(2)
    expect(bulk.stderr).toContain('Refund number PRV-X1 was sent from this machine')
    expect(await world.refundsOf(order!)).toEqual([
      expect.objectContaining({mch_refund_no: 'PRV-X1', refund_fee: 1000}),
    ])
    const listed = (await world.run(['refund', 'list', '--json'])).json<{refunds: {mch_refund_no: string}[]}>()
    expect(listed.refunds.filter((r) => r.mch_refund_no === 'PRV-X1')).toEqual([
      expect.objectContaining({refund_fee: 1000, status: 'refunded'}),
    ])
  })

  it('asked for again with its amount, as this machine saw it refunded, is said from the history without sending', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-AGAIN', 'alipay')
    const refund = ['refund', 'create', order!, '--amount', '5', '--mch-refund-no', 'PRV-A1', '--json']
    expect((await world.run(refund)).code).toBe(0)
    const before = (await world.requests()).order_refund ?? 0
    const again = await world.run(refund)
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({status: 'refunded', resolved_by: 'history', already_existed: true})
    expect((await world.requests()).order_refund ?? 0).toBe(before)
  })
})

describe('a signed answer about another refund', () => {
  it('is a failed verification: exit 4, nothing refunded claimed, and the next run settles the refund once', async () => {
    const [w27, w28] = await world.paidOrders(2, 10_000, 'PRV-REPLAY')
    const proxy = await startReplayingProxy(world.sandbox.info.base_url)
    try {
      const viaProxy = {GW_BASE_URL: proxy.baseUrl}
      const env = world.environmentProfile(viaProxy)
      const first = await world.run(['refund', 'create', w27!, '--amount', '27.00'], {env})
      expect(first.code, first.stderr).toBe(0)
      proxy.replay('order_refund', proxy.kept('order_refund')[0]!)
      const replayed = await world.run(['refund', 'create', w28!, '--amount', '28.00', '--json'], {env})
      expect(replayed.code, replayed.stdout).toBe(4)
      expect(replayed.stdout).not.toContain('"refunded"')
      expect(replayed.json<{explanation: string}>().explanation).toMatch(
        /the answer to order_refund is about mch_refund_no "RF\w+", not mch_refund_no "RF\w+" as asked/,
      )
      expect(await world.refundsOf(w28!)).toEqual([])

      const csv = world.csv(`mch_order_no,refund_amount\n${w28},3.00\n`)
      const bulk = await world.bulk(csv, [], {env})
      expect(bulk.code, bulk.stderr).toBe(4)
      expect(world.reportOf(csv).map((r) => r.status)).toEqual(['unknown'])
      // The single refund left unsettled was looked up first (its lookup is not replayed), and said.
      expect(bulk.stderr).toMatch(
        /Refund RF\w+ of 28\.00 THB, sent earlier without a known outcome, never reached the gateway: nothing was refunded under it\./,
      )
      expect(await world.refundsOf(w28!)).toEqual([])

      // The gateway's own answers again: 28.00, proven never made, is refunded once.
      proxy.passOn()
      const settled = await world.run(['refund', 'create', w28!, '--amount', '28.00'], {env})
      expect(settled.code, settled.stderr).toBe(0)
      expect(settled.stderr).not.toContain('sent again')
      // The bulk row's refund, unsettled in the history too, is looked up first and said: never sent by this command.
      expect(settled.stderr).toMatch(
        /Refund RF\w+ of 3\.00 THB, sent earlier by \S+ without a known outcome, never reached the gateway: nothing was refunded under it\./,
      )
      expect((await world.refundsOf(w28!)).map((r) => r.refund_fee)).toEqual([2800])
      // The file run again settles its own row: looked up (absent), then sent once under its number.
      const again = await world.bulk(csv, [], {env})
      expect(again.code, again.stderr).toBe(0)
      expect((await world.refundsOf(w28!)).map((r) => r.refund_fee).sort((x, y) => x - y)).toEqual([300, 2800])
    } finally {
      await proxy.close()
    }
  })

  describe('on a gateway of two merchants', () => {
    let world: GwWorld
    beforeAll(async () => {
      // Two merchants of one gateway (one gateway key signs for both): the first is the profile's.
      world = await startWorld({merchants: [{appid: 'mch40001'}, {appid: 'mch40002'}]})
    })
    afterAll(() => world.close())

    it('of another merchant, about the same order and refund numbers, is a failed verification (one gateway key signs for all)', async () => {
      const other = world.sandbox.info.merchants[1]!.appid
      const wire = world.sandbox.wire(other)
      const shared = `PRV-MCH-${process.pid}`
      // The same order number, paid to each merchant.
      const [mine] = await world.paidOrders(1, 10_000, shared)
      await world.paidOrders(1, 10_000, shared, 'wechat', other)
      const theirs = await refundAtGateway(wire, mine!, 'PRV-MCH-R1', 1000)
      expect(theirs.data.result).toBe('SUCCESS')
      const proxy = await startReplayingProxy(world.sandbox.info.base_url)
      try {
        proxy.replay('order_refund', JSON.stringify(theirs.envelope))
        const env = world.environmentProfile({GW_BASE_URL: proxy.baseUrl})
        const run = await world.run(
          ['refund', 'create', mine!, '--amount', '10', '--mch-refund-no', 'PRV-MCH-R1', '--json'],
          {env},
        )
        expect(run.code, run.stdout).toBe(4)
        expect(run.json<{explanation: string}>().explanation).toContain(`is about appid "${other}"`)
        const ledgers = await world.sandbox.controls.orders(mine!)
        const own = ledgers.find((o) => o.appid === world.sandbox.info.merchants[0]!.appid)!
        expect(own.refunds).toEqual([])
      } finally {
        await proxy.close()
      }
    })
  })
})

describe('a single refund interrupted while in flight', () => {
  for (const [received, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`by ${received}: says it was sent with its outcome unknown, writes its --json document, releases its lock, exits ${code}`, async () => {
      const [order] = await world.paidOrders(1, 10_000, `PRV-INT-${received}`)
      const refund = ['refund', 'create', order!, '--amount', '7.00', '--json']
      // Stopped once the sandbox has the refund, before it answers.
      const result = await world.during(refund, {operation: 'order_refund', count: 1}, (child) => child.kill(received))
      expect(result.code, result.stderr).toBe(code)
      expect(result.json()).toMatchObject({status: 'unknown', interrupted: received})
      expect(result.json<{explanation: string}>().explanation).toContain('Run the same command again to settle it')
      expect(readdirSync(world.configDir).filter((name) => name.includes('.refund-'))).toEqual([])
      // Once the gateway has made the refund it was holding, the run again finds it by its lookup.
      await waitFor(async () => (await world.refundsOf(order!)).length > 0)
      const settled = await world.run(refund)
      expect(settled.code, settled.stderr).toBe(0)
      const {mch_refund_no} = result.json<{mch_refund_no: string}>()
      expect(settled.json()).toMatchObject({status: 'refunded', mch_refund_no, completed_earlier: true})
      expect(settled.json()).not.toHaveProperty('sent_again')
      expect((await world.refundsOf(order!)).map((r) => r.refund_fee)).toEqual([700])
    })
  }
})

describe('a repeated refund without a terminal', () => {
  it('names the refund that was made, at a time in the one form, and its command shows that refund', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ADV-SAME')
    const first = await world.run(['refund', 'create', order!, '--amount', '5.00', '--json'])
    expect(first.code, first.stderr).toBe(0)
    const made = first.json<{mch_refund_no: string}>().mch_refund_no
    const again = await world.run(['refund', 'create', order!, '--amount', '5.00'])
    expect(again.code).toBe(2)
    const look = suggested(again.stderr, 'look at the refund made first: ')
    expect(look).toBe(`gw refund query ${order} --mch-refund-no ${made}`)
    expect(again.stderr).toMatch(new RegExp(`refund ${made} of 5\\.00 THB was made at ${TIME.source}\\.`))
    expect(again.stderr).not.toMatch(/\d\.\d{3}Z/)
    const looked = await world.asPrinted(look)
    expect(looked.code, looked.stderr).toBe(0)
    expect(looked.stdout).toContain(made)
    expect((await world.ledger(order!))!.refunds).toHaveLength(1)
  })

  it('names the profile when the command was given one, so the advice runs against the same account', async () => {
    expect((await world.run(world.profileAdd('shop'))).code).toBe(0)
    // The default profile now points nowhere: advice without --profile would ask the wrong gateway.
    const nowhere = [...world.profileAdd('nowhere', '--default')]
    nowhere[nowhere.indexOf('--base-url') + 1] = 'http://127.0.0.1:9/Gateway'
    expect((await world.run(nowhere)).code).toBe(0)
    try {
      const [order] = await world.paidOrders(1, 10_000, 'ADV-PROFILE')
      const first = await world.run(['refund', 'create', order!, '--amount', '1.00', '-p', 'shop', '--json'])
      const made = first.json<{mch_refund_no: string}>().mch_refund_no
      const again = await world.run(['refund', 'create', order!, '--amount', '1.00', '-p', 'shop'])
      const look = suggested(again.stderr, 'look at the refund made first: ')
      expect(look).toBe(`gw refund query ${order} --mch-refund-no ${made} --profile shop`)
      const looked = await world.asPrinted(look)
      expect(looked.code, looked.stderr).toBe(0)
      expect(looked.stdout).toContain(made)
    } finally {
      await world.run(['profile', 'use', 'sandbox'])
    }
  })
})

describe('a refund still processing', () => {
  it('says how to check it later, and that check shows it, its state a word, what processing means said once', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ADV-SLOW')
    const made = await world.underFaults('refund-processing=1', () =>
      world.run(['refund', 'create', order!, '--amount', '2.00']),
    )
    expect(made.code, made.stderr).toBe(5)
    const check = suggested(made.stderr, 'Check it later: ')
    expect(check).toMatch(new RegExp(`^gw refund query ${order} --mch-refund-no RF\\w+$`))
    const checked = await world.asPrinted(check)
    expect(checked.stdout).toMatch(/\tPROCESSING: processing\t/)
    expect(checked.stdout).toContain(
      'PROCESSING: the channel answers later: about 20 minutes for a balance payment, 3 working days for a card',
    )
    for (const line of checked.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(140)
  })
})

describe("a gateway's or a channel's order number given where the merchant's goes", () => {
  it('refund create names the flag it goes with, the right one, and the command it gives finds the order', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ADV-CHNO')
    const queried = await world.run(['order', 'query', order!, '--json'])
    const {gw_order_no, channel_order_no} = queried.json<{record: {gw_order_no: string; channel_order_no: string}}>()
      .record
    const {env} = world.machine()
    for (const [number, field, flag] of [
      [channel_order_no, "channel's", '--channel-order-no'],
      [gw_order_no, "gateway's", '--gw-order-no'],
    ] as const) {
      const pasted = await world.run(['refund', 'create', number, '--amount', '1.00'], {env})
      expect(pasted.code).toBe(2)
      expect(pasted.stderr).toContain(`${number} is the ${field} order number of order ${order} (wechat)`)
      const hinted = await world.asPrinted(suggested(pasted.stderr, 'in place of the order, as in '), {env})
      expect(hinted.code, hinted.stderr).toBe(0)
      expect(hinted.stdout).toMatch(new RegExp(`order: +${order}`))
      expect(suggested(pasted.stderr, 'in place of the order, as in ')).toContain(`${flag} ${number}`)
    }
    expect((await world.ledger(order!))!.refunds).toEqual([])
  })
})

describe('a flag mistyped for --from-csv', () => {
  it('--from-file is pointed to --from-csv, which --file also names; nothing sent', async () => {
    const before = await world.requests()
    const guessed = await world.run(['refund', 'create', '--from-file', 'refunds.xlsx'])
    expect(guessed.code).toBe(2)
    expect(guessed.stderr).toContain('Nonexistent flag: --from-file')
    expect(guessed.stderr).toContain('Did you mean --from-csv?')
    expect(await world.requests()).toEqual(before)
    const csv = world.file('file-alias.csv', 'mch_order_no,refund_amount\nINV-1001,1.00\nINV-1001,x\n')
    const named = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    const alias = await world.run(['refund', 'create', '--file', csv, '--dry-run'])
    expect(named.stderr).toContain('line 3')
    expect([alias.code, alias.stdout, alias.stderr]).toEqual([named.code, named.stdout, named.stderr])
  })
})

describe('gw refund create ORDER --amount, read as in files (a world of its own)', () => {
  let world: GwWorld
  beforeAll(async () => {
    world = await startWorld({spawned: false})
  })
  afterAll(() => world.close())

  describe('gw refund create ORDER --amount', () => {
    it('takes ฿5.00, 50 baht and Thai digits as refund list does; an amount of another currency is refused, nothing sent', async () => {
      await world.createOrder('RC-AMOUNT', 'wechat', '100.00')
      await world.pay('RC-AMOUNT')
      for (const typed of ['฿5.00', '50 baht', '๓.๐๐']) {
        const refunded = await world.run(['refund', 'create', 'RC-AMOUNT', '--amount', typed])
        expect(refunded.code, refunded.stderr).toBe(0)
      }
      expect((await world.ledger('RC-AMOUNT'))!.refunds.map((r) => r.refund_fee)).toEqual([500, 5000, 300])
      const listed = await world.run(['refund', 'list', '--amount', '฿5.00', '--json'])
      expect(listed.json<{refunds: unknown[]}>().refunds).toHaveLength(1)

      const other = await world.run(['refund', 'create', 'RC-AMOUNT', '--amount', 'RM 5.00'])
      expect(other.code).toBe(2)
      expect(other.stderr).toContain('MYR')
      expect((await world.ledger('RC-AMOUNT'))!.refunds).toHaveLength(3)
    })
  })
})
