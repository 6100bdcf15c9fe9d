/**
 * Every money decision of refunds/decisions.ts and evidence.ts, as tables: each answer the gateway can give to a
 * refund sent, on a channel with a refund query and without one; each record of the number a lookup
 * can find; what a refusal, a held number and the last lookup make of the refund; what this
 * machine's history may prove; and what settles a refund an earlier run left unknown.
 */
import {describe, expect, it} from 'vitest'

import type {Refusal} from '../../../src/lib/gateway/answers.js'
import {
  type HeldOrder,
  type Sending,
  type SentAnswer,
  afterAnswer,
  afterLookup,
  heldResult,
  howSettled,
  lookupOf,
  notMadeResult,
  notMadeWhy,
  refusedResult,
  settledResult,
} from '../../../src/lib/refunds/decisions.js'
import {
  IDENTICAL_WINDOW_MS,
  earlierStep,
  identicalRefund,
  isSeenRefunded,
  knownResult,
  numberReused,
} from '../../../src/lib/refunds/evidence.js'
import type {Lookup, PlannedRefund, RefundResult} from '../../../src/lib/refunds/refund.js'
import type {RefundEntry} from '../../../src/lib/store/records.js'

const refused = (code: string): SentAnswer => ({status: 'refused', code})
const uncertain = (reason: string, code?: string): SentAnswer => ({status: 'uncertain', reason, code})
const first: Sending = {canQuery: true, round: 1, numberGiven: false}

describe('after an answer', () => {
  it.each<[string, SentAnswer, Sending, ReturnType<typeof afterAnswer>]>([
    // A refusal that is not about the number: nothing was made.
    ['a refusal', refused('GW_INVALID_FEE'), first, {next: 'refused'}],
    ['a refusal, no refund query', refused('GW_INVALID_FEE'), {...first, canQuery: false}, {next: 'refused'}],
    // With a refund query, everything unclear is looked up; a duplicate on the first sending existed before.
    [
      'a duplicate, first sending',
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      first,
      {next: 'look_up', duplicate: true, unverified: false, existed: true},
    ],
    [
      'a duplicate, a later sending',
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      {...first, round: 2},
      {next: 'look_up', duplicate: true, unverified: false, existed: false},
    ],
    [
      'no answer',
      uncertain('no_answer'),
      first,
      {next: 'look_up', duplicate: false, unverified: false, existed: false},
    ],
    [
      'a bad signature',
      uncertain('bad_signature'),
      first,
      {next: 'look_up', duplicate: false, unverified: true, existed: false},
    ],
    [
      'about another request',
      uncertain('not_about_request'),
      first,
      {next: 'look_up', duplicate: false, unverified: true, existed: false},
    ],
    // Without one: never trusted, never said made on the gateway's word.
    ['a bad signature, no refund query', uncertain('bad_signature'), {...first, canQuery: false}, {next: 'unverified'}],
    [
      'a delayed refund, no refund query',
      uncertain('ambiguous_code', 'TRADE_STATE_ERROR'),
      {...first, canQuery: false},
      {next: 'processing'},
    ],
    [
      'a number given, taken, no refund query',
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      {canQuery: false, round: 1, numberGiven: true},
      {next: 'number_taken'},
    ],
    [
      "gw's own number, taken, no refund query",
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      {...first, canQuery: false},
      {next: 'held', existed: true},
    ],
    [
      'taken on a later sending, no refund query',
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      {canQuery: false, round: 2, numberGiven: true},
      {next: 'held', existed: false},
    ],
    [
      'a duplicate on retry, no refund query',
      uncertain('duplicate_on_retry'),
      {...first, canQuery: false, round: 2},
      {next: 'held', existed: false},
    ],
    ['no answer, no refund query', uncertain('no_answer'), {...first, canQuery: false}, {next: 'send_again'}],
  ])('%s', (_, answer, sending, next) => {
    expect(afterAnswer(answer, sending)).toEqual(next)
  })
})

