/**
 * Bulk refunds from a file: money leaving the merchant, so every row is refunded once, none
 * silently skipped, and a run killed at any moment resumes to the same end. The whole run
 * as one service: read and check the file (refund-file), check where it writes, take the
 * journal's lock, plan against the journal and the gateway (plan), let the caller review and
 * confirm, send (send), report (report).
 */
import {existsSync, statSync} from 'node:fs'
import {basename, dirname, resolve} from 'node:path'
import {setFlagsFromString} from 'node:v8'

import type {Work} from '../../batch.js'
import {GwError, usageError} from '../../errors.js'
import {annotatedWidth, besideInput, fittedOutput, outputFor} from '../../files/annotated-output.js'
import {type AuditTrail, startTrail} from '../../files/audit.js'
import {checkOutputs} from '../../files/output-paths.js'
import {isoTime} from '../../gateway/protocol/index.js'
import type {ReadOptions} from '../../files/table.js'
import {type Lock, type LockHolder, lockOrRefuse} from '../../io/lock.js'
import {refuseSharedFolder} from '../../io/private-file.js'
import type {OrderClaim} from '../../store/claims.js'
import type {RefundService} from '../service.js'
import {type RunEnd, ending, runOutcome} from '../refund.js'
import {type BulkResult, rowViews, toSendTotals} from './bulk-result.js'
import {Journal} from './journal.js'
import {type BulkPlan, planBulkRefund} from './plan.js'
import {type RefundFile, digestUpTo, readRefundFile} from './refund-file.js'
import {summarize, writeReport} from './report.js'
import {REPORT_COLUMNS, type RowState, WHOLE_FILE} from './rows.js'
import {sendPlan} from './send.js'

/** What a run is asked to do; named as the flags are. */
export interface BulkOptions extends Omit<ReadOptions, 'fields'> {
  csv: string
  'only-visible'?: boolean
  /** --preview: the page of the sheet as gw read it, written by a dry run. */
  preview?: string
  /** --where and --status-map: the rows taken by the words beside them. */
  where?: readonly string[]
  'status-map'?: readonly string[]
  journal?: string
  out?: string
  skip_invalid: boolean
  allow_repeats: boolean
  retry_failed: boolean
  batch_id?: string
  dry_run: boolean
  concurrency: number
  rate?: number
  bom?: boolean
  /** gw's version, for the report's audit trail. */
  gw_version: string
}

/** What the caller does between planning and sending: show the plan, confirm, show progress. */
interface BulkHooks {
  /** The orders are being checked: progress over `total` queries, and the signal that stops the checks (Ctrl-C). */
  checking(label: string, total: number): Promise<Work>
  /**
   * The plan is known (problems, resume); shown before anything is decided. `left`: the holder of
   * the lock before, which ended without letting go of it (a run killed); `output`: what is said of where the report goes (a CSV for a workbook too wide).
   */
  planned(plan: BulkPlan, left?: LockHolder, output?: string): void
  /** Resolves when the refunds still to send may go; throws to cancel. */
  confirm(planned: BulkResult): Promise<void>
  /** Sending starts: progress over `total` rows, and the signal that stops it gracefully. */
  sending(total: number): Promise<Work>
}

/** Files from this size on are planned with V8's heap kept close to what is live. */
const LARGE_FILE_BYTES = 1024 * 1024

/**
 * The plan holds every row of the file. V8 grows its heap up to four times what is live before
 * collecting: asked to grow it by 30% at a time, the largest sheet Excel holds is planned in about
 * half the memory, for a little more CPU (bench/large-files.mjs). A small file keeps V8's own growth.
 */
export function tuneHeapFor(file: string): void {
  let size = 0
  try {
    size = statSync(file).size
  } catch {
    // Reading the file says why it cannot be read.
  }
  if (size >= LARGE_FILE_BYTES) setFlagsFromString('--heap-growing-percent=30')
}

/**
 * The journal beside the file, named by its whole name (`Refunds-Nov.csv.journal.jsonl`), so
 * that `Refunds-Nov.csv` and `Refunds-Nov.xlsx` have one each. A journal of the name earlier
 * versions gave (`Refunds-Nov.journal.jsonl`) that is this file's is resumed.
 */
