/** gw reconcile: every row of an export classified against the gateway. */
import {createHash} from 'node:crypto'
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {basename, join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, orderCreate, startWorld} from '../helpers/gw-env.js'

let world: GwWorld

interface Planted {
  line: string
  expected: string
  detail?: RegExp
}

const rows: Planted[] = []

const file = (name: string, content: string) => {
  const path = join(world.configDir, name)
  writeFileSync(path, content)
  return path
}

const output = (path: string) => parse(readFileSync(path), {columns: true, bom: true}) as Record<string, string>[]

beforeAll(async () => {
  world = await startWorld()
  const wire = world.sandbox.wire()
  const pay = (mch: string, fail = false) => world.sandbox.control('POST', '/sandbox/pay', {mch_order_no: mch, fail})
  const create = async (mch: string, fee = 10_000, currency = 'THB') => {
    const answer = await wire.call('native_pay', {
      channel: 'wechat',
      mch_order_no: mch,
      total_fee: fee,
      fee_type: currency,
    })
    if (answer.data.result !== 'SUCCESS') throw new Error(JSON.stringify(answer.data))
  }
  const refund = (mch: string, fee: number, total = 10_000) =>
    wire.call('order_refund', {
      mch_order_no: mch,
      total_fee: total,
      fee_type: 'THB',
      mch_refund_no: `${mch}-R${fee}`,
      refund_fee: fee,
    })
  // 240 orders in every state, each reconciled as it is (a match) or with one planted difference.
  for (let i = 0; i < 240; i++) {
    const mch = `REC-${i}`
    const kind = i % 6
    await create(mch)
    let state = 'unpaid'
    if (kind === 1) {
      await pay(mch)
      state = 'paid'
    } else if (kind === 2) {
      await wire.call('order_close', {channel: 'wechat', mch_order_no: mch})
      state = 'closed'
    } else if (kind === 3) {
      await pay(mch)
      await refund(mch, 2500)
      state = 'refunded'
    } else if (kind === 4) {
      await pay(mch)
      await refund(mch, 10_000)
      state = 'REFUND'
    } else if (kind === 5) {
      await pay(mch, true)
      state = 'unpaid'
    }
    const plant = i % 10
    if (plant === 3)
      rows.push({
        line: `${mch},99.99,THB,${state}`,
        expected: 'amount_mismatch',
        detail: /amount: merchant 99.99 THB, gateway 100.00 THB/,
      })
    else if (plant === 5)
      rows.push({
        line: `${mch},100.00,MYR,${state}`,
        expected: 'currency_mismatch',
        detail: /currency: merchant MYR, gateway THB/,
      })
    else if (plant === 7 && kind === 1)
      rows.push({
        line: `${mch},100,THB,unpaid`,
        expected: 'status_mismatch',
        detail: /merchant unpaid, gateway SUCCESS \(paid at the gateway: a missed notification\?\)/,
      })
    // A refund made elsewhere: without its number, partly or fully refunded cannot be told (finance-files tests the number).
    else if (plant === 7) rows.push({line: `${mch},100,THB,paid`, expected: kind === 1 ? 'match' : 'status_mismatch'})
    else rows.push({line: `${mch},100,THB,${state}`, expected: 'match'})
  }
  rows.push({line: 'REC-MISSING-1,10.00,THB,paid', expected: 'missing_at_gateway', detail: /GW_INVALID_ORDER_NO/})
  rows.push({line: ',10.00,THB,paid', expected: 'invalid_row', detail: /no order number/})
  rows.push({line: 'REC-0,10.0055,THB,paid', expected: 'invalid_row', detail: /THB has 2 decimal places/})
  // A dot before three digits in a column whose other amounts (10.00) show a decimal point: three decimals.
  rows.push({
    line: 'REC-0,1.500,THB,paid',
    expected: 'invalid_row',
    detail: /THB has 2 decimal places; "1.500" has more/,
  })
  rows.push({line: 'REC-0,10,THB,maybe', expected: 'invalid_row', detail: /status "maybe"/})
})

