// Money moves exactly once, on every path: each case of the issue, reproduced against the sandbox.
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../helpers/terminal.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

const refundCount = async (orders: string[]) => (await Promise.all(orders.map(world.refundsOf))).flat().length

describe('a single refund', () => {
  it('whose outcome was lost is settled before anything else, never sent again under a new number', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-S')
    const refund = ['refund', 'create', order!, '--amount', '30.00']
    await world.faults('drop-after-commit=1@order_refund,http-500=1@refund_query')
    try {
      const first = await world.run(refund)
      expect(first.code).toBe(5)
      const again = await world.run(refund)
      expect(again.code, again.stderr).toBe(5)
      expect(again.stderr).toMatch(
        /Refund RF\w+ of 30\.00 THB on order ONCE-S-1 was sent earlier and its outcome is still not known/,
      )
      expect(again.stderr).toContain('Nothing new was sent.')
      expect(await world.refundsOf(order!)).toHaveLength(1)
    } finally {
      await world.faults('')
    }
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
    90_000,
  )

  it.skipIf(!HAS_TMUX)(
    'asks "again?" with the earlier refund\'s file name made visible, never run by the terminal',
    async () => {
      const [order] = await world.paidOrders(1, 10_000, 'ONCE-ESC')
      const csv = join(world.configDir, 'evil\u001b]2;PWNED\u0007.csv')
      writeFileSync(csv, `mch_order_no,refund_fee\n${order},500\n`)
      expect((await world.run(['refund', 'create', '--from-csv', csv, '--yes'])).code).toBe(0)
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
    await world.faults('drop-after-commit=1@order_refund')
    let first
    try {
      first = await world.run(refund)
    } finally {
      await world.faults('')
    }
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
    await world.faults('latency=400-400ms')
    let runs
    try {
      runs = await Promise.all([world.run(refund), world.run(refund), world.run(refund)])
    } finally {
      await world.faults('')
    }
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
      await world.faults('latency=1500-1500ms')
      const {child, result} = world.spawn(refund, {env})
      // Killed once the refund has reached the gateway, which commits it after its latency.
      while ((await sent()) === before) await sleep(20)
      child.kill('SIGKILL')
      const killed = await result
      expect(killed.signal).toBe('SIGKILL')
      expect(killed.stderr).toContain(
        'line 1 is not a record of an order or refund (cut short, edited, or longer than 64 KiB)',
      )
      await world.faults('')
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
      await world.faults('')
      removeDir(dir)
    }
  })

  it('imports an earlier history holding lines that are not records (null, wrong types) once, and says so once', async () => {
    const dir = tempDir('gw-odd-history-')
    const env = world.environmentProfile({GW_CONFIG_DIR: dir})
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-ODD')
    try {
      const appid = env.GW_APPID
      const odd = [
        'null',
        '[]',
        `{"type":"order","appid":"${appid}","mch_order_no":{"x":1},"channel":"wechat","total_fee":"ten","fee_type":"THB","at":"then"}`,
        `{"type":"refund","appid":"${appid}","mch_order_no":"${order}","mch_refund_no":"RFX","refund_fee":"NaN","at":"2026-01-01T00:00:00Z"}`,
        `{"type":"order","appid":"${appid}","mch_order_no":"${order}","channel":"wechat","total_fee":10000,"fee_type":"THB","at":"2026-01-01T00:00:00Z"}`,
      ]
      writeFileSync(join(dir, 'history.jsonl'), `${odd.join('\n')}\n`)
      const made = await world.run(['refund', 'create', order!, '--amount', '1.00'], {env})
      expect(made.code, made.stderr).toBe(0)
      expect(made.stderr).toContain('lines 1, 2, 3, 4 are not a record of an order or refund')
      for (const args of [
        ['order', 'list'],
        ['refund', 'list'],
        ['order', 'query', order!],
        ['refund', 'query', order!],
      ]) {
        const result = await world.run(args, {env})
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
        expect(result.stderr).not.toContain('not a record')
        expect(result.stdout).not.toMatch(/NaN|undefined|\[object Object\]/)
      }
      expect((await world.run(['refund', 'list'], {env})).stdout).toContain('1.00 THB')
      // The imported order's channel is known from the history.
      expect((await world.run(['order', 'query', order!], {env})).stdout).toContain('(from local history)')
    } finally {
      removeDir(dir)
    }
  })
})

