import {describe, expect, it} from 'vitest'

import {
  ERROR_CATALOGUE,
  checkRequest,
  explainError,
  formatAmount,
  toMinorUnits,
  describeOrderState,
  describeRefundState,
  inGatewayZone,
  orderRecordSchema,
  refundRecordSchema,
} from '../../src/lib/gateway/protocol/index.js'
import {readShared, sharedText} from '../helpers/shared.js'

describe('the error catalogue', () => {
  const section7 = sharedText('seed/gateway-api.errors.md')
  const codes = [...section7.matchAll(/^\| ([A-Z0-9_]+) \| (.+) \|$/gm)]
    .map((m) => m[1]!)
    .filter((c) => c !== 'err_code')

  it('holds every code of section 7 with a meaning and an action', () => {
    expect(codes.length).toBeGreaterThan(60)
    for (const code of codes) {
      expect(ERROR_CATALOGUE[code], code).toBeDefined()
      expect(ERROR_CATALOGUE[code]!.meaning.length).toBeGreaterThan(5)
      expect(ERROR_CATALOGUE[code]!.action.length).toBeGreaterThan(5)
    }
  })

  it('explains a code in words, and an unknown one without failing', () => {
    expect(explainError('GW_INVALID_REFUND_BALANCE', 'x')).toContain('Query the order and refund at most its balance')
    expect(explainError('BRAND_NEW_CODE')).toContain('a code this version of gw does not know')
  })
})

describe('amounts', () => {
  it('converts decimals exactly per currency exponent', () => {
    expect(toMinorUnits('150.50', 'THB')).toBe(15050)
    expect(toMinorUnits('150.5', 'THB')).toBe(15050)
    expect(toMinorUnits('0.01', 'MYR')).toBe(1)
    expect(toMinorUnits('1500', 'JPY')).toBe(1500)
    expect(toMinorUnits('1500.', 'JPY')).toBe(1500)
    expect(toMinorUnits('150.0', 'THB')).toBe(15000)
    expect(toMinorUnits('0.29', 'AED')).toBe(29) // 0.29 * 100 is 28.999999999999996 in floating point
  })

  it('refuses more decimals than the currency has, signs, separators and unknown currencies', () => {
    expect(() => toMinorUnits('150.505', 'THB')).toThrow('THB has 2 decimal places')
    expect(() => toMinorUnits('150.5', 'JPY')).toThrow('JPY has no minor unit')
    // Places as written: zeros beyond the currency's are not dropped (1.500 is not 1.50).
    expect(() => toMinorUnits('1500.00', 'JPY')).toThrow('JPY has no minor unit; "1500.00" must be a whole number')
    expect(() => toMinorUnits('1.500', 'THB')).toThrow('THB has 2 decimal places; "1.500" has more')
    for (const bad of ['-1', '+1', '1,000.00', '1e3', '', ' . ', 'abc'])
      expect(() => toMinorUnits(bad, 'THB')).toThrow()
    expect(() => toMinorUnits('1', 'USD')).toThrow('unknown currency "USD"')
    expect(() => toMinorUnits('99999999999999999', 'THB')).toThrow('too large')
  })

  it('formats minor units with the currency', () => {
    expect(formatAmount(15050, 'THB')).toBe('150.50 THB')
    expect(formatAmount(5, 'MYR')).toBe('0.05 MYR')
    expect(formatAmount(1500, 'JPY')).toBe('1500 JPY')
    expect(formatAmount(48, 'XYZ')).toBe('48 XYZ')
  })
})

describe('request checks', () => {
  const base = {appid: 'mch1', nonce_str: 'n', sign: 's', time_stamp: '20261121093015'}
  it('names each problem of a request', () => {
    const problems = checkRequest('order_refund', {
      ...base,
      channel: 'promptpay',
      total_fee: '1.5',
      fee_type: 'THB',
      refund_fee: '1',
      mch_refund_no: 'x'.repeat(33),
    })
    expect(problems.map((p) => p.kind).sort()).toEqual([
      'channel_not_taken',
      'invalid',
      'order_number_missing',
      'too_long',
    ])
  })
  it('accepts a well-formed query', () => {
    expect(checkRequest('order_query', {...base, channel: 'wechat', gw_order_no: '900'})).toEqual([])
  })
})

describe('tolerant reading of published answers', () => {
  const published = readShared<{responses: {name: string; response: {data: Record<string, unknown>}}[]}>(
    'vectors/published.json',
  )
  it('reads amounts sent as strings, ksher_* names and unknown refund states', () => {
    const sample = published.responses.find((r) => r.name === 'exampleRefund_queryDataResponse')!.response.data
    const record = refundRecordSchema.parse(sample)
    expect(record).toMatchObject({cash_fee: 48, refund_count: 2, refund_fee: 2, gw_order_no: '70020230421121618509855'})
    expect(record.refund_orders[0]).toMatchObject({
      refund_state: 'REFUNDSUCCESS',
      gw_refund_no: '70020230421122235500857',
    })
    expect(describeRefundState('REFUNDSUCCESS')).toBe('refunded')
    expect(describeOrderState('SOMETHING_NEW')).toContain('a state this version of gw does not know')
  })

  it("reads the gateway's local times in its zone as ISO 8601 with the offset, in any form it sends them", () => {
    const sample = published.responses.find((r) => r.name === 'exampleRefund_queryDataResponse')!.response.data
    const record = inGatewayZone(refundRecordSchema.parse(sample), 'Asia/Bangkok')
    for (const refund of record.refund_orders)
      expect(refund.refund_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/)
    expect(record.time_end).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/)
    const paid = (time_end: unknown) =>
      inGatewayZone(orderRecordSchema.parse({result: 'SUCCESS', time_end}), 'Asia/Bangkok').time_end
    expect(Date.parse(paid('2026-11-20 14:03:05')!)).toBe(Date.parse('2026-11-20T14:03:05+07:00'))
    expect(paid('20261120140305')).toBe(paid('2026-11-20 14:03:05'))
    expect(paid('soon')).toBe('soon')
    expect(paid('')).toBeUndefined()
    expect(paid(null)).toBeUndefined()
  })
})