afterAll(() => world.close())

describe('gw reconcile', () => {
  it('classifies every row of a file with planted differences of each class', async () => {
    const csv = file(
      'orders.csv',
      `mch_order_no,amount,fee_type,status\n${rows.map((r) => r.line).join('\n')}\nREC-1,100,THB,paid,an-extra-field\n`,
    )
    const result = await world.run(['reconcile', csv, '--channel', 'wechat', '--concurrency', '8'])
    expect(result.code).toBe(1)
    const lines = output(csv.replace('.csv', '.reconciled.csv'))
    expect(lines).toHaveLength(rows.length + 1)
    for (const [i, planted] of rows.entries()) {
      expect(lines[i]!.classification, `${planted.line} -> ${lines[i]!.detail}`).toBe(planted.expected)
      if (planted.detail) expect(lines[i]!.detail).toMatch(planted.detail)
    }
    const paid = lines.find((l) => l.mch_order_no === 'REC-1')!
    expect(paid).toMatchObject({
      gateway_state: 'SUCCESS',
      gateway_total_fee: '10000',
      gateway_fee_type: 'THB',
      gateway_channel: 'wechat',
    })
    expect(paid.time_paid).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/)
    const expectedCounts = Object.fromEntries(
      ['match', 'amount_mismatch', 'currency_mismatch', 'status_mismatch', 'missing_at_gateway', 'invalid_row'].map(
        (c) => [c, rows.filter((r) => r.expected === c).length],
      ),
    )
    // The last row has a field more than the header: not taken at its word.
    expectedCounts.invalid_row! += 1
    expect(lines.at(-1)).toMatchObject({classification: 'invalid_row', detail: expect.stringContaining('1 more field')})
    // The summary table: rows per class (summed over currencies) are the planted counts.
    const shown: Record<string, number> = {}
    for (const match of result.stdout.matchAll(/^([a-z_]+)\t[A-Z?]+\t(\d+)\t/gm))
      shown[match[1]!] = (shown[match[1]!] ?? 0) + Number(match[2])
    expect(shown).toEqual(expectedCounts)
  })

  it('reports query failures with the code and advice, and exit 0 when everything matches', async () => {
    const clean = file('clean.csv', 'gw_order_no,channel\n')
    const {body} = await world.sandbox.control<{orders: {gw_order_no: string; mch_order_no: string}[]}>(
      'GET',
      '/sandbox/orders?mch_order_no=REC-1',
    )
    writeFileSync(clean, `gw_order_no,channel,total_fee\n${body.orders[0]!.gw_order_no},wechat,10000\n`)
    const ok = await world.run(['reconcile', clean, '--json'])
    expect(ok.code).toBe(0)
    expect(ok.json()).toMatchObject({
      rows: 1,
      mismatches: 0,
      summary: [
        {
          classification: 'match',
          rows: 1,
          paid_fee: 10_000,
          paid_amount: '100.00',
          refunded_fee: 0,
          refunded_amount: '0.00',
          merchant_total_fee: 10_000,
          merchant_total_amount: '100.00',
        },
      ],
    })

    await world.underFaults('bad-signature=1@order_query', async () => {
      const failed = await world.run([
        'reconcile',
        file('failed.csv', 'mch_order_no\nREC-1\n'),
        '--existence-only',
        '--channel',
        'wechat',
        '--json',
      ])
      expect(failed.code).toBe(1)
      expect(failed.json<{results: {classification: string; detail: string}[]}>().results[0]).toMatchObject({
        classification: 'query_failed',
        detail: expect.stringMatching(/signature/),
      })
    })
  })

  it('sums paid, refunded and unpaid money apart, as a settlement is read: text, summary.csv and --json', async () => {
    // 100.00 THB each: unpaid, paid, closed, paid and 25.00 refunded by gw (its history knows the refund's number).
    for (const mch of ['SET-UNPAID', 'SET-PAID', 'SET-CLOSED', 'SET-REFUNDED']) {
      const made = await world.run(orderCreate(mch, 'wechat', '100.00', {qr: true}))
      expect(made.code, made.stderr).toBe(0)
    }
    await world.pay('SET-PAID')
    await world.pay('SET-REFUNDED')
    expect((await world.run(['order', 'close', 'SET-CLOSED', '--yes'])).code).toBe(0)
    expect((await world.run(['refund', 'create', 'SET-REFUNDED', '--amount', '25.00', '--yes'])).code).toBe(0)
    const csv = file(
      'settled.csv',
      'mch_order_no,amount\nSET-UNPAID,100.00\nSET-PAID,100.00\nSET-CLOSED,100.00\nSET-REFUNDED,100.00\n',
    )
    const out = join(world.configDir, 'settled.reconciled.csv')
    const text = await world.run(['reconcile', csv, '--channel', 'wechat', '--with-refunds', '--out', out])
    expect(text.code, text.stderr).toBe(0)
    const header = text.stdout.split('\n').find((line) => line.includes('classification'))!
    // Piped: the summary's head line and one tab-separated line per class and currency.
    expect(header).toMatch(/^classification\tcurrency\trows\tpaid\trefunded\tunpaid\tyour amount/)
    expect(text.stdout).toMatch(/^match\tTHB\t4\t200\.00 THB\t25\.00 THB\t200\.00 THB\t400\.00 THB$/m)
    const summary = parse(readFileSync(out.replace(/\.csv$/, '.summary.csv'), 'utf8'), {
      bom: true,
      relax_column_count: true,
    }) as string[][]
    expect(summary).toContainEqual(['classification', 'currency', 'rows', 'paid', 'refunded', 'unpaid', 'your amount'])
    expect(summary).toContainEqual(['match', 'THB', '4', '200.00', '25.00', '200.00', '400.00'])

    const json = await world.run(['reconcile', csv, '--channel', 'wechat', '--json', '--out', out])
    expect(json.code, json.stderr).toBe(0)
    const {summary: lines, refunds_not_known} = json.json<{summary: unknown[]; refunds_not_known: number}>()
    // Without --with-refunds, the refunded order's refunds are not asked: said, and left out of refunded.
    expect(lines).toEqual([
      {
        classification: 'match',
        currency: 'THB',
        rows: 4,
        paid_fee: 20_000,
        paid_amount: '200.00',
        refunded_fee: 0,
        refunded_amount: '0.00',
        unpaid_fee: 20_000,
        unpaid_amount: '200.00',
        merchant_total_fee: 40_000,
        merchant_total_amount: '400.00',
      },
    ])
    expect(refunds_not_known).toBe(1)
    const again = await world.run(['reconcile', csv, '--channel', 'wechat', '--out', out])
    expect(again.stdout).toContain(
      '1 refunded order left out of refunded: its refunds were not asked (--with-refunds asks the gateway)',
    )
  })

  it('keeps only mismatches with --only-mismatches; --json gives the summary and those rows', async () => {
    const csv = file('some.csv', 'mch_order_no,total_fee\nREC-1,10000\nREC-7,1\nREC-13,10000\n')
    const out = join(world.configDir, 'mismatches.csv')
    const result = await world.run([
      'reconcile',
      csv,
      '--channel',
      'wechat',
      '--only-mismatches',
      '--out',
      out,
      '--json',
    ])
    expect(result.code).toBe(1)
    expect(output(out).map((l) => [l.mch_order_no, l.classification])).toEqual([['REC-7', 'amount_mismatch']])
    const json = result.json<{rows: number; written: number; results: {mch_order_no: string}[]}>()
    expect(json).toMatchObject({rows: 3, written: 1})
    expect(json.results.map((r) => r.mch_order_no)).toEqual(['REC-7'])
  })

  it('--json writes the results as they come: Ctrl-C ends one document with the rows judged so far, stopped', async () => {
    const csv = file(
      'long.csv',
      `mch_order_no,total_fee\n${Array.from({length: 60}, () => 'REC-1,10000').join('\n')}\n`,
    )
    const result = await world.interrupted(['reconcile', csv, '--channel', 'wechat', '--concurrency', '2', '--json'], {
      operation: 'order_query',
      count: 4,
    })
    expect(result.code, result.stderr).toBe(130)
    const json = result.json<{results: {line: number; classification: string}[]; rows: number; stopped: boolean}>()
    expect(json.stopped).toBe(true)
    expect(json.results.length).toBe(json.rows)
    expect(json.results.length).toBeGreaterThan(0)
    expect(json.results.length).toBeLessThan(60)
    expect(json.results.map((r) => r.line)).toEqual(json.results.map((_, i) => i + 2))
    expect(json.results.every((r) => r.classification === 'match')).toBe(true)
  })

  it('--json read by a reader that goes away (| head -c 100): the run goes on to its end, the output whole, exit as judged', async () => {
    const csv = file(
      'piped.csv',
      `mch_order_no,total_fee\n${Array.from({length: 400}, () => 'REC-1,10000').join('\n')}\n`,
    )
    const out = join(world.configDir, 'piped.reconciled.csv')
    const running = world.spawn(['reconcile', csv, '--channel', 'wechat', '--out', out, '--json'])
    // The reader takes the first piece of the document and closes its end: gw's next writes meet EPIPE.
    running.child.stdout!.once('data', () => running.child.stdout!.destroy())
    const result = await running.result
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).not.toMatch(/EPIPE|Error/)
    expect(output(out)).toHaveLength(400)
  })

  it('an output whose folder is removed during the run is said as that, exit 5, not as an unexpected failure', async () => {
    const csv = file(
      'gone.csv',
      `mch_order_no,total_fee\n${Array.from({length: 40}, () => 'REC-1,10000').join('\n')}\n`,
    )
    const folder = join(world.configDir, 'reports-gone')
    mkdirSync(folder)
    const result = await world.during(
      ['reconcile', csv, '--channel', 'wechat', '--concurrency', '2', '--out', join(folder, 'out.csv')],
      {operation: 'order_query', count: 4},
      () => rmSync(folder, {recursive: true}),
    )
    expect(result.code, result.stderr).toBe(5)
    expect(result.stderr).toContain(
      `${join(folder, 'out.summary.csv')} could not be written: its folder is gone (ENOENT).`,
    )
    expect(result.stderr).toContain('run the same command again')
    expect(result.stderr).not.toContain('unexpected failure')
  })

  it('finds the channel of each row by itself when none is given', async () => {
    const csv = file('nochannel.csv', 'mch_order_no,status\nREC-1,paid\n')
    const result = await world.run(['reconcile', csv, '--json'])
    expect(result.json<{results: {gateway_channel: string; classification: string}[]}>().results[0]).toMatchObject({
      gateway_channel: 'wechat',
      classification: 'match',
    })
  })

  it('--with-refunds adds the refunded total of refunded orders', async () => {
    // REC-1 is paid; a refund made through gw is known to its local history.
    expect((await world.run(['refund', 'create', 'REC-1', '--amount', '12.34'])).code).toBe(0)
    const csv = file('refunds.csv', 'mch_order_no,status\nREC-1,refunded\n')
    const result = await world.run(['reconcile', csv, '--channel', 'wechat', '--with-refunds', '--json'])
    expect(result.json<{results: {refunded_total: number; classification: string}[]}>().results[0]).toMatchObject({
      classification: 'match',
      refunded_total: 1234,
    })
    expect(output(csv.replace('.csv', '.reconciled.csv'))[0]!.refunded_total).toBe('1234')
  })

  it('refuses an unusable file with exit 2', async () => {
    const noColumn = await world.run(['reconcile', file('bad.csv', 'order,amount\nX,1\n')])
    expect(noColumn.code).toBe(2)
    expect(noColumn.stderr).toContain('line 1: no order number column')
    const missing = await world.run(['reconcile', join(world.configDir, 'nope.csv')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('does not exist')
  })
})

