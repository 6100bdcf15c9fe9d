import {describe, expect, it} from 'vitest'

import {isoTime} from '../../../src/lib/gateway/protocol/index.js'
import type {OutcomeRecord, RowHistory} from '../../../src/lib/refunds/bulk/journal.js'
import {type RefundRow, isToSend, settleByLookup, stateFromJournal} from '../../../src/lib/refunds/bulk/rows.js'
import {type PlannedRefund, runOutcome} from '../../../src/lib/refunds/refund.js'

const intent = {
  type: 'intent',
  line: 2,
  mch_refund_no: 'RF1',
  mch_order_no: 'A',
  refund_fee: 100,
  fee_type: 'THB',
  at: '2026-11-20T07:00:00.000Z',
} as const
const outcome = (status: OutcomeRecord['status'], mch_refund_no = 'RF1') =>
  ({type: 'outcome', line: 2, mch_refund_no, status, gw_refund_no: 'G1', at: 'later'}) as const
const planned = {mch_refund_no: 'RF1', refund_fee: 100, fee_type: 'THB'} as PlannedRefund
/** Line 2 of the file: order A, 1.00 THB, its refund number derived (the file gives none). */
const row: RefundRow = {
  line: 2,
  mchRefundNo: '',
  order: 'A',
  request: {ref: {mch_order_no: 'A'}, numbers: {mch_order_no: 'A'}, amount: {decimal: '1.00'}, feeType: 'THB'},
}
const fromJournal = (entry: RowHistory | undefined) => stateFromJournal(row, entry)

describe('a row as the journal of earlier runs leaves it', () => {
  it('is pending when the journal says nothing of it', () => {
    expect(fromJournal(undefined)).toEqual({outcome: {status: 'pending'}})
  })

  it('is done when its outcome is final: refunded by that earlier run (said so, with its time), never by this one', () => {
    const entry: RowHistory = {intent, outcome: outcome('refunded'), intentLine: 3}
    expect(fromJournal(entry)).toEqual({
      outcome: {status: 'refunded_earlier', gw_refund_no: 'G1', earlier_run_at: isoTime(new Date(intent.at))},
      sent: {
        mch_refund_no: 'RF1',
        mch_order_no: intent.mch_order_no,
        refund_fee: 100,
        fee_type: 'THB',
        at: intent.at,
        journal_line: 3,
      },
    })
    expect(fromJournal({intent, outcome: outcome('already_refunded')}).outcome.status).toBe('already_refunded')
  })

  it('does not trust an outcome without its intent: the row is asked of the gateway', () => {
    expect(fromJournal({outcome: outcome('refunded')})).toEqual({outcome: {status: 'unknown'}})
  })

  it('an outcome without its intent, found SUCCESS, is already refunded (made elsewhere), never claimed by this file', () => {
    const lost = {...fromJournal({outcome: outcome('already_refunded')}), planned}
    expect(settleByLookup(lost, {state: 'SUCCESS', gw_refund_no: 'G'}).outcome.status).toBe('already_refunded')
  })

  it('is unknown (to be asked of the gateway) when sent without a final outcome, or still processing', () => {
    expect(fromJournal({intent}).outcome.status).toBe('unknown')
    expect(fromJournal({intent, outcome: outcome('processing')}).outcome.status).toBe('unknown')
    expect(fromJournal({intent, outcome: outcome('unknown')}).outcome.status).toBe('unknown')
  })

  it('does not take an outcome recorded under another refund number', () => {
    expect(fromJournal({intent, outcome: outcome('refunded', 'RF-OTHER')}).outcome.status).toBe('unknown')
  })

  it('looks a failure up before saying it again: unknown until then, the failure kept aside', () => {
    const state = fromJournal({intent, outcome: {...outcome('failed'), err_code: 'X'}})
    expect(state.outcome.status).toBe('unknown')
    expect(state.failedBefore).toMatchObject({status: 'failed', err_code: 'X'})
  })

  it("takes an intent that is not the row's refund (another order, amount or number) as edited: never sent on its word", () => {
    const edits = [{mch_order_no: 'B'}, {refund_fee: 400}, {fee_type: 'JPY'}]
    for (const edit of edits) {
      const state = fromJournal({intent: {...intent, ...edit}, intentLine: 7})
      expect(state.sent).toBeUndefined()
      expect(state.edited).toMatch(/^the journal's line 7 records refund "RF1" of .* for line 2, whose .*: edited/)
      expect(isToSend({...state, planned})).toBe(false)
    }
    const given = stateFromJournal({...row, mchRefundNo: 'RF-ROW'}, {intent, intentLine: 7})
    expect(given.edited).toMatch(/whose refund number is "RF-ROW"/)
  })
})

describe("a row settled by the gateway's record of its refund number", () => {
  const sent = {outcome: {status: 'unknown'}, planned, sent: {...planned, mch_order_no: 'O1', at: intent.at}} as const
  it('SUCCESS, PROCESSING and FAIL are final or processing; absent goes back to be sent', () => {
    expect(settleByLookup(sent, {state: 'SUCCESS', gw_refund_no: 'G'}).outcome).toEqual({
      status: 'refunded_earlier',
      gw_refund_no: 'G',
      settled_by: 'refund_query',
      earlier_run_at: isoTime(new Date(intent.at)),
    })
    expect(settleByLookup(sent, {state: 'PROCESSING'}).outcome.status).toBe('processing')
    expect(settleByLookup(sent, {state: 'FAIL'}).outcome).toMatchObject({status: 'failed', err_code: 'REFUND_FAILED'})
    expect(settleByLookup(sent, {state: 'absent'}).outcome.status).toBe('pending')
  })

  it('stays unknown when the gateway cannot tell, and is still to send (the same number, never a new one)', () => {
    const state = settleByLookup(sent, {state: 'unknown', why: 'timeout'})
    expect(state).toBe(sent)
    expect(isToSend(state)).toBe(true)
  })

  it('is to send only when planned, and pending or unknown', () => {
    expect(isToSend({outcome: {status: 'pending'}})).toBe(false)
    expect(isToSend({outcome: {status: 'pending'}, planned})).toBe(true)
    expect(isToSend({outcome: {status: 'refunded'}, planned})).toBe(false)
    expect(isToSend({outcome: {status: 'skipped_invalid', err_msg: 'x'}, planned})).toBe(false)
  })
})

describe("a bulk run's exit code", () => {
  const failed = {status: 'failed', err_code: 'X'} as const
  const done = {status: 'refunded'} as const
  const ended = {stopped: false}

  it('is unknown when the report could not be written, over failed rows too: a rerun writes it', () => {
    expect(runOutcome([done], ended)).toBe('done')
    expect(runOutcome([done], {...ended, reportFailure: 'disk full'})).toBe('unknown')
    expect(runOutcome([done, failed], ended)).toBe('refused')
    expect(runOutcome([done, failed], {...ended, reportFailure: 'the file changed'})).toBe('unknown')
  })

  it('says an interrupt over a report that could not be written', () => {
    expect(runOutcome([done], {stopped: true, stoppedBy: 'SIGTERM', reportFailure: 'x'})).toBe('terminated')
  })
})
