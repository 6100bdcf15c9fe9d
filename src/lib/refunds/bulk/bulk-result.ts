/** What a bulk refund run ends with: every row's outcome, totals, and the exit code of DESIGN.md. */
import {EXIT_CODES, type ExitCode, type Outcome, outcomeOfSignal} from '../../errors.js'
import type {AuditTrail} from '../../files/audit.js'
import {isCurrency, toDecimal} from '../../gateway/protocol/index.js'
import {Tally, type TallyLine} from '../../files/tally.js'
import type {TotalsRow} from '../../files/totals.js'
import type {SettledEarlier} from './order-checks.js'
import {
  type LeftOut,
  type OrderLine,
  ROW_STATUSES,
  type RefundRow,
  type RowState,
  type RowStatus,
  amountOf,
  isToSend,
  numberOf,
} from './rows.js'

/** A row's status as shown: a dry run's row that would be sent is `would_refund`. */
export type ViewStatus = RowStatus | 'would_refund'

export const VIEW_STATUSES: readonly ViewStatus[] = ['would_refund', ...ROW_STATUSES]

export const viewStatus = (state: RowState, dryRun: boolean): ViewStatus =>
  dryRun && isToSend(state) ? 'would_refund' : state.outcome.status

/** Rows about to be sent in one currency: `refund_fee` in minor units, `refund_amount` the same as a decimal. */
export type ToSendTotal = Omit<TallyLine<'to_send', 'refund_fee'>, 'group'>

/** Rows per status and currency; `refund_fee` undefined when no row of the line has an amount (rows skipped before it was known). */
export type SummaryLine = Omit<TallyLine<ViewStatus, 'refund_fee'>, 'group'> & {status: ViewStatus}

export interface BulkRowView {
  line: number
  /** The order number as the row gives it. */
  order: string
  status: ViewStatus
  mch_refund_no: string
  mch_order_no?: string
  gw_order_no?: string
  refund_fee?: number
  /** refund_fee as a decimal in the currency. */
  refund_amount?: string
  fee_type?: string
  gw_refund_no?: string
  refund_time?: string
  settled_by?: string
  made_by?: string
  /** refunded_earlier: when the earlier run of this file sent it. */
  earlier_run_at?: string
  err_code?: string
  err_msg?: string
}

export interface BulkResult {
  csv: string
  report: string | null
  /** Where the report an earlier run left at the same path was kept (never overwritten). */
  earlier_report: string | null
  /** Which file, account, mode, gw, user and times: the report's audit trail. */
  audit: AuditTrail
  journal: string
  batch_id: string | null
  resumed: boolean
  dry_run: boolean
  interrupted: boolean
  orders: number
  /** Orders with more than one row: their lines, what they send, and what is left of the order. */
  orders_with_several_rows: OrderLine[]
  /** Columns of the file gw does not read. */
  ignored_columns: string[]
  /** Columns of gw's own earlier report or list in a file fed back in (its status, advice): not read. */
  earlier_output_columns: string[]
  /** Totals rows: never sent, each checked against the rows above it. */
  totals: TotalsRow[]
  /** Rows the sheet does not show, left out by --only-visible: never sent. */
  left_out: LeftOut[]
  problems: {line: number; message: string}[]
  /** Refunds of the file's orders sent earlier outside it without a known outcome, settled by looking them up first. */
  settled_earlier: SettledEarlier[]
  to_send: ToSendTotal[]
  summary: SummaryLine[]
  /** Every row, in the file's order, each made as it is read (--json writes them one by one). */
  rows: Iterable<BulkRowView>
  /** A journal write failed (a full disk): sending stopped before the next refund; run again to settle. */
  write_failure: string | null
  /** The report could not be written; the journal holds every outcome. */
  report_failure: string | null
  /** The history could not take the run's records (held by another program, a full disk): where they went. */
  history_failure: string | null
  /** How the run ends (DESIGN.md): done, refused (failed, skipped or left-out rows), unknown (or stopped by a write failure), not_confirmable (to confirm on the merchant platform), interrupted... */
  outcome: Outcome
  /** Its exit code: 0 done, 1 refused, 5 unknown, 6 not confirmable, 130 interrupted... */
  exit_code: ExitCode
}