function defaultJournal(csv: string): string {
  journalFolder(csv)
  const named = `${csv}.journal.jsonl`
  const earlier = besideInput(csv, '.journal.jsonl')
  return !existsSync(named) && Journal.fileOf(earlier) === basename(csv) ? earlier : named
}

/**
 * The folder of a journal (and its lock), checked before anything in it is read: one that is not
 * the user's alone is refused (refuseSharedFolder). Its mode is left as the user set it (finance's
 * folder beside their files): gw only reads and writes its own files there.
 */
function journalFolder(journal: string): void {
  const folder = dirname(journal)
  if (existsSync(folder)) refuseSharedFolder(folder, 'give the run a journal in a folder of your own: --journal FILE')
}

/** The journal's lock: one run of a batch at a time. */
const lockJournal = (journal: string): Lock =>
  lockOrRefuse(
    `${journal}.lock`,
    'This batch is being run',
    'Wait for that run to end: the system lets go of its lock when it ends, however it ends.',
  )

/**
 * The journal's file, when this file only grew since its journal began (finance's running sheet,
 * rows appended each day): its first lines read as the journal's run read them. Then the run is
 * the same batch, continued; a changed earlier row makes it another file.
 */
async function grownFrom(file: RefundFile, journalPath: string): Promise<{grown_from?: string}> {
  const began = Journal.headerOf(journalPath)
  if (!began?.rows || !began.csv_sha256 || began.csv_sha256 === file.sha256 || file.digest.line < began.rows.line)
    return {}
  return (await digestUpTo(file, began.rows.line)) === began.rows.sha256 ? {grown_from: began.csv_sha256} : {}
}

export async function runBulkRefund(
  refunds: RefundService,
  options: BulkOptions,
  hooks: BulkHooks,
): Promise<BulkResult> {
  const csv = resolve(options.csv)
  const journalPath = resolve(options.journal ?? defaultJournal(csv))
  journalFolder(journalPath)
  const file = await readRefundFile(csv, options)
  const fitted = reportOf(csv, file, journalPath, options)
  const {path: reportPath, preview} = fitted
  const lock = options.dry_run ? undefined : lockJournal(journalPath)
  let claim: OrderClaim | undefined
  try {
    const identity = {
      csv_file: basename(csv),
      csv_sha256: file.sha256,
      appid: refunds.appid,
      gateway: refunds.records.gateway,
      soleGateway: refunds.records.isSoleGateway(),
      batch_id: options.batch_id,
      rows: file.digest,
      ...(await grownFrom(file, journalPath)),
    }
    const trail = startTrail(csv, identity.csv_sha256, refunds.profile, options.gw_version, options.batch_id)
    let earlierReport: string | undefined
    const plan = await planBulkRefund({...options, file, journalPath, identity, checking: hooks.checking}, refunds)
    claim = plan.claim
    hooks.planned(plan, lock?.left, fitted.note)
    const toSend = toSendTotals(plan.states)
    const run = {csv, file, plan, trail, journalPath, reportPath, options}
    /** `asPlan`: the rows as the dry run shows them (would_refund), as the plan above the question is. */
    const result = (states: readonly RowState[], ended: RunEnd, asPlan = options.dry_run) =>
      bulkResult(run, states, ended, {earlierReport, asPlan})
    /** Writes the report (a dry run's plan) of a file with rows; resolves to why it could not be written. */
    const report = async (states: readonly RowState[]) => {
      if (!file.rows.length) return undefined
      trail.finished = isoTime()
      return writeReport(reportPath, file, states, {
        bom: options.bom,
        dryRun: options.dry_run,
        trail,
        ...(preview ? {preview} : {}),
      }).then(
        (kept) => void (earlierReport = kept),
        (error: Error) => error.message,
      )
    }
    if (options.dry_run) return result(plan.states, {stopped: false, reportFailure: await report(plan.states)})
    if (plan.blocked) throw blocked(csv, plan)
    const count = toSend.reduce((n, t) => n + t.rows, 0)
    // Asked over the plan as a dry run shows it: what goes out, the rows, and what does not.
    if (count > 0) await hooks.confirm(result(plan.states, {stopped: false}, true))
    const work = await hooks.sending(count)
    let sent
    try {
      sent = await sendPlan(plan, refunds, {
        ...options,
        signal: work.signal,
        source: basename(csv),
        onSent: (failed) => work.progress.tick(failed),
      })
    } finally {
      work.done()
    }
    return result(sent.states, {...sent, reportFailure: await report(sent.states)})
  } finally {
    claim?.release()
    lock?.release()
  }
}

