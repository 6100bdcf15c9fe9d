// Money said only when proven: each reproduction of the issue against the sandbox, whose ledger shows what was refunded.
import {mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {readFileSync} from 'node:fs'
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {startReceiver} from '../helpers/receiver.js'
import {startReplayingProxy} from '../helpers/replaying-proxy.js'
import type {Wire} from '../helpers/sandbox.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

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
    const bulk = await world.run(['refund', 'create', '--from-csv', csv, '--yes'])
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

describe('a refund the gateway holds as PROCESSING on alipay (no refund query)', () => {
  it('is never reported refunded because an earlier refund put the order in REFUND (single and bulk)', async () => {
    const [single, bulkOrder] = await world.paidOrders(2, 10_000, 'PRV-PROC', 'alipay')
    for (const order of [single!, bulkOrder!])
      expect((await world.run(['refund', 'create', order, '--amount', '1.00'])).code).toBe(0)
    await world.faults('refund-processing=1')
    let one, many
    const csv = world.csv(`mch_order_no,refund_amount\n${bulkOrder},2.00\n`)
    try {
      one = await world.run(['refund', 'create', single!, '--amount', '2.00', '--json'])
      many = await world.run(['refund', 'create', '--from-csv', csv, '--yes'])
    } finally {
      await world.faults('')
    }
    expect(one.code, one.stderr).toBe(5)
    expect(one.json()).toMatchObject({status: 'processing', err_code: 'TRADE_STATE_ERROR'})
    expect(one.json<{explanation: string}>().explanation).toContain('merchant platform')
    expect(many.code, many.stderr).toBe(5)
    expect(world.reportOf(csv).map((r) => r.status)).toEqual(['processing'])
    for (const order of [single!, bulkOrder!])
      expect((await world.refundsOf(order)).map((r) => r.state)).toEqual(['SUCCESS', 'PROCESSING'])
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
      const bulk = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
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
      const again = await world.run(['refund', 'create', '--from-csv', csv, '--yes'], {env})
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
      const [mine] = await world.paidOrders(1, 10_000, shared)
      const created = await wire.call('native_pay', {
        channel: 'wechat',
        mch_order_no: mine,
        total_fee: 10_000,
        fee_type: 'THB',
      })
      expect(created.data.result).toBe('SUCCESS')
      expect((await world.sandbox.controls.pay(mine!, {appid: other})).status).toBe(200)
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

  it('a signed refusal about another refund is not taken for this one: the refund is looked up first', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-REFUSAL')
    const refusal = await refundAtGateway(world.sandbox.wire(), order!, 'PRV-REFUSAL-X', 99_999)
    expect(refusal.data.result).toBe('FAIL')
    const proxy = await startReplayingProxy(world.sandbox.info.base_url)
    try {
      // The gateway makes the refund; the proxy answers with the refusal it kept.
      proxy.replay('order_refund', JSON.stringify(refusal.envelope), true)
      const env = world.environmentProfile({GW_BASE_URL: proxy.baseUrl})
      const run = await world.run(['refund', 'create', order!, '--amount', '10', '--json'], {env})
      expect(run.code, run.stdout).toBe(0)
      expect(run.json()).toMatchObject({status: 'refunded', resolved_by: 'refund_query'})
      expect((await world.refundsOf(order!)).map((r) => r.refund_fee)).toEqual([1000])
    } finally {
      await proxy.close()
    }
  })

  it('closing an order: a signed close answer about another order never makes gw say closed', async () => {
    const wire = world.sandbox.wire()
    const made = async (mch: string) =>
      (await wire.call('native_pay', {channel: 'wechat', mch_order_no: mch, total_fee: 500, fee_type: 'THB'})).data
    const other = await made(`PRV-CL-OTHER-${process.pid}`)
    const target = await made(`PRV-CL-TARGET-${process.pid}`)
    const proxy = await startReplayingProxy(world.sandbox.info.base_url)
    try {
      const env = world.environmentProfile({GW_BASE_URL: proxy.baseUrl})
      const first = await world.run(['order', 'close', String(other.mch_order_no), '--channel', 'wechat'], {env})
      expect(first.code, first.stderr).toBe(0)
      proxy.replay('order_close', proxy.kept('order_close')[0]!)
      const close = ['order', 'close', '--gw-order-no', String(target.gw_order_no), '--channel', 'wechat']
      const replayed = await world.run(close, {env})
      expect(replayed.code, replayed.stderr).toBe(5)
      expect(replayed.stderr).toContain('but an order query shows it NOTPAY, not CLOSED')
      expect((await world.ledger(String(target.mch_order_no)))!.state).toBe('NOTPAY')
    } finally {
      await proxy.close()
    }
  })

  it('about another order is refused by a query too: exit 4', async () => {
    const [a, b] = await world.paidOrders(2, 1000, 'PRV-QREPLAY')
    const proxy = await startReplayingProxy(world.sandbox.info.base_url)
    try {
      const env = world.environmentProfile({GW_BASE_URL: proxy.baseUrl})
      expect((await world.run(['order', 'query', a!, '--channel', 'wechat'], {env})).code).toBe(0)
      proxy.replay('order_query', proxy.kept('order_query')[0]!)
      const other = await world.run(['order', 'query', b!, '--channel', 'wechat'], {env})
      expect(other.code).toBe(4)
      expect(other.stderr).toContain('the answer to order_query is about mch_order_no "PRV-QREPLAY-1"')
      expect(other.stdout).toBe('')
    } finally {
      await proxy.close()
    }
  })
})

describe('a notification with text moved between its fields', () => {
  it('still verifies by signature, and is refused by the listener and not acknowledged', async () => {
    const app = await startReceiver(() => ({status: 200, body: '{"result":"SUCCESS","msg":"OK"}'}))
    const mch = `PRV-NTF-${process.pid}`
    const create = ['order', 'create', '--channel', 'wechat', '--amount', '12.34', '--fee-type', 'THB']
    expect((await world.run([...create, '--mch-order-no', mch, '--notify-url', app.url, '--no-qr'])).code).toBe(0)
    await world.pay(mch)
    const deadline = Date.now() + 10_000
    while (!app.received.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
    await app.close()
    const real = JSON.parse(app.received[0]!.body) as {data: Record<string, unknown>; sign: string}
    const {nonce_str: nonce, ...noNonce} = real.data
    const {total_fee: total, ...noTotal} = real.data
    const resplit = [
      {...real, data: {...noNonce, mch_order_no: `${mch}nonce_str=${String(nonce)}`}},
      {...real, data: {...noTotal, time_end: `${String(real.data.time_end)}total_fee=${String(total)}`}},
    ]
    const listener = await world.listen(['--timeout', '30', '--json'])
    try {
      for (const body of [real, ...resplit]) {
        const answer = await request(listener.url, {
          method: 'POST',
          headers: {'content-type': 'text/plain;charset=utf-8'},
          body: JSON.stringify(body),
        })
        const text = await answer.body.text()
        if (body === real) expect(text).toBe('{"result":"SUCCESS","msg":"OK"}')
        else expect(text).not.toContain('"SUCCESS"')
      }
    } finally {
      listener.child.kill('SIGINT')
    }
    const lines = (await listener.result).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as {verdict: string; reason?: string})
    expect(lines.map((l) => l.verdict)).toEqual(['verified', 'REJECTED', 'REJECTED'])
    for (const line of lines.slice(1)) expect(line.reason).toContain('not a payment notification as section 6 requires')
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
      const deadline = Date.now() + 10_000
      while (!(await world.refundsOf(order!)).length && Date.now() < deadline) await sleep(50)
      const settled = await world.run(refund)
      expect(settled.code, settled.stderr).toBe(0)
      const {mch_refund_no} = result.json<{mch_refund_no: string}>()
      expect(settled.json()).toMatchObject({status: 'refunded', mch_refund_no, completed_earlier: true})
      expect(settled.json()).not.toHaveProperty('sent_again')
      expect((await world.refundsOf(order!)).map((r) => r.refund_fee)).toEqual([700])
    })
  }
})

describe('one order, whatever number names it', () => {
  it('rows naming it by merchant, gateway and channel numbers are one order for the plan and its balance', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-3WAYS')
    const record = (await world.run(['order', 'query', order!, '--json'])).json<{
      record: {gw_order_no: string; channel_order_no: string}
    }>().record
    const csv = world.csv(
      'mch_order_no,gw_order_no,channel_order_no,refund_amount\n' +
        `${order},,,60.00\n,${record.gw_order_no},,30.00\n,,${record.channel_order_no},20.00\n`,
    )
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])
    expect(dry.code).toBe(2)
    const plan = dry.json<{orders: number; problems: {line: number; message: string}[]; orders_with_several_rows: []}>()
    expect(plan.orders).toBe(1)
    // Amounts in minor units are named *_fee in --json, as everywhere.
    expect(plan.orders_with_several_rows).toEqual([
      expect.objectContaining({lines: [2, 3, 4], to_send_fee: 11_000, balance_fee: 10_000, currency: 'THB'}),
    ])
    expect(plan.problems.map((p) => p.line)).toEqual([2, 3, 4])
    expect(plan.problems[0]!.message).toContain('add up to 110.00 THB, more than its balance of 100.00 THB')
    expect(await world.refundsOf(order!)).toEqual([])
  })

  it('a row naming the wrong channel for an order that exists on another says so, in bulk refunds and reconcile', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-CHAN', 'alipay')
    const csv = world.csv(`mch_order_no,refund_amount,channel\n${order},1.00,wechat\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toContain('Order PRV-CHAN-1 is not on channel wechat: the gateway knows it on alipay')
    const recon = world.csv(`mch_order_no,amount,channel\n${order},100.00,wechat\n`)
    const reconciled = await world.run(['reconcile', recon, '--json'])
    expect(reconciled.json<{results: {classification: string; detail: string}[]}>().results).toEqual([
      expect.objectContaining({classification: 'invalid_row', detail: expect.stringContaining('knows it on alipay')}),
    ])
    const query = await world.run(['order', 'query', order!, '--channel', 'wechat'])
    expect(query.code).toBe(2)
    expect(query.stderr).toContain('--channel alipay')
  })
})

describe('the smaller ones', () => {
  it('a file name with escape sequences is shown with them made visible, in the plan and in "written to"', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-ESC')
    const csv = join(world.configDir, 'refunds\u001b[31mred.csv')
    writeFileSync(csv, `mch_order_no,refund_amount\n${order},1.00\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    const recon = await world.run(['reconcile', csv.replace('red.csv', 'red.txt'), '--existence-only'])
    for (const output of [dry.stdout, dry.stderr, recon.stdout, recon.stderr]) expect(output).not.toContain('\u001b')
    expect(dry.stdout).toContain('Plan for ')
    expect(dry.stdout).toContain('refunds\\x1B[31mred.csv')
  })

  it('a mistyped command, gw --json and gw help --json each write one JSON document', async () => {
    const typo = await world.run(['order', 'creat', '--json'], {process: true})
    expect(typo.code).toBe(2)
    expect(typo.json()).toEqual({
      error: expect.objectContaining({kind: 'usage', exit_code: 2, advice: 'Did you mean: gw order create --json'}),
    })
    const bare = await world.run(['--json'], {process: true})
    expect(bare.code).toBe(2)
    expect(bare.json()).toMatchObject({error: {kind: 'usage'}})
    const help = await world.run(['help', 'refund', '--json'], {process: true})
    expect(help.code).toBe(0)
    expect(help.json<{commands: {command: string}[]}>().commands.map((c) => c.command)).toEqual([
      'refund create',
      'refund list',
      'refund query',
    ])
  })

  it('a bulk run whose report could not be written does not end 0; the journal holds every refund', async () => {
    const orders = await world.paidOrders(3, 10_000, 'PRV-NOREPORT')
    const dir = join(world.configDir, 'reports-gone')
    mkdirSync(dir)
    const csv = world.csv(`mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    await world.faults('latency=600-600ms@order_refund')
    let result
    try {
      const running = world.spawn([
        'refund',
        'create',
        '--from-csv',
        csv,
        '--yes',
        '--concurrency',
        '1',
        '--out',
        join(dir, 'r.csv'),
      ])
      const deadline = Date.now() + 20_000
      while (!(await world.refundsOf(orders[0]!)).length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
      rmSync(dir, {recursive: true})
      result = await running.result
    } finally {
      await world.faults('')
    }
    expect(result.code, result.stderr).toBe(5)
    expect(result.stderr).toContain('The report could not be written')
    for (const order of orders) expect((await world.refundsOf(order)).map((r) => r.refund_fee)).toEqual([100])
  })

  it('a file changed while the run sends gets no report paired with the plan: exit 5, every refund made once and in the journal', async () => {
    const orders = await world.paidOrders(3, 10_000, 'PRV-CHANGED')
    const csv = world.csv(`mch_order_no,refund_amount,note\n${orders.map((o) => `${o},1.00,as planned`).join('\n')}\n`)
    await world.faults('latency=600-600ms@order_refund')
    let result
    try {
      const running = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '1'])
      const deadline = Date.now() + 20_000
      while (!(await world.refundsOf(orders[0]!)).length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
      // Finance saves the sheet again, another amount on a row, while the refunds go out.
      writeFileSync(csv, `mch_order_no,refund_amount,note\n${orders.map((o) => `${o},9.00,edited`).join('\n')}\n`)
      result = await running.result
    } finally {
      await world.faults('')
    }
    expect(result.code, result.stderr).toBe(5)
    expect(result.stderr).toMatch(
      /The report could not be written \(.*changed while gw was running: .*put the file back as it was planned \(SHA-256 [0-9a-f]{64}\) and run the same command/s,
    )
    expect(
      readdirSync(join(world.configDir)).filter((f) =>
        f.startsWith(
          csv
            .split('/')
            .pop()!
            .replace(/\.csv$/, '.report'),
        ),
      ),
    ).toEqual([])
    for (const order of orders) expect((await world.refundsOf(order)).map((r) => r.refund_fee)).toEqual([100])
    const journal = readFileSync(`${csv}.journal.jsonl`, 'utf8')
    expect(journal.match(/"type":"outcome"/g)).toHaveLength(3)
  })

  it('a bulk run stopped by SIGTERM ends 143, by its own signal', async () => {
    const orders = await world.paidOrders(3, 10_000, 'PRV-BTERM')
    const csv = world.csv(`mch_order_no,refund_amount\n${orders.map((o) => `${o},1.00`).join('\n')}\n`)
    await world.faults('latency=700-700ms@order_refund')
    let result
    try {
      const running = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--concurrency', '1'])
      const deadline = Date.now() + 20_000
      while (!(await world.refundsOf(orders[0]!)).length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
      running.child.kill('SIGTERM')
      result = await running.result
    } finally {
      await world.faults('')
    }
    expect(result.code, result.stderr).toBe(143)
    expect(result.stderr).toContain('Resume with the same command')
  })

  it('the sending progress counts rows not refunded as such, never unknown ones as failed', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'PRV-PROGRESS')
    const csv = world.csv(`mch_order_no,refund_amount\n${order},1.00\n`)
    await world.faults('drop-after-commit=1@order_refund,code-nonzero=1@refund_query')
    let run
    try {
      run = await world.run(['refund', 'create', '--from-csv', csv, '--yes'])
    } finally {
      await world.faults('')
    }
    expect(run.code).toBe(5)
    expect(run.stderr).toMatch(/refunds: 1\/1 done, 1 not refunded/)
    expect(run.stderr).not.toMatch(/\d failed/)
    expect(world.reportOf(csv).map((r) => r.status)).toEqual(['unknown'])
  })

  it('GW_PRIVATE_KEY as PEM text with its line breaks written \\n is read; a corrupt one is said naming the variable', async () => {
    const [order] = await world.paidOrders(1, 1000, 'PRV-ENVKEY')
    const pem = readFileSync(world.sandbox.info.merchants[0]!.private_key_file, 'utf8')
    const oneLine = pem.trim().split('\n').join('\\n')
    const query = await world.run(['order', 'query', order!], {
      env: world.environmentProfile({GW_PRIVATE_KEY: oneLine}),
    })
    expect(query.code, query.stderr).toBe(0)
    const broken = pem.replace(/\n[A-Za-z0-9+/]{20}/, '\n')
    const corrupt = await world.run(['order', 'query', order!], {
      env: world.environmentProfile({GW_PRIVATE_KEY: broken}),
    })
    expect(corrupt.code).toBe(2)
    expect(corrupt.stderr).toContain('GW_PRIVATE_KEY')
    expect(corrupt.stderr).not.toContain(pem.split('\n')[2]!)
  })
})