/** Totals of the rows about to be sent, per currency. */
export function toSendTotals(states: readonly RowState[]): ToSendTotal[] {
  const tally = new Tally<'to_send', 'refund_fee'>()
  for (const state of states) {
    if (isToSend(state)) tally.add('to_send', state.planned.fee_type, {refund_fee: state.planned.refund_fee})
  }
  return tally.lines(['to_send']).map(({group: _group, ...total}) => total)
}

/** How a run ended: stopped by a signal, or with what it could not write (the journal, the report, the history). */
export interface RunEnd {
  stopped: boolean
  stoppedBy?: unknown
  writeFailure?: string
  reportFailure?: string
  historyFailure?: string
}

/**
 * How the run ends. A report, or the history's records, that could not be written is not a
 * success: the refunds are in the journal, and the same command run again writes the report
 * (unknown, also over failed rows; an interrupt or a failed verification says more).
 */
export function outcomeOf(states: readonly RowState[], ended: RunEnd): Outcome {
  const outcome = rowsOutcome(states, ended)
  // Failed rows are in the journal and on screen; the report a rerun writes, or this machine's
  // record of the refunds (the history behind the money), is what is missing.
  const settled: Outcome[] = ['done', 'refused', 'not_confirmable']
  const behind = ended.reportFailure || ended.historyFailure
  return behind && settled.includes(outcome) ? 'unknown' : outcome
}

/** A run's outcome and its exit code, as the document gives them. */
export const ending = (outcome: Outcome) => ({outcome, exit_code: EXIT_CODES[outcome]})

function rowsOutcome(
  states: readonly RowState[],
  ended: {stopped: boolean; stoppedBy?: unknown; writeFailure?: string},
): Outcome {
  const any = (...statuses: RowStatus[]) => states.some((s) => statuses.includes(s.outcome.status))
  if (ended.stopped) return outcomeOfSignal(ended.stoppedBy)
  if (ended.writeFailure) return 'unknown'
  if (states.some((s) => s.outcome.status === 'unknown' && s.outcome.unverified)) return 'signature'
  // Money unproven outranks rows refused: run again, the rerun settles them (and then says the refused ones).
  if (any('processing', 'unknown', 'held')) return 'unknown'
  if (any('failed', 'skipped_invalid', 'left_out')) return 'refused'
  // Not the "run again later" outcome: a rerun cannot tell more of these; the merchant platform can.
  if (any('not_confirmable')) return 'not_confirmable'
  return 'done'
}

/** The rows' views, each made when its turn comes: a million rows are never a million views at once. */
export const rowViews = (rows: readonly RefundRow[], states: readonly RowState[], dryRun: boolean) => ({
  *[Symbol.iterator](): Iterator<BulkRowView> {
    for (const [i, row] of rows.entries()) yield rowView(row, states[i]!, dryRun)
  },
})

export function rowView(row: RefundRow, state: RowState, dryRun: boolean): BulkRowView {
  const facts = state.outcome as Partial<
    Record<
      'gw_refund_no' | 'refund_time' | 'settled_by' | 'made_by' | 'earlier_run_at' | 'err_code' | 'err_msg',
      string
    >
  >
  const {refund_fee, fee_type} = amountOf(row, state)
  return {
    line: row.line,
    order: row.order,
    status: viewStatus(state, dryRun),
    mch_refund_no: numberOf(row, state),
    mch_order_no: state.planned?.mch_order_no ?? row.request?.ref.mch_order_no,
    gw_order_no: state.planned?.gw_order_no ?? state.sent?.gw_order_no,
    refund_fee,
    fee_type,
    gw_refund_no: facts.gw_refund_no,
    refund_amount:
      refund_fee !== undefined && fee_type && isCurrency(fee_type) ? toDecimal(refund_fee, fee_type) : undefined,
    refund_time: facts.refund_time,
    settled_by: facts.settled_by,
    made_by: facts.made_by,
    earlier_run_at: facts.earlier_run_at,
    err_code: facts.err_code,
    err_msg: facts.err_msg,
  }
}
