import {describe, expect, it} from 'vitest'

import {GwError} from '../../../src/lib/errors.js'
import {openTable} from '../../../src/lib/files/table.js'
import {
  type MerchantView,
  RECONCILE_FIELDS,
  classifyFailure,
  compare,
  readMerchantRow,
} from '../../../src/lib/reconcile/classify.js'
import type {FoundOrder} from '../../../src/lib/orders/finding.js'
import {StatusWords} from '../../../src/lib/orders/status-words.js'
import {tempFile} from '../../helpers/shared.js'

async function rowOf(header: string, line: string) {
  const table = await openTable(tempFile('orders.csv', `${header}\n${line}\n`), {
    fields: RECONCILE_FIELDS,
  })
  for await (const row of table.rows) return row
  throw new Error('no row')
}

const found = (record: Partial<FoundOrder['record']>): FoundOrder => ({
  record: {result: 'SUCCESS', mch_order_no: 'A', total_fee: 10_000, fee_type: 'THB', ...record},
  channel: 'wechat',
  channel_source: 'given',
})
const view = ({status, ...extra}: Partial<Omit<MerchantView, 'status'>> & {status?: string} = {}): MerchantView => ({
  ref: {mch_order_no: 'A'},
  ...extra,
  ...(status ? {status: {text: status, meaning: new StatusWords().meaningOf(status)!}} : {}),
})

describe("reading the merchant's row", () => {
  it('takes the first order number, the channel, amounts, currency and status', async () => {
    const row = await rowOf('mch_order_no,channel,amount,fee_type,status', 'A,WeChat,100.00,thb,paid')
    expect(readMerchantRow(row, undefined)).toEqual({
      ref: {mch_order_no: 'A'},
      channel: 'wechat',
      amount: '100.00',
      feeType: 'THB',
      status: {text: 'paid', meaning: expect.objectContaining({word: 'paid'})},
      totalFee: undefined,
      numbers: {mch_order_no: 'A'},
      mchRefundNo: undefined,
    })
  })

  it('says why a row is unusable', async () => {
    expect(readMerchantRow(await rowOf('mch_order_no,amount', ',1'), undefined)).toBe('no order number')
    expect(readMerchantRow(await rowOf('mch_order_no,amount', `${'X'.repeat(33)},1`), undefined)).toBe(
      'mch_order_no is longer than 32 characters',
    )
    expect(readMerchantRow(await rowOf('mch_order_no,amount', 'A,1e3'), undefined)).toMatch(
      /^amount: "1e3" is not an amount; write digits/,
    )
    expect(readMerchantRow(await rowOf('mch_order_no,fee_type', 'A,USD'), undefined)).toMatch(/^fee_type "USD" is not/)
    expect(readMerchantRow(await rowOf('mch_order_no,status', 'A,maybe'), undefined)).toMatch(
      /^status "maybe" is not one of/,
    )
  })
})

const gateway = (minor: number) => ({minor, from: 'gateway'}) as const