describe('after a lookup of the number', () => {
  const clear = {duplicate: false, unverified: false}
  it.each<[string, Lookup, {duplicate: boolean; unverified: boolean}, ReturnType<typeof afterLookup>]>([
    ['shown succeeded', {state: 'SUCCESS'}, clear, {next: 'settled', state: 'SUCCESS'}],
    ['shown processing', {state: 'PROCESSING'}, clear, {next: 'settled', state: 'PROCESSING'}],
    ['shown failed', {state: 'FAIL'}, clear, {next: 'settled', state: 'FAIL'}],
    // Shown by the record, an unverified answer is settled: the record is verified.
    [
      'shown succeeded after a bad signature',
      {state: 'SUCCESS'},
      {...clear, unverified: true},
      {next: 'settled', state: 'SUCCESS'},
    ],
    ['with another amount', {state: 'other_amount', refund_fee: 5}, clear, {next: 'other_amount'}],
    ['absent after no answer', {state: 'absent'}, clear, {next: 'send_again'}],
    ['absent after a duplicate', {state: 'absent'}, {...clear, duplicate: true}, {next: 'other_order'}],
    ['absent after a bad signature', {state: 'absent'}, {...clear, unverified: true}, {next: 'unverified'}],
    ['unreadable', {state: 'unknown', why: 'x'}, clear, {next: 'unknown'}],
    [
      'unreadable after a bad signature',
      {state: 'unknown', why: 'x'},
      {...clear, unverified: true},
      {next: 'unverified'},
    ],
  ])('%s', (_, found, answered, next) => {
    expect(afterLookup(found, answered)).toEqual(next)
  })
})

/** A refund of 10.00 THB on a wechat order (a refund query) of 100.00 THB; `alipay` the same without one. */
const wechat: PlannedRefund = {
  ref: {mch_order_no: 'A'},
  mch_order_no: 'A',
  channel: 'wechat',
  total_fee: 10_000,
  fee_type: 'THB',
  refund_fee: 1000,
  mch_refund_no: 'RF1',
}
const alipay: PlannedRefund = {...wechat, channel: 'alipay'}
const entry = (facts: Partial<RefundEntry> = {}): RefundEntry => ({
  type: 'refund',
  appid: 'mch1',
  mch_order_no: 'A',
  mch_refund_no: 'RF1',
  refund_fee: 1000,
  fee_type: 'THB',
  status: 'refunded',
  gw_refund_no: 'G1',
  at: '2026-11-20T07:00:00.000Z',
  ...facts,
})

describe("a refund query's entry for a number", () => {
  it.each<[string, Parameters<typeof lookupOf>[0], Lookup]>([
    ['none: the order has no refund of it', undefined, {state: 'absent'}],
    [
      'that amount, succeeded',
      {mch_refund_no: 'RF1', mch_refund_fee: 1000, refund_state: 'SUCCESS', gw_refund_no: 'G1'},
      {state: 'SUCCESS', gw_refund_no: 'G1', refund_time: undefined, refund_fee: 1000},
    ],
    [
      'another amount: not this refund',
      {mch_refund_no: 'RF1', mch_refund_fee: 500, refund_state: 'SUCCESS', gw_refund_no: 'G1'},
      {state: 'other_amount', gw_refund_no: 'G1', refund_fee: 500},
    ],
    [
      'no amount shown: proves nothing',
      {mch_refund_no: 'RF1', refund_state: 'SUCCESS'},
      {state: 'unknown', why: 'the refund query does not show its amount'},
    ],
    [
      'a state gw does not know',
      {mch_refund_no: 'RF1', mch_refund_fee: 1000, refund_state: 'CHANGE'},
      {state: 'unknown', why: 'the refund is in state CHANGE'},
    ],
  ])('%s', (_, found, lookup) => {
    expect(lookupOf(found as never, 1000)).toEqual(lookup)
  })
})

describe('how the next run settles a refund left unknown', () => {
  it.each([
    ['a refund query: looked up', wechat, 'gw looks refund RF1 up first'],
    ['none: sent again under its number', alipay, 'gw sends refund number RF1 again, which the gateway takes once'],
  ])('%s', (_, planned, said) => expect(howSettled(planned)).toBe(said))
})

