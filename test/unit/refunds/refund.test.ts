/**
 * The refund's one state and its projections (refunds/refund.ts), as tables: a refund query's word
 * as a state; a send's end and a lookup as a bulk row's outcome, by who made the refund; a row as
 * the history, the journal, a report and the run's exit code say it; a single refund's exit.
 */
import {describe, expect, it} from 'vitest'

import {isoTime} from '../../../src/lib/gateway/protocol/index.js'
import {
  HISTORY_OF_ROW,
  type Lookup,
  type MadeBy,
  type OneRefund,
  type PlannedRefund,
  type RefundResult,
  type RefusedRefund,
  type RowOutcome,
  STATE_OF_LOOKUP,
  isFinal,
  outcomeOfRefund,
  rowOfLookup,
  rowOfResult,
  runOutcome,
  viewStatusOf,
} from '../../../src/lib/refunds/refund.js'

const planned = {mch_refund_no: 'RF1', refund_fee: 100, fee_type: 'THB', channel: 'wechat'} as PlannedRefund
const sent = (status: RefundResult['status'], facts: Partial<RefundResult> = {}): RefundResult => ({
  status,
  planned,
  resolved_by: 'answer',
  gw_refund_no: 'G1',
  ...facts,
})
const at = '2026-11-20T07:00:00.000Z'

describe("a refund query's word, as the refund's state", () => {
  it.each<[Lookup['state'], string]>([
    ['SUCCESS', 'refunded'],
    ['PROCESSING', 'processing'],
    ['FAIL', 'failed'],
    // That number is another refund's, with another amount: this one was not made under it.
    ['other_amount', 'failed'],
    ['absent', 'absent'],
    ['unknown', 'unknown'],
  ])('%s is %s', (word, state) => expect(STATE_OF_LOOKUP[word]).toBe(state))
})

describe("a send's end, as a bulk row", () => {
  it.each<[string, RefundResult, Exclude<MadeBy, 'this_run'>, RowOutcome['status']]>([
    ['refunded by this send', sent('refunded'), 'elsewhere', 'refunded'],
    [
      'held before, an earlier run of this file sent it',
      sent('refunded', {already_existed: true}),
      'earlier_run',
      'refunded_earlier',
    ],
    [
      "held before, made elsewhere: never claimed as this file's",
      sent('refunded', {already_existed: true}),
      'elsewhere',
      'already_refunded',
    ],
    ['processing', sent('processing'), 'elsewhere', 'processing'],
    ['failed', sent('failed'), 'elsewhere', 'failed'],
    ['not confirmable', sent('not_confirmable'), 'elsewhere', 'not_confirmable'],
    ['unknown', sent('unknown', {unverified: true}), 'elsewhere', 'unknown'],
  ])('%s', (_, result, before, status) => {
    expect(rowOfResult(result, before, at).status).toBe(status)
  })

  it('an earlier run of this file is said with the time it sent the refund', () => {
    expect(rowOfResult(sent('refunded', {already_existed: true}), 'earlier_run', at)).toMatchObject({
      earlier_run_at: isoTime(new Date(at)),
    })
  })
})

describe('a lookup, as a bulk row', () => {
  it.each<[string, Lookup, Exclude<MadeBy, 'this_run'>, RowOutcome['status'] | undefined]>([
    ['succeeded, sent by an earlier run of this file', {state: 'SUCCESS'}, 'earlier_run', 'refunded_earlier'],
    ['succeeded, made elsewhere', {state: 'SUCCESS'}, 'elsewhere', 'already_refunded'],
    ['processing', {state: 'PROCESSING'}, 'elsewhere', 'processing'],
    ['failed at the channel', {state: 'FAIL'}, 'elsewhere', 'failed'],
    ['held for another amount', {state: 'other_amount', refund_fee: 5}, 'elsewhere', 'failed'],
    // Absent: it never arrived; still to send. Unknown: the row stays as it was.
    ['absent', {state: 'absent'}, 'earlier_run', 'pending'],
    ['unreadable', {state: 'unknown', why: 'x'}, 'earlier_run', undefined],
  ])('%s', (_, lookup, before, status) => {
    expect(rowOfLookup(lookup, before, {mch_refund_no: 'RF1', sentAt: at})?.status).toBe(status)
  })
})

describe('a row, as the history, the journal and a report say it', () => {
  it.each<[RowOutcome['status'], string | undefined, boolean]>([
    ['refunded', undefined, true],
    ['refunded_earlier', 'refunded', true],
    ['already_refunded', undefined, true],
    ['processing', 'processing', false],
    ['not_confirmable', 'not_confirmable', true],
    ['failed', undefined, true],
    ['unknown', undefined, false],
    ['pending', undefined, false],
    ['held', undefined, false],
  ])('%s: the history records %s of an earlier run of its file; final in the journal: %s', (status, history, final) => {
    expect(HISTORY_OF_ROW[status]).toBe(history)
    expect(isFinal({status})).toBe(final)
  })

  it('a report says would_refund of a dry run row still to send, else its status', () => {
    expect(viewStatusOf({status: 'pending'}, true, true)).toBe('would_refund')
    expect(viewStatusOf({status: 'pending'}, true, false)).toBe('pending')
    expect(viewStatusOf({status: 'held', err_msg: 'x'}, false, true)).toBe('held')
  })
})

describe("a bulk run's outcome", () => {
  const ended = {stopped: false}
  it.each<[string, RowOutcome[], string]>([
    ['every row refunded', [{status: 'refunded'}], 'done'],
    ['a row failed', [{status: 'refunded'}, {status: 'failed'}], 'refused'],
    ['money unproven outranks refused rows', [{status: 'failed'}, {status: 'processing'}], 'unknown'],
    ['a row held', [{status: 'held', err_msg: 'x'}], 'unknown'],
    ['an answer that failed verification', [{status: 'unknown', unverified: true}], 'signature'],
    ['rows only a merchant platform can confirm', [{status: 'not_confirmable'}], 'not_confirmable'],
  ])('%s', (_, outcomes, outcome) => expect(runOutcome(outcomes, ended)).toBe(outcome))
})

describe("a single refund's outcome", () => {
  const one = (facts: Partial<OneRefund>): OneRefund => ({...sent('refunded'), ...facts})
  it.each<[string, OneRefund | RefusedRefund, string]>([
    ['refused before sending', {kind: 'not_paid', state: 'NOTPAY'}, 'usage'],
    ['failed as the gateway said', one({status: 'failed'}), 'refused'],
    ['refunded and recorded', one({}), 'done'],
    ['refunded, its record behind', one({not_recorded: {where: 'nowhere', why: 'x'}} as never), 'unknown'],
    ['interrupted in flight', one({status: 'unknown', interrupted: 'SIGINT'}), 'interrupted'],
    ['processing', one({status: 'processing'}), 'unknown'],
    ['not confirmable', one({status: 'not_confirmable'}), 'unknown'],
    ['an answer that failed verification', one({status: 'unknown', unverified: true}), 'signature'],
  ])('%s', (_, result, outcome) => expect(outcomeOfRefund(result)).toBe(outcome))
})
