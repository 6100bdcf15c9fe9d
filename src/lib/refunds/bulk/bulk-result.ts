/** What a bulk refund run ends with: every row's outcome, totals, and its exit code. */
import type {ExitCode, Outcome} from '../../errors.js'
import type {AuditTrail} from '../../files/audit.js'
import {isCurrency, toDecimal} from '../../gateway/protocol/index.js'
import {Tally, type TallyLine} from '../../files/tally.js'
import type {TotalsRow} from '../../files/totals.js'
import type {SettledEarlier} from './order-checks.js'
import type {CommentRead} from './rows-taken.js'
import {type ViewStatus, viewStatusOf} from '../refund.js'
import {type LeftOut, type OrderLine, type RefundRow, type RowState, isToSend, numberOf, rowAmount} from './rows.js'

/** A row's status as a report or a view shows it. */
export const viewStatus = (state: RowState, dryRun: boolean): ViewStatus =>
  viewStatusOf(state.outcome, isToSend(state), dryRun)

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
  /** Columns gw does not read by name whose words it acted on: approvals by what they hold, notes that held rows back. */
  word_columns: string[]
  /** The comments on the sheet's cells (the first thousand), each with what it did. */
  comments: CommentRead[]
  /** Columns of gw's own earlier report or list in a file fed back in (its status, advice): not read. */
  earlier_output_columns: string[]
  /** Totals rows: never sent, each checked against the rows above it. */
  totals: TotalsRow[]
  /** Rows the sheet does not show, left out by --only-visible: never sent. */
  left_out: LeftOut[]
  /** `file`: the problem holds the whole file back (a title or a comment that says not to refund). */
  problems: {line: number; message: string; file?: true}[]
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
  /** How the run ends: done, refused (failed, skipped or left-out rows), unknown (or stopped by a write failure), not_confirmable (to confirm on the merchant platform), interrupted... */
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
  const {refund_fee, fee_type} = rowAmount(row, state)
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