describe('the last lookup of a sent refund', () => {
  it.each<[string, Extract<Lookup, {state: 'SUCCESS' | 'PROCESSING' | 'FAIL'}>, boolean, Partial<RefundResult>]>([
    ['succeeded: refunded', {state: 'SUCCESS', gw_refund_no: 'G1'}, false, {status: 'refunded', gw_refund_no: 'G1'}],
    ['succeeded, held before: made earlier', {state: 'SUCCESS'}, true, {status: 'refunded', already_existed: true}],
    ['processing', {state: 'PROCESSING'}, false, {status: 'processing', err_code: 'TRADE_STATE_ERROR'}],
    ['failed at the channel', {state: 'FAIL'}, false, {status: 'failed', err_code: 'REFUND_FAILED'}],
  ])('%s', (_, found, existed, result) => {
    expect(settledResult(wechat, found, existed)).toMatchObject({...result, resolved_by: 'refund_query'})
  })

  it.each<[string, 'other_amount' | 'other_order', Lookup, string]>([
    [
      'held for another amount',
      'other_amount',
      {state: 'other_amount', refund_fee: 500},
      'refund RF1 exists at the gateway with another amount (5.00 THB)',
    ],
    ["another order's number", 'other_order', {state: 'absent'}, 'refund number RF1 belongs to another order'],
  ])('not made under its number: %s', (_, next, found, why) => {
    expect(notMadeWhy(wechat, {next}, found)).toBe(why)
    expect(notMadeResult(wechat, 'X', why)).toMatchObject({
      status: 'failed',
      err_code: 'X',
      resolved_by: 'refund_query',
    })
  })
})

describe('a refusal of a sent refund', () => {
  const refusal: Refusal = {status: 'refused', code: 'GW_X', message: 'no', explanation: 'Refused.', attempts: 1}
  it.each<[string, PlannedRefund, Lookup | undefined, Partial<RefundResult>]>([
    [
      'no refund query: failed, its check on the platform said',
      alipay,
      undefined,
      {status: 'failed', resolved_by: 'answer'},
    ],
    ['the number absent: failed', wechat, {state: 'absent'}, {status: 'failed', err_code: 'GW_X'}],
    ['failed at the channel: failed', wechat, {state: 'FAIL'}, {status: 'failed'}],
    ['held for another amount: failed', wechat, {state: 'other_amount'}, {status: 'failed'}],
    // A signed refusal of another request: the record of this refund's number says it was made.
    [
      'shown succeeded: refunded',
      wechat,
      {state: 'SUCCESS', gw_refund_no: 'G1'},
      {status: 'refunded', resolved_by: 'refund_query'},
    ],
    ['shown processing: processing', wechat, {state: 'PROCESSING'}, {status: 'processing'}],
    [
      'the lookup unreadable: unknown',
      wechat,
      {state: 'unknown', why: 'x'},
      {status: 'unknown', resolved_by: 'refund_query'},
    ],
  ])('%s', (_, planned, found, result) => {
    const decided = refusedResult(planned, refusal, found)
    expect(decided).toMatchObject(result)
    if (!found) expect(decided.explanation).toContain('check refund RF1 on the merchant platform')
  })
})

describe('a number the gateway holds, on a channel without a refund query', () => {
  it.each<[string, HeldOrder, RefundEntry | undefined, Partial<RefundResult>, string?]>([
    [
      'the order in REFUND, this machine saw this refund refunded: refunded, from the history',
      {state: 'REFUND'},
      entry(),
      {status: 'refunded', resolved_by: 'history', gw_refund_no: 'G1'},
    ],
    [
      'the order in REFUND, nothing seen: not confirmable (another refund may be why)',
      {state: 'REFUND'},
      undefined,
      {status: 'not_confirmable'},
      'the order shows a refund succeeded, this one or another',
    ],
    [
      'the order still paid: not confirmable, and its state said',
      {state: 'SUCCESS'},
      entry(),
      {status: 'not_confirmable'},
      'the order is SUCCESS: no refund of it shows as succeeded yet',
    ],
    ['stopped before the order was asked', {stopped: true}, undefined, {status: 'not_confirmable'}, 'was not queried'],
    [
      'the order not answered',
      {error: 'timeout'},
      undefined,
      {status: 'not_confirmable'},
      'could not be queried (timeout)',
    ],
  ])('%s', (_, order, seen, result, said) => {
    const decided = heldResult(alipay, true, order, seen)
    expect(decided).toMatchObject(result)
    if (said) expect(decided.explanation).toContain(said)
  })
})