/**
 * Where the report goes, checked before any money moves (writable, not the input): its size is
 * known once the file is read, and one that does not fit a workbook is said now (a CSV instead); and
 * where a dry run's --preview page goes (a .html).
 */
function reportOf(csv: string, file: RefundFile, journalPath: string, options: BulkOptions) {
  const lines = Math.max(
    file.header.line ?? 1,
    ...[file.rows, file.totals, file.left, file.notes].map((l) => l.at(-1)?.line ?? 0),
  )
  const size = {columns: annotatedWidth(file.header, REPORT_COLUMNS), lines, longest: file.longest}
  const chosen = outputFor(csv, options.out, options.dry_run ? '.dry-run' : '.report', file.source.kind)
  const fitted = fittedOutput(chosen, options.out !== undefined, size)
  const path = resolve(fitted.path)
  const preview = options.preview ? resolve(options.preview) : undefined
  if (preview && !/\.html?$/i.test(preview))
    throw usageError(`--preview ${options.preview}: name the page .html (it is a web page to open in a browser).`)
  checkOutputs(csv, [
    ...(options.dry_run ? [] : [{flag: '--journal', path: journalPath}]),
    {flag: '--out', path},
    ...(preview ? [{flag: '--preview', path: preview}] : []),
  ])
  return {path, note: fitted.note, preview}
}

/** A file that cannot be sent as it is: exit 2, every problem with its line, and the earlier refunds the plan settled. */
function blocked(csv: string, plan: BulkPlan): GwError {
  const count = plan.problems.length
  return new GwError(
    'usage',
    `${csv} has ${count} problem${count === 1 ? '' : 's'} (listed above); nothing was sent.`,
    {
      advice: plan.problems.some((p) => p.file)
        ? `Fix them and run again (${WHOLE_FILE}).`
        : 'Fix them and run again, or add --skip-invalid to send the valid rows and report the rest.',
      // The earlier refunds the plan settled are recorded now: said here, or never again.
      details: {problems: plan.problems, ...(plan.settled_earlier.length && {settled_earlier: plan.settled_earlier})},
    },
  )
}

/** What a run knows once planned: its file, its plan and trail, where its journal and report go, what it was asked. */
interface PlannedRun {
  csv: string
  file: RefundFile
  plan: BulkPlan
  trail: AuditTrail
  journalPath: string
  reportPath: string
  options: BulkOptions
}

/** The run's result at this point: before sending (the plan, for the confirmation), or at its end. */
function bulkResult(
  run: PlannedRun,
  states: readonly RowState[],
  ended: RunEnd,
  {earlierReport, asPlan}: {earlierReport?: string; asPlan: boolean},
): BulkResult {
  const {csv, file, plan, options} = run
  const outcome = options.dry_run
    ? plan.blocked
      ? 'usage'
      : ended.reportFailure
        ? 'unknown'
        : 'done'
    : runOutcome(
        states.map((state) => state.outcome),
        ended,
      )
  return {
    csv,
    report: ended.reportFailure || !file.rows.length ? null : run.reportPath,
    earlier_report: earlierReport ?? null,
    audit: run.trail,
    journal: run.journalPath,
    batch_id: options.batch_id ?? null,
    resumed: plan.journal?.resumed ?? false,
    dry_run: options.dry_run,
    interrupted: ended.stopped,
    orders: plan.distinct_orders,
    orders_with_several_rows: [...plan.orders],
    ignored_columns: file.header.ignored.filter((name) => !file.wordColumns.includes(name)),
    word_columns: file.wordColumns,
    comments: file.comments,
    earlier_output_columns: file.header.gwColumns.map((at) => file.header.names[at]!),
    totals: file.totals,
    left_out: file.left,
    problems: [...plan.problems],
    settled_earlier: [...plan.settled_earlier],
    to_send: toSendTotals(plan.states),
    summary: summarize(file, states, asPlan),
    rows: rowViews(file.rows, states, asPlan),
    write_failure: ended.writeFailure ?? null,
    report_failure: ended.reportFailure ?? null,
    history_failure: ended.historyFailure ?? null,
    ...ending(outcome),
  }
}