describe('bulk refunds', () => {
  it('on alipay settle lost answers by sending the same numbers again: exactly once, sent but not confirmable', async () => {
    const orders = await world.paidOrders(3, 10_000, 'ONCE-BALI', 'alipay')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},500`).join('\n')}\n`)
    await world.faults('drop-after-commit=1@order_refund')
    let first
    try {
      first = await world.bulk(csv)
    } finally {
      await world.faults('')
    }
    expect(first.code).toBe(5)
    expect(world.reportOf(csv).map((r) => r.status)).toEqual(['unknown', 'unknown', 'unknown'])
    expect(readFileSync(csv.replace(/\.csv$/, '.report.csv'), 'utf8')).not.toContain('gw refund query')
    const rerun = await world.bulk(csv)
    // Not 5, "run again later": nothing a rerun does settles these; the merchant platform does.
    expect(rerun.code, rerun.stderr).toBe(6)
    expect(world.reportOf(csv).map((r) => [r.status, r.settled_by])).toEqual(
      Array(3).fill(['not_confirmable', 'resend']),
    )
    // A third run sends nothing: the channel cannot tell more. It names each refund to confirm, by its number.
    const before = (await world.requests()).order_refund ?? 0
    const third = await world.bulk(csv)
    expect(third.code, third.stderr).toBe(6)
    expect((await world.requests()).order_refund ?? 0).toBe(before)
    expect(third.stdout).toContain(
      '3 rows sent, not confirmable: the gateway holds these refund numbers but the channel has no refund query to show their amount or state; confirm these on the merchant platform; running again will not change them:',
    )
    for (const [i, row] of world.reportOf(csv).entries())
      expect(third.stdout).toContain(`line ${i + 2}: ${row.mch_refund_no} (5.00 THB) of order ${orders[i]}`)
    expect(third.stderr).toContain(
      'confirm them on the merchant platform by their refund numbers; running again will not change them',
    )
    expect(third.stderr).not.toContain('run the same command again later')
    for (const order of orders)
      expect(await world.refundsOf(order)).toEqual([expect.objectContaining({refund_fee: 500, state: 'SUCCESS'})])
  })

  it('refuses promptpay rows in the dry run and the run, exit 2, nothing sent', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-BPP', 'promptpay')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toMatch(/line 2: Order ONCE-BPP-1 is on channel promptpay; promptpay orders cannot be refunded/)
    expect((await world.bulk(csv)).code).toBe(2)
    expect(await world.refundsOf(order!)).toEqual([])
  })

  it('give the same refund written another way the same number: mch_order_no or gw_order_no, minor units or a decimal', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-WAYS')
    const gwOrderNo = (await world.ledger(order!))! as unknown as {gw_order_no: string}
    expect((await world.bulk(world.csv(`mch_order_no,refund_fee\n${order},100\n`))).code).toBe(0)
    const other = world.csv(`gw_order_no,refund_amount\n${gwOrderNo.gw_order_no},1.00\n`)
    const again = await world.bulk(other)
    expect(again.code, again.stderr).toBe(0)
    expect(world.reportOf(other)[0]!.status).toBe('already_refunded')
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('say when and as which refund a later file was already refunded; --batch-id makes an intentional second round', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-LATER')
    const content = `mch_order_no,refund_fee\n${order},250\n`
    const firstFile = world.csv(content)
    expect((await world.bulk(firstFile)).code).toBe(0)
    const later = world.csv(content)
    const dry = await world.run(['refund', 'create', '--from-csv', later, '--dry-run'])
    expect(dry.stdout).toMatch(/1 row already refunded, not sent again \(use --batch-id/)
    expect(dry.stdout).toMatch(
      /line 2: RF\w+ \(2\.50 THB\) was refunded at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d as 910\d+ \(by refunds-\d+\.csv\)/,
    )
    const result = await world.bulk(later)
    expect(result.code).toBe(0)
    expect(world.reportOf(later)[0]).toMatchObject({
      status: 'already_refunded',
      refund_time: expect.stringMatching(/^\d{4}-/),
      gw_refund_no: expect.stringMatching(/^910/),
    })
    expect(await world.refundsOf(order!)).toHaveLength(1)
    const second = await world.bulk(world.csv(content), ['--batch-id', 'second-round'])
    expect(second.code, second.stderr).toBe(0)
    expect(await world.refundsOf(order!)).toHaveLength(2)
  })

  it('refuse rows repeating the same order and amount, even in the dry run, unless --allow-repeats', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-REP')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},200\n${order},200\n`)
    const dry = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toContain(
      'line 3: repeats the refund of line 2 (the same order, 2.00 THB); add --allow-repeats if both are meant',
    )
    expect((await world.bulk(csv)).code).toBe(2)
    expect(await world.refundsOf(order!)).toEqual([])
    expect((await world.bulk(csv, ['--allow-repeats'])).code).toBe(0)
    expect(await world.refundsOf(order!)).toHaveLength(2)
  })

  it('take a lock: a second run of the same batch is refused naming the holder; one run sends each row once', async () => {
    const orders = await world.paidOrders(30, 10_000, 'ONCE-LOCK')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},100`).join('\n')}\n`)
    const lock = `${csv}.journal.jsonl.lock`
    const slow = world.spawn(['refund', 'create', '--from-csv', csv, '--yes', '--rate', '10'])
    // Its note, written once it holds the lock: what the refusal names it by.
    while (!existsSync(`${lock}.holder`)) await new Promise((r) => setTimeout(r, 20))
    const second = await world.bulk(csv)
    expect(second.code).toBe(2)
    expect(second.stderr).toMatch(new RegExp(`This batch is being run by process ${slow.child.pid} on `))
    expect((await slow.result).code).toBe(0)
    expect(existsSync(lock)).toBe(false)
    expect(await refundCount(orders)).toBe(30)
    const headers = readFileSync(`${csv}.journal.jsonl`, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"header"'))
    expect(headers).toHaveLength(1)
  })

  it('a lock file left or planted (naming a pid, even one that runs) blocks nothing: what it says is a note, said', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-STALE')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    // As an earlier gw wrote its lock: pid 1 runs on every machine (its init), so a pid proves nothing.
    writeFileSync(
      `${csv}.journal.jsonl.lock`,
      JSON.stringify({pid: 1, host: hostname(), started_at: '2026-01-01T00:00:00.000Z'}),
    )
    const result = await world.bulk(csv)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(
      `the run before, process 1 on ${hostname()} (since 2026-01-01T00:00:00.000Z), ended without letting go of the lock; the system let go for it`,
    )
    expect(await world.refundsOf(order!)).toHaveLength(1)
    expect(existsSync(`${csv}.journal.jsonl.lock`)).toBe(false)
  })

  it('check the report and journal paths before sending: not the input, in a folder that exists', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-OUT')
    const content = `mch_order_no,refund_fee\n${order},100\n`
    const csv = world.csv(content)
    const folder = join(world.configDir, 'a-folder.csv')
    mkdirSync(folder, {recursive: true})
    for (const [args, message] of [
      [
        ['--out', '/nonexistent-gw-dir/report.csv'],
        /--out \/nonexistent-gw-dir\/report\.csv: the folder \/nonexistent-gw-dir does not exist/,
      ],
      [['--out', csv], /--out .* is the input file/],
      [['--journal', csv], /--journal .* is the input file/],
      [['--out', folder], /--out .* is a folder/],
      [['--out', '/dev/null'], /gw writes \.xlsx workbooks and CSV files\./],
    ] as const) {
      const result = await world.bulk(csv, [...args])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toMatch(message)
    }
    expect(readFileSync(csv, 'utf8')).toBe(content)
    expect(await world.refundsOf(order!)).toEqual([])
  })

  it('never write through a symlink planted at the report path', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-LINK')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    const victim = join(world.configDir, 'victim.txt')
    writeFileSync(victim, 'victim')
    symlinkSync(victim, csv.replace(/\.csv$/, '.report.csv'))
    expect((await world.bulk(csv)).code).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('victim')
    expect(lstatSync(csv.replace(/\.csv$/, '.report.csv')).isSymbolicLink()).toBe(false)
    expect(world.reportOf(csv)[0]!.status).toBe('refunded')
  })
})