describe("what this machine's history proves", () => {
  it.each<[string, RefundEntry | undefined, string, number, boolean]>([
    ['a number never sent: free', undefined, 'A', 1000, false],
    ['sent for this order and amount: this refund', entry(), 'A', 1000, false],
    ['sent for another amount: never sent again', entry(), 'A', 2000, true],
    ['sent for another order: never sent again', entry(), 'B', 1000, true],
  ])('a refund number %s', (_, first, order, fee, reused) => {
    expect(numberReused(first, order, fee) !== undefined).toBe(reused)
  })

  it.each<[string, RefundEntry | undefined, boolean]>([
    ['refunded, this order and amount', entry(), true],
    ['recorded by an earlier gw (no status: made)', entry({status: undefined}), true],
    ['another amount', entry({refund_fee: 2000}), false],
    ['not confirmable', entry({status: 'not_confirmable'}), false],
    ['no record', undefined, false],
  ])('seen refunded: %s', (_, record, seen) => {
    expect(isSeenRefunded(record, wechat)).toBe(seen)
  })

  const now = Date.parse('2026-11-21T07:00:00.000Z')
  const since = now - IDENTICAL_WINDOW_MS
  it.each<
    [
      string,
      RefundEntry[],
      {mch_refund_no: string; mch_refund_fee: number; refund_state: string; refund_time?: string}[],
      string | undefined,
    ]
  >([
    ['made here yesterday: identical', [entry()], [], 'RF1'],
    ['made here a month ago: not recent', [entry({at: '2026-10-01T00:00:00.000Z'})], [], undefined],
    [
      'failed here on a channel with a refund query: never made',
      [entry({status: 'failed', channel: 'wechat'})],
      [],
      undefined,
    ],
    ['failed here on alipay: may have been made', [entry({status: 'failed', channel: 'alipay'})], [], 'RF1'],
    [
      'made elsewhere, as the gateway lists it',
      [],
      [{mch_refund_no: 'RF9', mch_refund_fee: 1000, refund_state: 'SUCCESS'}],
      'RF9',
    ],
    ['failed elsewhere', [], [{mch_refund_no: 'RF9', mch_refund_fee: 1000, refund_state: 'FAIL'}], undefined],
    ['another amount elsewhere', [], [{mch_refund_no: 'RF9', mch_refund_fee: 500, refund_state: 'SUCCESS'}], undefined],
  ])('an identical refund: %s', (_, local, gateway, made) => {
    expect(identicalRefund(wechat, {local, gateway: gateway as never, since})?.mch_refund_no).toBe(made)
  })

  it.each<[string, RefundEntry, PlannedRefund, string, Lookup | undefined, Partial<RefundResult> | undefined]>([
    [
      'a refund query shows it succeeded: said again, nothing sent',
      entry(),
      wechat,
      'REFUND',
      {state: 'SUCCESS', gw_refund_no: 'G1'},
      {status: 'refunded', resolved_by: 'refund_query'},
    ],
    ['a refund query shows it absent: planned as asked', entry(), wechat, 'REFUND', {state: 'absent'}, undefined],
    [
      'no refund query, the order in REFUND: refunded, from the history',
      entry(),
      alipay,
      'REFUND',
      undefined,
      {status: 'refunded', resolved_by: 'history'},
    ],
    [
      'no refund query, the order paid: the record proves nothing',
      entry(),
      alipay,
      'SUCCESS',
      undefined,
      {status: 'not_confirmable'},
    ],
    [
      'no refund query, not confirmable before: still not',
      entry({status: 'not_confirmable'}),
      alipay,
      'REFUND',
      undefined,
      {status: 'not_confirmable'},
    ],
  ])('the refund asked for, settled before: %s', (_, record, planned, state, looked, result) => {
    const known = knownResult(record, planned, {state}, looked)
    if (result === undefined) expect(known).toBeUndefined()
    else expect(known).toMatchObject({...result, already_existed: true})
  })
})

describe('a refund an earlier run left unknown, before a new refund of its order', () => {
  it.each<[string, boolean, Lookup | undefined, ReturnType<typeof earlierStep>]>([
    ['no refund query, the one asked for: sent again under its number', true, undefined, {next: 'send_again'}],
    ['no refund query, another: stops the command, nothing sent', false, undefined, {next: 'cannot_look_up'}],
    [
      'not settled by its lookup: stops the command',
      false,
      {state: 'unknown', why: 'x'},
      {next: 'still_unknown', why: 'x'},
    ],
    ['absent, the one asked for: sent now', true, {state: 'absent'}, {next: 'send_again'}],
    ['absent, another: said never made', false, {state: 'absent'}, {next: 'record', status: 'absent', made: false}],
    [
      'shown refunded, the one asked for: made, nothing sent',
      true,
      {state: 'SUCCESS'},
      {next: 'record', status: 'refunded', made: true},
    ],
    ['shown processing, another', false, {state: 'PROCESSING'}, {next: 'record', status: 'processing', made: false}],
    ['held for another amount: failed', true, {state: 'other_amount'}, {next: 'record', status: 'failed', made: false}],
  ])('%s', (_, asked, looked, step) => {
    expect(earlierStep(asked, looked)).toEqual(step)
  })
})
