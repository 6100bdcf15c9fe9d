/** What `gw refund create --from-csv` shows: the plan's notes, problems by line, the plan or the outcome, the summary. */
import {formatAmount} from '../gateway/protocol/index.js'
import type {LockHolder} from '../io/lock.js'
import type {OutputForm} from '../io/streams.js'
import type {BulkResult, BulkRowView, ToSendTotal} from '../refunds/bulk/bulk-result.js'
import type {BulkPlan} from '../refunds/bulk/plan.js'
import {type OrderLine, type Problem, WHOLE_FILE} from '../refunds/bulk/rows.js'
import type {RowStatus} from '../refunds/refund.js'
import {
  earlierOutputNote,
  hiddenNote,
  ignoredNote,
  leftOutNotes,
  markNotes,
  noteLines,
  partlyStruckNote,
  sourceNotes,
  totalsNotes,
} from './files.js'
import {fileShown, quoted, shown} from '../untrusted.js'
import {table} from './table.js'
import {plural} from '../plural.js'
import {earlierSentence} from './refunds.js'

/** The first `limit` items that `keep` takes, one to a line, then how many more: a million rows are read once, none held. */
function lines<T>(items: Iterable<T>, line: (item: T) => string, limit = 200, keep: (item: T) => boolean = () => true) {
  const shown: string[] = []
  let count = 0
  for (const item of items) {
    if (!keep(item)) continue
    if (++count <= limit) shown.push(`  ${line(item)}`)
  }
  if (count > limit) shown.push(`  ... and ${count - limit} more (all are in --json and the report)`)
  return shown.join('\n')
}

/** The first 20 problems on screen, and how many more (all of them are in --json and the report). */
const problemLines = (problems: readonly Problem[]) => lines(problems, (p) => `line ${p.line}: ${p.message}`, 20)

/** Notes on stderr once the plan is known: a lock an ended run left, a resumed journal, how uncertain rows were settled, the problems. */
export function planNotes(plan: BulkPlan, csv: string, left?: LockHolder, output?: string): string[] {
  const notes: string[] = []
  const {found, settled, problems} = plan
  notes.push(
    ...sourceNotes(plan.file.source),
    ...markNotes(plan.file.source, plan.file.header),
    ...totalsNotes(plan.file.totals),
    ...noteLines(plan.file.notes),
    ...leftOutNotes(plan.file.left),
  )
  const {header, source} = plan.file
  const words = new Set(plan.file.wordColumns)
  for (const note of [
    earlierOutputNote(header),
    ignoredNote(
      header.ignored.filter((name) => !words.has(name)),
      plan.file.hints,
    ),
    words.size
      ? `read for what their words say (approvals, notes that hold a row back): ${[...words].map((name) => quoted(name)).join(', ')}`
      : undefined,
    commentsNote(plan.file),
    hiddenNote(header),
    partlyStruckNote(source),
  ])
    if (note) notes.push(note)
  if (output) notes.push(output)
  if (left)
    notes.push(
      `the run before, process ${left.pid} on ${left.host} (since ${left.since}), ended without letting go of the lock; the system let go for it`,
    )
  if (plan.journal?.torn)
    notes.push(`the journal's last line was cut short by a crash; it was set aside and its row is asked of the gateway`)
  if (plan.journal?.grown)
    notes.push(
      `the file grew since its journal began: lines 1 to ${plan.journal.grown} are as the earlier run read them, the rows under them are new: the same batch, continued`,
    )
  if (plan.journal?.resumed)
    notes.push(`resuming: ${found.done} done, ${found.uncertain} uncertain, ${found.toGo} to go`)
  const asked = Object.entries(settled).map(
    ([status, n]) => `${n} ${status === 'pending' ? 'not found, to send again' : status}`,
  )
  if (asked.length) notes.push(`the uncertain rows, asked of the gateway: ${asked.join(', ')}`)
  for (const earlier of plan.settled_earlier)
    notes.push(`order ${shown(earlier.mch_order_no, 64)}: ${earlierSentence(earlier)}`)
  // Rows a note or a comment holds back are said by the file's problems.
  const held = plan.file.rows.flatMap((row, i) => {
    const outcome = plan.states[i]!.outcome
    return outcome.status === 'held' && !plan.file.held.has(row.line)
      ? [{line: row.line, message: outcome.err_msg}]
      : []
  })
  if (held.length)
    notes.push(
      `${plural(held.length, 'row')} held, not sent: a refund of their order is under way or unknown outside this file; run the same command again once it is settled:\n${problemLines(held)}`,
    )
  if (problems.length)
    notes.push(`${plural(problems.length, 'problem')} in ${fileShown(csv)}:\n${problemLines(problems)}`)
  if (plan.file.truncated)
    notes.push(
      `The check stopped after ${problems.length - 1} problems; the rest of ${fileShown(csv)} was not read. Fix these first.`,
    )
  return notes
}

