/**
 * Step 4 of a bulk refund: each refund's intent is synced to the journal before it is sent,
 * its outcome recorded after. Refund numbers are fixed per row and the gateway takes each
 * number once, so a resend can never refund twice. Stops taking rows when the signal
 * aborts (rows in flight finish and are recorded) or when a journal write fails.
 */
import {runBatch} from '../../batch.js'
import type {RefundResult, RefundService} from '../service.js'
import {Journal, type OutcomeRecord} from './journal.js'
import type {BulkPlan} from './plan.js'
import {type RowOutcome, type RowState, isFinal, isToSend} from './rows.js'

interface SendOptions {
  concurrency: number
  rate?: number
  signal?: AbortSignal
  /** Called after each row is sent; `failed` when it did not end refunded. */
  onSent(failed: boolean): void
}

/** The outcome of one send, as a row's outcome. */
function outcomeOf(sent: RefundResult): RowOutcome {
  const {gw_refund_no, err_code, err_msg} = sent
  switch (sent.status) {
    case 'refunded':
      return {status: sent.already_existed ? 'already_refunded' : 'refunded', gw_refund_no}
    case 'processing':
      return {status: 'processing', gw_refund_no}
    case 'failed':
      return {status: 'failed', gw_refund_no, err_code, err_msg, advice: sent.explanation}
    case 'unknown':
      return {status: 'unknown', advice: sent.explanation}
  }
}

function outcomeRecord(line: number, mchRefundNo: string, outcome: RowOutcome): OutcomeRecord {
  const facts = outcome as Partial<Extract<RowOutcome, {status: 'failed'}>>
  return {
    type: 'outcome',
    line,
    mch_refund_no: mchRefundNo,
    status: outcome.status as OutcomeRecord['status'],
    gw_refund_no: facts.gw_refund_no,
    err_code: facts.err_code,
    err_msg: facts.err_msg,
    advice: facts.advice,
    at: new Date().toISOString(),
  }
}

export async function sendPlan(
  plan: BulkPlan,
  refunds: RefundService,
  options: SendOptions,
): Promise<{states: RowState[]; stopped: boolean}> {
  const states = [...plan.states]
  const {journal: found, file} = plan
  const journal = await Journal.open(found!.path, found!.header, found!.resumed)
  const stopOnFailure = new AbortController()
  const signal = options.signal ? AbortSignal.any([options.signal, stopOnFailure.signal]) : stopOnFailure.signal
  try {
    // Outcomes settled by lookup while planning are recorded first.
    for (const [i, state] of states.entries()) {
      const row = file.rows[i]!
      if (state.planned && (isFinal(state.outcome) || state.outcome.status === 'processing')) {
        await journal.append(outcomeRecord(row.line, row.mchRefundNo, state.outcome))
      }
    }
    // Outcomes are queued, not awaited row by row: the journal keeps their order and its close
    // waits for them. A write that fails stops the batch.
    const outcomes: Promise<void>[] = []
    const toSend = states.map((state, i) => ({state, i})).filter(({state}) => isToSend(state))
    await runBatch(
      toSend,
      async ({state, i}) => {
        const planned = state.planned!
        const row = file.rows[i]!
        await journal.append({
          type: 'intent',
          line: row.line,
          mch_refund_no: planned.mch_refund_no,
          mch_order_no: planned.mch_order_no,
          refund_fee: planned.refund_fee,
          fee_type: planned.fee_type,
          at: new Date().toISOString(),
        })
        let sent: RefundResult
        try {
          sent = await refunds.send(planned)
        } catch (error) {
          sent = {status: 'unknown', planned, explanation: (error as Error).message, resolved_by: 'refund_query'}
        }
        const outcome = outcomeOf(sent)
        states[i] = {...state, outcome}
        outcomes.push(
          journal.append(outcomeRecord(row.line, row.mchRefundNo, outcome)).catch((error: Error) => {
            stopOnFailure.abort()
            throw error
          }),
        )
        options.onSent(outcome.status === 'failed' || outcome.status === 'unknown')
      },
      {concurrency: options.concurrency, rate: options.rate, signal},
    )
    await Promise.all(outcomes)
  } finally {
    await journal.close()
  }
  return {states, stopped: Boolean(options.signal?.aborted)}
}
