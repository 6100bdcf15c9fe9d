/** What `gw refund create --from-csv` shows: the plan's notes, problems by line, the plan or the outcome, the summary. */
import {formatAmount} from '../gateway/protocol/index.js'
import type {BulkResult, ToSendTotal} from '../refunds/bulk/bulk-refund.js'
import type {BulkPlan} from '../refunds/bulk/plan.js'
import type {Problem, RowStatus} from '../refunds/bulk/rows.js'
import {table} from './table.js'

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function problemLines(problems: readonly Problem[], limit = 200): string {
  const shown = problems.slice(0, limit).map((p) => `  line ${p.line}: ${p.message}`)
  if (problems.length > limit)
    shown.push(`  ... and ${problems.length - limit} more (all are in --json and the report)`)
  return shown.join('\n')
}

/** Notes on stderr once the plan is known: a resumed journal, how uncertain rows were settled, the problems. */
export function planNotes(plan: BulkPlan, csv: string): string[] {
  const notes: string[] = []
  const {found, settled, problems} = plan
  if (plan.journal?.resumed)
    notes.push(`resuming: ${found.done} done, ${found.uncertain} uncertain, ${found.toGo} to go`)
  const asked = Object.entries(settled).map(
    ([status, n]) => `${n} ${status === 'pending' ? 'not found, to send again' : status}`,
  )
  if (asked.length) notes.push(`the uncertain rows, asked of the gateway: ${asked.join(', ')}`)
  if (problems.length) notes.push(`${plural(problems.length, 'problem')} in ${csv}:\n${problemLines(problems)}`)
  return notes
}

/** What Ctrl-C during sending does. */
export const STOPPING =
  'stopping: waiting for the refunds in flight (Ctrl-C again to quit at once; the journal is safe either way)'

/** "12 rows, 1,234.00 THB; 3 rows, 45.00 MYR", or "nothing". */
export function toSendText(totals: readonly ToSendTotal[]): string {
  return totals.map((t) => `${plural(t.rows, 'row')}, ${formatAmount(t.amount, t.currency)}`).join('; ') || 'nothing'
}

function summaryTable(lines: BulkResult['summary']): string {
  const amount = (l: BulkResult['summary'][number]) =>
    formatAmount(l.amount, l.currency === '?' ? undefined : l.currency)
  return table(
    ['status', 'currency', 'rows', 'amount'],
    lines.map((l) => [l.status, l.currency, l.rows, amount(l)]),
  )
}

/** The run for people: text for stdout, and notes for stderr. */
export function bulkResultView(
  result: BulkResult,
  profile: {name: string; appid: string; live: boolean},
): {text: string; notes: string[]} {
  const count = (status: RowStatus) => result.rows.filter((r) => r.status === status).length
  if (result.dry_run) {
    const blocked = result.problems.length > 0 && result.exit_code !== 0
    const text = [
      `Plan for ${result.csv} (profile "${profile.name}", ${profile.appid}, ${profile.live ? 'LIVE' : 'test'}):`,
      `  ${plural(result.rows.length, 'row')}, ${plural(result.orders, 'order')}; to send: ${toSendText(result.to_send)}`,
      summaryTable(result.summary),
      blocked
        ? 'Fix the problems above (or add --skip-invalid), then run without --dry-run.'
        : 'Nothing was sent. Run again without --dry-run to send.',
    ]
    return {text: text.join('\n'), notes: []}
  }
  const notes: string[] = []
  if (result.interrupted) {
    notes.push(
      `Interrupted: ${plural(count('pending'), 'row')} not sent. Resume with the same command: gw refund create --from-csv ${result.csv} --journal ${result.journal} --yes`,
    )
  } else if (result.exit_code === 5) {
    notes.push('Some refunds are still processing or unknown: run the same command again later to settle them.')
  }
  return {text: `${summaryTable(result.summary)}\nreport: ${result.report}`, notes}
}