describe('the journal', () => {
  const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
  const header = (csv: string) =>
    `${JSON.stringify({type: 'header', version: 1, csv_file: csv.split('/').pop(), csv_sha256: sha(csv), appid: world.sandbox.info.merchants[0]!.appid, created_at: 'then'})}\n`

  it('with a last line cut short by a crash: the line is cut off, the next records stay readable, each row refunded once', async () => {
    const orders = await world.paidOrders(2, 10_000, 'ONCE-TORN')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},100`).join('\n')}\n`)
    const plan = (await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])).json<{
      rows: {mch_refund_no: string}[]
    }>()
    const journal = `${csv}.journal.jsonl`
    const intent = {
      type: 'intent',
      line: 2,
      mch_refund_no: plan.rows[0]!.mch_refund_no,
      mch_order_no: orders[0],
      refund_fee: 100,
      fee_type: 'THB',
      at: 'then',
    }
    writeFileSync(journal, `${header(csv)}${JSON.stringify(intent)}\n{"type":"outcome","line":2,"mch_ref`)
    const result = await world.bulk(csv)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain("the journal's last line was cut short by a crash")
    for (const line of readFileSync(journal, 'utf8').trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
    for (const order of orders) expect(await world.refundsOf(order)).toHaveLength(1)
  })

  it('with an outcome but no intent, in a journal of the name earlier versions gave: resumed, not trusted, the row is looked up and refunded', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-FAKE')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    const fake = {
      type: 'outcome',
      line: 2,
      mch_refund_no: 'RFFAKE',
      status: 'refunded',
      gw_refund_no: 'FAKE',
      at: 'then',
    }
    writeFileSync(csv.replace(/\.csv$/, '.journal.jsonl'), `${header(csv)}${JSON.stringify(fake)}\n`)
    const result = await world.bulk(csv)
    expect(result.code, result.stderr).toBe(0)
    expect(world.reportOf(csv)[0]).toMatchObject({status: 'refunded', gw_refund_no: expect.stringMatching(/^910/)})
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('with times edited into words ("then"): resumed, the rows kept in the history at the time they are recorded, exit 0', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'ONCE-THEN')
    const csv = world.csv(`mch_order_no,refund_fee\n${order},100\n`)
    const first = await world.bulk(csv)
    expect(first.code, first.stderr).toBe(0)
    const journal = `${csv}.journal.jsonl`
    writeFileSync(journal, readFileSync(journal, 'utf8').replace(/"at":"[^"]+"/g, '"at":"then"'))
    rmSync(join(world.configDir, 'history.db'), {force: true})
    const again = await world.bulk(csv)
    expect(again.code, again.stderr).toBe(0)
    expect(world.reportOf(csv)[0]).toMatchObject({status: 'refunded_earlier'})
    const listed = await world.run(['refund', 'list', '--json'])
    expect(listed.json<{refunds: {mch_order_no: string}[]}>().refunds.map((r) => r.mch_order_no)).toContain(order)
    expect(await world.refundsOf(order!)).toHaveLength(1)
  })

  it('resumed: rows settled before sending keep their amount in the report', async () => {
    const orders = await world.paidOrders(2, 10_000, 'ONCE-AMT')
    const csv = world.csv(`mch_order_no,refund_amount\n${orders.map((o) => `${o},1.25`).join('\n')}\n`)
    await world.faults('drop-after-commit=1@order_refund,http-500=1@refund_query')
    try {
      expect((await world.bulk(csv)).code).toBe(5)
    } finally {
      await world.faults('')
    }
    const resumed = await world.bulk(csv)
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toMatch(/the uncertain rows, asked of the gateway: 2 refunded/)
    expect(world.reportOf(csv).map((r) => [r.status, r.refund_fee])).toEqual([
      ['refunded_earlier', '125'],
      ['refunded_earlier', '125'],
    ])
  })
})