describe('comparing with the gateway', () => {
  it('matches when every given fact agrees', () => {
    expect(compare(view({amount: '100', feeType: 'THB', status: 'paid'}), found({}))).toMatchObject({
      classification: 'match',
      detail: '',
    })
  })

  it('names every difference and classes the row by the weightiest', () => {
    const verdict = compare(view({amount: '99.99', feeType: 'MYR', status: 'unpaid'}), found({}))
    expect(verdict.classification).toBe('currency_mismatch')
    expect(verdict.detail).toBe(
      'currency: merchant MYR, gateway THB; amount: merchant 99.99 MYR, gateway 100.00 THB; status: merchant unpaid, gateway SUCCESS (paid at the gateway: a missed notification?)',
    )
  })

  it('a partly refunded order is paid (with a note) or refunded_partly; a fully refunded one is neither', () => {
    const refunded = found({result: 'REFUND'})
    expect(compare(view({status: 'paid'}), refunded, gateway(2500))).toMatchObject({
      classification: 'match',
      detail: 'partly refunded at the gateway: 25.00 THB of 100.00 THB',
      refunded_amount: '25.00',
    })
    expect(compare(view({status: 'refunded_partly'}), refunded, gateway(2500)).classification).toBe('match')
    expect(compare(view({status: 'refunded'}), refunded, gateway(10_000))).toMatchObject({
      classification: 'match',
      detail: '',
    })
    expect(compare(view({status: 'paid'}), refunded, gateway(10_000))).toMatchObject({
      classification: 'status_mismatch',
      detail: 'status: merchant paid, gateway REFUND (refunded in full, 100.00 THB)',
    })
    expect(compare(view({status: 'refunded_partly'}), refunded, gateway(10_000)).classification).toBe('status_mismatch')
    expect(compare(view({status: 'paid'}), refunded, undefined)).toMatchObject({
      classification: 'status_mismatch',
      detail: expect.stringContaining('partly or fully refunded is not known'),
    })
    expect(compare(view({status: 'refunded_partly'}), found({}), undefined).classification).toBe('status_mismatch')
  })

  it('knows the statuses POS systems write: a cancelled or void sale agrees with an order never paid, closed, or refunded in full', () => {
    for (const word of ['Cancelled', 'canceled', 'VOID', 'Voided', 'ยกเลิก'])
      for (const result of ['CLOSED', 'NOTPAY', 'PAYERROR'])
        expect(compare(view({status: word}), found({result})).classification).toBe('match')
    const refunded = found({result: 'REFUND'})
    expect(compare(view({status: 'Void'}), refunded, gateway(10_000)).classification).toBe('match')
    expect(compare(view({status: 'Void'}), refunded, gateway(2500))).toMatchObject({
      classification: 'status_mismatch',
      detail: 'status: merchant Void, gateway REFUND (refunded in part, 25.00 THB of 100.00 THB)',
    })
    expect(compare(view({status: 'Cancelled'}), found({}))).toMatchObject({
      classification: 'status_mismatch',
      detail: 'status: merchant Cancelled, gateway SUCCESS (paid at the gateway and not refunded)',
    })
    expect(compare(view({status: 'Partially refunded'}), refunded, gateway(2500)).classification).toBe('match')
    expect(compare(view({status: 'คืนเงินบางส่วน'}), refunded, gateway(2500)).classification).toBe('match')
    expect(compare(view({status: 'Refunded'}), refunded, gateway(10_000)).classification).toBe('match')
    expect(compare(view({status: 'ชำระแล้ว'}), found({})).classification).toBe('match')
  })

  it("--status-map says what the file's own words mean; a word it does not know is said with the flag", async () => {
    const statuses = new StatusWords(['Settled=paid', 'Storniert = cancelled', 'Waiting=NOTPAY'])
    expect(statuses.meaningOf('SETTLED')).toMatchObject({word: 'paid'})
    expect(statuses.meaningOf('storniert')).toMatchObject({word: 'cancelled'})
    expect(statuses.meaningOf('waiting')).toEqual({state: 'NOTPAY'})
    expect(readMerchantRow(await rowOf('mch_order_no,status', 'A,Offen'), undefined, statuses)).toBe(
      'status "Offen" is not one of paid, unpaid, refunded, refunded_partly, closed, cancelled (or Cancelled, Void, Partially refunded and their Thai forms) or a gateway state; say what it means with --status-map Offen=paid (or another of those words)',
    )
    expect(() => new StatusWords(['Settled'])).toThrow('--status-map "Settled": write it as YOURS=MEANING')
    expect(() => new StatusWords(['Settled=done'])).toThrow(/"done" is not one of paid, unpaid, .* or a gateway state/)
  })

  it("an alipay order's refunds from this machine's history are said to be so; none made here never advises a refund number", () => {
    const alipay = {...found({result: 'REFUND'}), channel: 'alipay'}
    const note = " (from this machine's history; the gateway has no refund query for alipay)"
    expect(compare(view({status: 'paid'}), alipay, {minor: 2500, from: 'history'})).toMatchObject({
      classification: 'match',
      detail: `partly refunded at the gateway: 25.00 THB of 100.00 THB${note}`,
    })
    const none = compare(view({status: 'paid'}), alipay, {minor: 0, from: 'history'})
    expect(none.classification).toBe('status_mismatch')
    expect(none.detail).toContain('the gateway has no refund query for alipay and this machine made no refund of it')
    expect(none.detail).not.toContain('mch_refund_no')
  })

  it('gives the time paid and amounts as decimals beside minor units', () => {
    const verdict = compare(view(), found({time_end: '2026-11-20T14:03:05+07:00'}))
    expect(verdict).toMatchObject({
      time_paid: '2026-11-20T14:03:05+07:00',
      gateway_total_fee: 10_000,
      gateway_amount: '100.00',
    })
  })

  it('a missing order and a failed query are told apart', () => {
    const missing = new GwError('refused', 'No channel knows order A', {details: {err_code: 'GW_INVALID_ORDER_NO'}})
    expect(classifyFailure(view({totalFee: 100, feeType: 'THB'}), missing)).toMatchObject({
      classification: 'missing_at_gateway',
      merchant_total_fee: 100,
      currency: 'THB',
    })
    const down = new GwError('transport', 'nothing is listening', {advice: 'Check the base URL.'})
    expect(classifyFailure(view(), down)).toMatchObject({
      classification: 'query_failed',
      detail: 'nothing is listening Check the base URL.',
    })
  })
})
