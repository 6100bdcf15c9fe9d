/**
 * Bulk refunds from a file: money leaving the merchant, so every row is refunded once, none
 * silently skipped, and a run killed at any moment resumes to the same end. The whole run
 * as one service: read and check the file (refund-file), plan against the journal and the
 * gateway (plan), let the caller review and confirm, send (send), report (report).
 */
import {basename, resolve} from 'node:path'

import {besideInput} from '../../files/annotated-output.js'
import {fileSha256} from '../../files/table.js'
import {ExitCode, GwError} from '../../errors.js'
import type {Work} from '../../cli/progress.js'
import type {RefundService} from '../service.js'
import {type BulkPlan, planBulkRefund} from './plan.js'
import {readRefundFile} from './refund-file.js'
import {type SummaryLine, summarize, writeReport} from './report.js'
import {type RefundRow, type RowState, type RowStatus, amountOf, isToSend} from './rows.js'
import {sendPlan} from './send.js'

interface BulkOptions {
  csv: string
  journal?: string
  out?: string
  skipInvalid: boolean
  dryRun: boolean
  concurrency: number
  rate?: number
}

/** What the caller does between planning and sending: show the plan, confirm, show progress. */
interface BulkHooks {
  /** The plan is known (problems, resume); shown before anything is decided. */
  planned(plan: BulkPlan): void
  /** Resolves when the refunds still to send may go; throws to cancel. */
  confirm(toSend: ToSendTotal[]): Promise<void>
  /** Sending starts: progress over `total` rows, and the signal that stops it gracefully. */
  sending(total: number): Promise<Work>
}

export interface ToSendTotal {
  currency: string
  rows: number
  amount: number
}

export interface BulkRowView {
  line: number
  status: RowStatus
  mch_refund_no: string
  mch_order_no?: string
  refund_fee?: number
  fee_type?: string
  gw_refund_no?: string
  err_code?: string
  err_msg?: string
}

export interface BulkResult {
  csv: string
  report: string | null
  journal: string
  resumed: boolean
  dry_run: boolean
  interrupted: boolean
  orders: number
  problems: {line: number; message: string}[]
  to_send: ToSendTotal[]
  summary: SummaryLine[]
  rows: BulkRowView[]
  /** The exit code the run ends with (DESIGN.md): 0 done, 1 failed or skipped rows, 5 unknown, 130 interrupted. */
  exit_code: ExitCode
}

/** Totals of the rows about to be sent, per currency. */
function toSendTotals(states: readonly RowState[]): ToSendTotal[] {
  const totals = new Map<string, ToSendTotal>()
  for (const state of states) {
    if (!isToSend(state)) continue
    const {fee_type: currency, refund_fee} = state.planned
    const total = totals.get(currency) ?? {currency, rows: 0, amount: 0}
    total.rows += 1
    total.amount += refund_fee
    totals.set(currency, total)
  }
  return [...totals.values()]
}

function exitCodeOf(states: readonly RowState[], stopped: boolean): ExitCode {
  const any = (...statuses: RowStatus[]) => states.some((s) => statuses.includes(s.outcome.status))
  if (stopped) return ExitCode.Interrupted
  if (any('failed', 'skipped_invalid')) return ExitCode.Refused
  if (any('processing', 'unknown')) return ExitCode.Unknown
  return ExitCode.Done
}

export async function runBulkRefund(
  refunds: RefundService,
  options: BulkOptions,
  hooks: BulkHooks,
): Promise<BulkResult> {
  const csv = resolve(options.csv)
  const journalPath = resolve(options.journal ?? besideInput(csv, '.journal.jsonl'))
  const reportPath = resolve(options.out ?? besideInput(csv, '.report.csv'))
  const file = await readRefundFile(csv, refunds.appid)
  const identity = {csv_file: basename(csv), csv_sha256: await fileSha256(csv), appid: refunds.appid}
  const plan = await planBulkRefund(
    {file, journalPath, identity, skipInvalid: options.skipInvalid, concurrency: options.concurrency},
    refunds,
  )
  hooks.planned(plan)
  const toSend = toSendTotals(plan.states)
  const result = (states: readonly RowState[], report: string | null, stopped: boolean): BulkResult => ({
    csv,
    report,
    journal: journalPath,
    resumed: plan.journal?.resumed ?? false,
    dry_run: options.dryRun,
    interrupted: stopped,
    orders: new Set(file.rows.map((r) => r.request?.orderKey).filter(Boolean)).size,
    problems: [...plan.problems],
    to_send: toSend,
    summary: summarize(file, states),
    rows: file.rows.map((row, i) => rowView(row, states[i]!)),
    exit_code: options.dryRun ? (plan.blocked ? ExitCode.Usage : ExitCode.Done) : exitCodeOf(states, stopped),
  })
  if (options.dryRun) return result(plan.states, null, false)
  if (plan.blocked) {
    const count = plan.problems.length
    throw new GwError(
      'usage',
      `${csv} has ${count} problem${count === 1 ? '' : 's'} (listed above); nothing was sent.`,
      {
        advice: 'Fix them and run again, or add --skip-invalid to send the valid rows and report the rest.',
        details: {problems: plan.problems},
      },
    )
  }
  const count = toSend.reduce((n, t) => n + t.rows, 0)
  if (count > 0) await hooks.confirm(toSend)
  const work = await hooks.sending(count)
  let sent
  try {
    sent = await sendPlan(plan, refunds, {
      concurrency: options.concurrency,
      rate: options.rate,
      signal: work.signal,
      onSent: (failed) => work.progress.tick(failed),
    })
  } finally {
    work.done()
  }
  await writeReport(reportPath, file, sent.states)
  return result(sent.states, reportPath, sent.stopped)
}

function rowView(row: RefundRow, state: RowState): BulkRowView {
  const facts = state.outcome as {gw_refund_no?: string; err_code?: string; err_msg?: string}
  const {refund_fee, fee_type} = amountOf(row, state)
  return {
    line: row.line,
    status: state.outcome.status,
    mch_refund_no: row.mchRefundNo,
    mch_order_no: state.planned?.mch_order_no ?? row.request?.ref.mch_order_no,
    refund_fee,
    fee_type,
    gw_refund_no: facts.gw_refund_no,
    err_code: facts.err_code,
    err_msg: facts.err_msg,
  }
}