/** The comments read on the sheet's cells, each with what it did (held its row or the file back, or nothing). */
function commentsNote(file: BulkPlan['file']): string | undefined {
  if (!file.commentCount) return undefined
  const said = lines(file.comments, (c) => `line ${c.line}, cell ${c.cell}: ${quoted(c.text, 80)}: ${c.did}`, 20)
  const more =
    file.commentCount > file.comments.length ? `\n  ... and ${file.commentCount - file.comments.length} more` : ''
  return `${plural(file.commentCount, 'comment')} on the sheet's cells, read:\n${said}${more}`
}

/** What Ctrl-C while the orders are checked does. */
export const CHECKS_STOPPING = 'stopping the checks: nothing has been sent'

/** What Ctrl-C during sending does. */
export const STOPPING =
  'stopping: waiting for the refunds in flight (Ctrl-C again to quit at once; the journal is safe either way)'

/** "12 rows, 1,234.00 THB; 3 rows, 45.00 MYR", or "nothing". */
function toSendText(totals: readonly ToSendTotal[]): string {
  return (
    totals.map((t) => `${plural(t.rows, 'row')}, ${formatAmount(t.refund_fee, t.currency)}`).join('; ') || 'nothing'
  )
}

/** Rows whose refund number the gateway already holds: with the refund and the time they match. */
function alreadyRefunded(result: BulkResult): string[] {
  const count = rowsWith(result, 'already_refunded')
  if (!count) return []
  const line = (r: BulkRowView) =>
    `line ${r.line}: ${r.mch_refund_no} (${formatAmount(r.refund_fee, r.fee_type)}) was refunded${r.refund_time ? ` at ${r.refund_time}` : ''}${r.gw_refund_no ? ` as ${r.gw_refund_no}` : ''}${r.made_by ? ` (by ${r.made_by})` : ''}`
  return [
    `${plural(count, 'row')} already refunded, not sent again (use --batch-id for an intentional second round):`,
    lines(result.rows, line, 20, (r) => r.status === 'already_refunded'),
  ]
}

/**
 * Rows sent whose channel cannot show their outcome: each refund number to confirm on the
 * merchant platform, where a rerun cannot (it never sends that number again).
 */
function notConfirmable(result: BulkResult): string[] {
  const count = rowsWith(result, 'not_confirmable')
  if (!count) return []
  const line = (r: BulkRowView) =>
    `line ${r.line}: ${r.mch_refund_no} (${formatAmount(r.refund_fee, r.fee_type)}) of order ${shown(r.order, 32)}`
  return [
    `${plural(count, 'row')} sent, not confirmable: the gateway holds these refund numbers but the channel has no refund query to show their amount or state; confirm these on the merchant platform; running again will not change them:`,
    lines(result.rows, line, 200, (r) => r.status === 'not_confirmable'),
  ]
}

/** How many rows of the run have the status (all of them when none is given), from its summary. */
const rowsWith = (result: BulkResult, status?: RowStatus | 'would_refund') =>
  result.summary.filter((l) => status === undefined || l.status === status).reduce((n, l) => n + l.rows, 0)

/**
 * The question before sending, and the plan shown above it (on a terminal, where it is asked):
 * the plan as the dry run shows it, then what goes out. Said as test or LIVE, here and in the question.
 */
export function confirmText(
  planned: BulkResult,
  profile: {name: string; appid: string; live: boolean},
  form: OutputForm,
): {plan: string; action: string} {
  const already = rowsWith(planned, 'already_refunded')
  return {
    plan: planView(planned, profile, form).join('\n'),
    action: `send ${toSendText(planned.to_send)} of refunds from ${fileShown(planned.csv)}${already ? ` (${plural(already, 'row')} already refunded: not sent)` : ''}`,
  }
}

/** The plan for people: the file, the profile (test or LIVE), what goes out, the rows, what does not go out and why. */
function planView(
  result: BulkResult,
  profile: {name: string; appid: string; live: boolean},
  form: OutputForm,
): string[] {
  return [
    `Plan for ${fileShown(result.csv)} (profile "${profile.name}", ${profile.appid}, ${profile.live ? 'LIVE' : 'test'}):`,
    `  ${plural(rowsWith(result), 'row')}, ${plural(result.orders, 'order')}; to send: ${toSendText(result.to_send)}`,
    rowsWith(result) ? planTable(result, form) : '',
    ...orderLines(result.orders_with_several_rows),
    ...alreadyRefunded(result),
    ...notConfirmable(result),
    result.summary.length ? summaryTable(result.summary, form) : '',
  ].filter(Boolean)
}