describe('a full disk', () => {
  /** A 48 KiB filesystem where the machine allows mounting one; else writes fail through an injected hook. */
  function smallDisk(): {dir: string; env: Record<string, string>; grow(): void; close(): void} {
    const dir = tempDir('gw-full-disk-')
    try {
      // GW_TEST_NO_MOUNT=1 tries the fallback on a machine that could mount.
      if (process.env.GW_TEST_NO_MOUNT) throw new Error('not mounting')
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48k,mode=0700', 'tmpfs', dir], {stdio: 'ignore'})
      return {
        dir,
        env: {},
        grow: () => execFileSync('mount', ['-o', 'remount,size=4m', dir]),
        close: () => {
          execFileSync('umount', [dir])
          removeDir(dir)
        },
      }
    } catch {
      const hook = pathToFileURL(join(REPO_ROOT, 'test', 'helpers', 'full-disk.mjs')).href
      const disk: ReturnType<typeof smallDisk> = {
        dir,
        env: {NODE_OPTIONS: `--import=${hook}`, GW_TEST_DISK_BYTES: String(48 * 1024)},
        grow: () => void (disk.env = {}),
        close: () => removeDir(dir),
      }
      return disk
    }
  }

  it('stops sending before the next refund, ends with the summary and exit 5 naming the journal, and a rerun settles exactly once', async () => {
    const orders = await world.paidOrders(200, 10_000, 'ONCE-DISK')
    const csv = world.csv(`mch_order_no,refund_fee\n${orders.map((o) => `${o},100`).join('\n')}\n`)
    const disk = smallDisk()
    try {
      mkdirSync(join(disk.dir, 'run'), {recursive: true})
      const paths = [
        '--journal',
        join(disk.dir, 'run', 'refunds.journal.jsonl'),
        '--out',
        join(disk.dir, 'run', 'report.csv'),
      ]
      const full = await world.run(['refund', 'create', '--from-csv', csv, '--yes', ...paths, '--concurrency', '4'], {
        env: disk.env,
      })
      expect(full.code, full.stderr).toBe(5)
      expect(full.stderr).toMatch(/The journal .*refunds\.journal\.jsonl could not be written \(ENOSPC/)
      expect(full.stderr).not.toMatch(/^\s+at /m)
      expect(full.stdout).toMatch(/status +│ currency/)
      // Every refund the gateway made has its intent, whole, in the journal.
      const intents = new Set(
        readFileSync(join(disk.dir, 'run', 'refunds.journal.jsonl'), 'utf8')
          .split('\n')
          .flatMap((line) => {
            try {
              const record = JSON.parse(line) as {type: string; mch_refund_no: string}
              return record.type === 'intent' ? [record.mch_refund_no] : []
            } catch {
              return []
            }
          }),
      )
      const made = (await Promise.all(orders.map(world.refundsOf))).flat()
      expect(made.length).toBeGreaterThan(0)
      expect(made.length).toBeLessThan(200)
      for (const refund of made) expect(intents.has(refund.mch_refund_no), refund.mch_refund_no).toBe(true)
      disk.grow()
      const rerun = await world.run(['refund', 'create', '--from-csv', csv, '--yes', ...paths], {env: disk.env})
      expect(rerun.code, rerun.stderr).toBe(0)
      expect(await refundCount(orders)).toBe(200)
      for (const order of orders) expect(await world.refundsOf(order)).toHaveLength(1)
    } finally {
      disk.close()
    }
  }, 120_000)
})

describe('the profile store', () => {
  it('keeps every profile when eight are added at once, and no key file without its profile', async () => {
    const config = tempDir('gw-profiles-')
    try {
      const adds = Array.from({length: 8}, (_, i) =>
        world.run(world.profileAdd(`p${i}`), {env: {GW_CONFIG_DIR: config}}),
      )
      for (const result of await Promise.all(adds)) expect(result.code, result.stderr).toBe(0)
      const listed = (await world.run(['profile', 'list', '--json'], {env: {GW_CONFIG_DIR: config}})).json<{
        profiles: {name: string}[]
      }>()
      expect(listed.profiles.map((p) => p.name).sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'])
      expect(readdirSync(join(config, 'keys'))).toHaveLength(16)
      const replaced = await world.run(world.profileAdd('p0'), {env: {GW_CONFIG_DIR: config}})
      expect(replaced.code).toBe(0)
      expect(readdirSync(join(config, 'keys'))).toHaveLength(16)
    } finally {
      removeDir(config)
    }
  })
})