describe('statuses as POS systems write them, and a Total row', () => {
  it('Cancelled, Void, Refunded, Partially refunded and Thai forms are compared, and --status-map reads your own words', async () => {
    const wire = world.sandbox.wire()
    const [paid, partly, fully, settled] = await world.paidOrders(4, 10_000, 'POS')
    for (const mch of ['POS-CLOSED', 'POS-UNPAID'])
      expect(
        (await wire.call('native_pay', {channel: 'wechat', mch_order_no: mch, total_fee: 10_000, fee_type: 'THB'})).data
          .result,
      ).toBe('SUCCESS')
    await wire.call('order_close', {channel: 'wechat', mch_order_no: 'POS-CLOSED'})
    for (const [order, amount] of [
      [partly, '25.00'],
      [fully, '100.00'],
    ])
      expect((await world.run(['refund', 'create', order!, '--amount', amount!])).code).toBe(0)
    const csv = file(
      'pos.csv',
      [
        'mch_order_no,amount,status',
        `POS-CLOSED,100.00,Cancelled`,
        `POS-UNPAID,100.00,ยกเลิก`,
        `${fully},100.00,Void`,
        `${partly},100.00,Partially refunded`,
        `${fully},100.00,Refunded`,
        `${paid},100.00,VOID`,
        `${settled},100.00,Settled`,
        'Total,700.00,',
      ].join('\n'),
    )
    const unmapped = await world.run(['reconcile', csv, '--channel', 'wechat'])
    expect(unmapped.code).toBe(1)
    expect(output(csv.replace('.csv', '.reconciled.csv')).map((r) => [r.status, r.classification, r.detail])).toEqual([
      ['Cancelled', 'match', ''],
      ['ยกเลิก', 'match', ''],
      ['Void', 'match', ''],
      ['Partially refunded', 'match', 'partly refunded at the gateway: 25.00 THB of 100.00 THB'],
      ['Refunded', 'match', ''],
      ['VOID', 'status_mismatch', 'status: merchant VOID, gateway SUCCESS (paid at the gateway and not refunded)'],
      ['Settled', 'invalid_row', expect.stringContaining('say what it means with --status-map Settled=paid')],
      ['', 'totals', 'it agrees with the rows above it (700.00)'],
    ])
    const mapped = await world.run(['reconcile', csv, '--channel', 'wechat', '--status-map', 'Settled=paid'])
    expect(mapped.code).toBe(1)
    expect(output(csv.replace('.csv', '.reconciled.csv'))[6]).toMatchObject({
      status: 'Settled',
      classification: 'match',
    })
    const wrong = await world.run(['reconcile', csv, '--status-map', 'Settled=done'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--status-map "Settled=done": "done" is not one of paid, unpaid, refunded')
    // An approval meaning is a refund file's: a settlement's status says what became of the payment.
    const approval = await world.run(['reconcile', csv, '--status-map', 'Settled=approved'])
    expect(approval.code).toBe(2)
    expect(approval.stderr).toContain('approval words are for refund files (gw refund create --from-csv)')
    expect(approval.stderr).not.toMatch(/is not one of [^(]*approved/)
  })

  it('a Total row is a totals row without an amount column too, never an invalid_row', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'POS-TOTAL')
    const csv = file('no-amounts.csv', `mch_order_no,status\n${order},paid\nTotal,\n`)
    const result = await world.run(['reconcile', csv, '--channel', 'wechat', '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.json<{results: unknown[]}>().results).toHaveLength(1)
    expect(result.stderr).toContain(
      'line 3: a totals row ("Total"), not acted on; not checked (the file has no amount column)',
    )
    expect(output(csv.replace('.csv', '.reconciled.csv')).map((r) => r.classification)).toEqual(['match', 'totals'])
  })
})

describe('--json as docs/conventions.md defines it', () => {
  it("reconcile's summary names amounts *_fee (minor units) and *_amount (decimal), the gateway's (unpaid here) apart from the file's; the table labels them", async () => {
    await world.createOrder('SUM-1', 'wechat', '100.00')
    await world.createOrder('SUM-2', 'wechat', '50.00')
    const csv = join(world.configDir, 'summary.csv')
    writeFileSync(csv, 'mch_order_no,amount,fee_type\nSUM-1,100.00,THB\nSUM-2,60.00,THB\nSUM-MISSING,7.00,THB\n')
    const json = await world.run(['reconcile', csv, '--channel', 'wechat', '--json'])
    expect(json.code, json.stderr).toBe(1)
    const summary = json.json<{summary: Record<string, unknown>[]}>().summary
    expect(summary).toEqual([
      {
        classification: 'match',
        currency: 'THB',
        rows: 1,
        unpaid_fee: 10_000,
        unpaid_amount: '100.00',
        merchant_total_fee: 10_000,
        merchant_total_amount: '100.00',
      },
      {
        classification: 'amount_mismatch',
        currency: 'THB',
        rows: 1,
        unpaid_fee: 5000,
        unpaid_amount: '50.00',
        merchant_total_fee: 6000,
        merchant_total_amount: '60.00',
      },
      {
        classification: 'missing_at_gateway',
        currency: 'THB',
        rows: 1,
        merchant_total_fee: 700,
        merchant_total_amount: '7.00',
      },
    ])
    // On a terminal, the table drawn.
    const text = await world.run(['reconcile', csv, '--channel', 'wechat', '--out', join(world.configDir, 's.csv')], {
      terminal: 200,
    })
    const header = text.stdout.split('\n').find((line) => line.includes('classification'))!
    expect(header).toMatch(/paid.*refunded.*unpaid.*your amount/)
    const missing = text.stdout.split('\n').find((line) => line.includes('missing_at_gateway'))!
    expect(missing).toMatch(/│ +- +│ +7\.00 THB/)
  })
})

describe('what gw made where the gateway has no refund query', () => {
  it("reconcile --with-refunds matches a partly refunded alipay order from this machine's history, and refund query lists it", async () => {
    const [order] = await world.paidOrders(1, 10_000, 'REP-ALI-REC', 'alipay')
    expect((await world.run(['refund', 'create', order!, '--amount', '25.00'])).code).toBe(0)
    const csv = world.csv(`mch_order_no,amount,fee_type,status\n${order},100.00,THB,paid\n`)
    const result = await world.run(['reconcile', csv, '--with-refunds', '--json'])
    expect(result.code, result.stdout).toBe(0)
    const [row] = result.json<{results: {classification: string; detail: string; refunded_total: number}[]}>().results
    expect(row).toMatchObject({classification: 'match', refunded_total: 2500})
    expect(row!.detail).toContain("from this machine's history; the gateway has no refund query for alipay")
    expect(row!.detail).not.toContain('mch_refund_no column')
    // Its output carries the audit summary, per classification and currency.
    const summary = parse(readFileSync(csv.replace(/\.csv$/, '.reconciled.summary.csv')), {
      bom: true,
      relax_column_count: true,
    }) as string[][]
    expect(summary[1]).toEqual(['input_sha256', createHash('sha256').update(readFileSync(csv)).digest('hex')])
    expect(summary).toContainEqual(['classification', 'currency', 'rows', 'paid', 'refunded', 'unpaid', 'your amount'])
    expect(summary).toContainEqual(['match', 'THB', '1', '100.00', '25.00', '', '100.00'])
    expect(result.json<{audit: {input_file: string}}>().audit.input_file).toBe(basename(csv))
    const query = await world.run(['refund', 'query', order!])
    expect(query.code, query.stderr).toBe(0)
    expect(query.stdout).toContain("from this machine's history; the gateway has no refund query for alipay")
    expect(query.stdout).toContain('25.00 THB')
  })
})