/** The rows of a plan, as a table: the first `limit`, then how many more. */
function planTable(result: BulkResult, form: OutputForm, limit = 20): string {
  const count = rowsWith(result)
  const first: BulkRowView[] = []
  for (const row of result.rows) if (first.push(row) >= limit) break
  const cells = first.map((r) => [
    r.line,
    shown(r.order, 32),
    r.mch_refund_no,
    formatAmount(r.refund_fee, r.fee_type),
    r.status,
  ])
  const more = count > limit ? [`... and ${count - limit} more (every row is in the plan file and in --json)`] : []
  const fit = {drop: ['refund number'], whole: 'the plan file and --json'}
  return [table(['line', 'order', 'refund number', 'amount', 'status'], cells, form, fit), ...more].join('\n')
}

/** "INV-7: lines 4, 9, 12 send 150.00 THB of 200.00 THB left". */
function orderLines(orders: readonly OrderLine[]): string[] {
  if (!orders.length) return []
  const line = (o: OrderLine) =>
    `${o.order}: lines ${o.lines.join(', ')} send ${formatAmount(o.to_send_fee, o.currency)} of ${formatAmount(o.balance_fee, o.currency)} left`
  return ['Orders with several rows:', lines(orders, line, 20)]
}

function summaryTable(summary: BulkResult['summary'], form: OutputForm): string {
  const amount = (l: BulkResult['summary'][number]) =>
    l.currency === '?' ? '-' : formatAmount(l.refund_fee, l.currency)
  return table(
    ['status', 'currency', 'rows', 'amount'],
    summary.map((l) => [l.status, l.currency, l.rows, amount(l)]),
    form,
  )
}

/**
 * The command that resumes a run that did not end (stopped, a journal write failed, rows still
 * unknown, no report): `again`, the command as it was given with every flag that shaped it
 * (--column, --sheet, --skip-invalid, --rate, --profile...) and --yes, ready to paste. Undefined
 * when there is nothing to resume.
 */
export function resumeCommand(result: BulkResult, again: string): string | undefined {
  const open = result.outcome === 'unknown' || result.interrupted || result.write_failure
  return result.dry_run || !open ? undefined : again
}

/** The run for people: text for stdout, and notes for stderr. `again`: the command that resumes it, as given. */
export function bulkResultView(
  result: BulkResult,
  profile: {name: string; appid: string; live: boolean},
  again: string,
  form: OutputForm,
): {text: string; notes: string[]} {
  const count = (status: RowStatus) => rowsWith(result, status)
  if (result.dry_run) {
    const blocked = result.problems.length > 0 && result.outcome !== 'done'
    const text = [
      ...planView(result, profile, form),
      result.report ? `plan: ${fileShown(result.report)} (every row with its status, to review in a spreadsheet)` : '',
      blocked
        ? result.problems.some((p) => p.file)
          ? `Fix the problems above, then run without --dry-run (${WHOLE_FILE}).`
          : 'Fix the problems above (or add --skip-invalid), then run without --dry-run.'
        : count('held')
          ? `Nothing was sent. Run again without --dry-run to send the others; held rows (${count('held')}, above) are not sent until what holds them is settled.`
          : 'Nothing was sent. Run again without --dry-run to send.',
    ].filter(Boolean)
    const failure = result.report_failure && `The plan file could not be written (${result.report_failure}).`
    return {text: text.join('\n'), notes: failure ? [failure] : []}
  }
  const notes: string[] = []
  const journal = fileShown(result.journal)
  if (result.write_failure) {
    notes.push(
      `The journal ${journal} could not be written (${result.write_failure}): sending stopped before the next refund; ${plural(count('pending'), 'row')} not sent. Free some space, then run the same command again: ${again}`,
    )
  } else if (result.interrupted) {
    notes.push(`Interrupted: ${plural(count('pending'), 'row')} not sent. Resume with the same command: ${again}`)
  } else if (count('processing') + count('unknown') + count('held') > 0) {
    notes.push(
      `Some refunds are still processing or unknown${count('held') ? ', or held behind an earlier refund of their order' : ''}: run the same command again later to settle them: ${again}`,
    )
  } else if (result.outcome === 'not_confirmable') {
    notes.push(
      `${plural(count('not_confirmable'), 'refund')} sent, not confirmable (listed above): confirm them on the merchant platform by their refund numbers; running again will not change them.`,
    )
  }
  if (result.report_failure)
    notes.push(
      `The report could not be written (${result.report_failure}); the journal ${journal} records every refund sent.`,
    )
  if (result.history_failure)
    notes.push(
      `${result.history_failure} The journal ${journal} records every refund sent; run the same command again to settle this machine's record: ${again}`,
    )
  const kept = result.earlier_report ? ` (the earlier report was kept as ${fileShown(result.earlier_report)})` : ''
  const report = result.report ? `\nreport: ${fileShown(result.report)}${kept}` : ''
  const text = [...alreadyRefunded(result), ...notConfirmable(result), summaryTable(result.summary, form)]
  return {text: text.join('\n') + report, notes}
}
