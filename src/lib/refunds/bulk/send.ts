/**
 * Step 4 of a bulk refund: each refund's intent is written whole and synced to the journal
 * before it is sent, its outcome recorded after. Refund numbers are fixed per row and the
 * gateway takes each number once, so a resend can never refund twice. Stops taking rows when
 * the signal aborts (rows in flight finish and are recorded) or when a journal write fails:
 * a refund whose intent could not be written is not sent.
 */
import {runBatch} from '../../batch.js'
import {GwError} from '../../errors.js'
import {keptSentence} from '../../store/durability.js'
import {
  HISTORY_OF_ROW,
  type PlannedRefund,
  type RefundResult,
  type RowOutcome,
  isFinal,
  rowOfResult,
} from '../refund.js'
import type {RefundService} from '../service.js'
import {Journal, type OutcomeRecord} from './journal.js'
import type {BulkPlan} from './plan.js'
import {type RowState, isToSend, madeBefore, numberOf} from './rows.js'

interface BulkSendOptions {
  concurrency: number
  rate?: number
  signal?: AbortSignal
  /** Names the run in the local history (the file's name). */
  source: string
  /** Called after each row is sent; `notRefunded` when it did not end refunded (failed, unknown, processing...). */
  onSent(notRefunded: boolean): void
}

interface Sent {
  states: RowState[]
  /** Ctrl-C (or SIGTERM) stopped the run; `stoppedBy` names the signal. */
  stopped: boolean
  stoppedBy?: unknown
  /** A journal write failed (a full disk): sending stopped; the rows not sent stay pending. */
  writeFailure?: string
  /** The history could not take this run's records (held by another program, a full disk): where they went instead. */
  historyFailure?: string
}

function outcomeRecord(line: number, mchRefundNo: string, outcome: RowOutcome): OutcomeRecord {
  const facts = outcome as Partial<Extract<RowOutcome, {status: 'failed'}>>
  return {
    type: 'outcome',
    line,
    mch_refund_no: mchRefundNo,
    status: outcome.status as OutcomeRecord['status'],
    gw_refund_no: facts.gw_refund_no,
    refund_time: facts.refund_time,
    err_code: facts.err_code,
    err_msg: facts.err_msg,
    advice: facts.advice,
    earlier_run_at: (outcome as {earlier_run_at?: string}).earlier_run_at,
    at: new Date().toISOString(),
  }
}

/**
 * A refund through the one door (RefundService.send). What it throws is gw's own check of the
 * parameters refusing it (nothing went out), or the client's word that no request arrived (a
 * transport failure): the first is failed, the second unknown, settled by the next run.
 */
async function sendOrRefuse(
  refunds: RefundService,
  planned: PlannedRefund,
  source: string,
  signal: AbortSignal,
): Promise<RefundResult> {
  try {
    return await refunds.send(planned, source, signal)
  } catch (error) {
    if (error instanceof GwError && error.kind === 'usage') {
      return {
        status: 'failed',
        planned,
        err_msg: error.message,
        explanation: 'Nothing was sent.',
        resolved_by: 'answer',
      }
    }
    return {status: 'unknown', planned, explanation: (error as Error).message, resolved_by: 'refund_query'}
  }
}

/**
 * Refunds an earlier run of this file sent, as its journal and this plan's lookups know them,
 * recorded in the history where it lacks them: a run killed (SIGKILL, a power cut) before its
 * last records reached the history, or while a refund was in flight, left them in the journal only.
 */
function recordInHistory(states: RowState[], refunds: RefundService, source: string): void {
  // Asked first, recorded after: a question commits the records waiting, and these go in together.
  const missing = states.filter(
    ({sent, outcome}) =>
      sent && HISTORY_OF_ROW[outcome.status] && !refunds.sentHere(sent.mch_order_no, sent.mch_refund_no),
  )
  for (const {sent, outcome, planned} of missing) {
    const {gw_refund_no} = outcome as {gw_refund_no?: string}
    refunds.recordOutcome(
      {...sent!, channel: planned?.channel, total_fee: planned?.total_fee},
      HISTORY_OF_ROW[outcome.status]!,
      {
        source,
        gw_refund_no,
        at: sent!.at,
      },
    )
  }
}

export async function sendPlan(plan: BulkPlan, refunds: RefundService, options: BulkSendOptions): Promise<Sent> {
  const states = [...plan.states]
  const {journal: found, file} = plan
  const journal = await Journal.open(found!.path, found!.header, found!.resumed)
  const stop = new AbortController()
  let writeFailure: string | undefined
  const failed = (error: Error) => {
    writeFailure ??= `${error.message}`
    stop.abort()
  }
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal
  const outcomes: Promise<void>[] = []
  try {
    // Outcomes settled by lookup while planning are recorded first.
    for (const [i, state] of states.entries()) {
      const row = file.rows[i]!
      if (state.planned && (isFinal(state.outcome) || state.outcome.status === 'processing')) {
        outcomes.push(journal.append(outcomeRecord(row.line, numberOf(row, state), state.outcome)).catch(failed))
      }
    }
    recordInHistory(states, refunds, options.source)
    // Outcomes are queued, not awaited row by row: the journal keeps their order and its close
    // waits for them. A write that fails stops the batch before the next refund.
    const toSend = states.map((state, i) => ({state, i})).filter(({state}) => isToSend(state))
    await runBatch(
      toSend,
      async ({state, i}) => {
        const planned = state.planned!
        const row = file.rows[i]!
        const {mch_refund_no, mch_order_no, gw_order_no, refund_fee, fee_type} = planned
        // A row that waited for its turn is not in flight: after a stop it is not started.
        if (signal.aborted) return
        const intent = {
          type: 'intent' as const,
          line: row.line,
          mch_refund_no,
          mch_order_no,
          gw_order_no,
          refund_fee,
          fee_type,
          at: new Date().toISOString(),
        }
        try {
          await journal.append(intent)
        } catch (error) {
          return failed(error as Error)
        }
        const sent = await sendOrRefuse(refunds, planned, options.source, signal)
        // A number held before this send is an earlier run's of this file when the journal sent this very number.
        const ours = state.sent?.mch_refund_no === mch_refund_no ? state : {...state, sent: undefined}
        const outcome = rowOfResult(sent, madeBefore(ours), ours.sent?.at)
        const {at} = intent
        states[i] = {...state, outcome, sent: {mch_refund_no, mch_order_no, gw_order_no, refund_fee, fee_type, at}}
        outcomes.push(journal.append(outcomeRecord(row.line, mch_refund_no, outcome)).catch(failed))
        options.onSent(outcome.status !== 'refunded' && outcome.status !== 'already_refunded')
      },
      {concurrency: options.concurrency, rate: options.rate, signal},
    )
    await Promise.all(outcomes)
  } finally {
    await journal.close().catch(failed)
  }
  // The journal holds every refund and its outcome; the history catches up, or says where its records went.
  const historyFailure = keptSentence(refunds.records.file, refunds.records.settle())
  return {
    states,
    stopped: Boolean(options.signal?.aborted),
    stoppedBy: options.signal?.reason,
    writeFailure,
    historyFailure,
  }
}
