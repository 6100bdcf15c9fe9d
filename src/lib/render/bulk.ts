/** What `gw refund create --from-csv` shows: problems by line, the plan, the summary. */
import type {BulkRun, Problem, SummaryLine} from '../refunds/bulk/bulk-refund.js'
import {formatAmount} from '../gateway/protocol/index.js'
import {table} from './table.js'

export function problemLines(problems: Problem[], limit = 200): string {
  const shown = problems.slice(0, limit).map((p) => `  line ${p.line}: ${p.message}`)
  if (problems.length > limit)
    shown.push(`  ... and ${problems.length - limit} more (all are in --json and the report)`)
  return shown.join('\n')
}

export function summaryTable(lines: SummaryLine[]): string {
  return table(
    ['status', 'currency', 'rows', 'amount'],
    lines.map((l) => [
      l.status,
      l.currency,
      l.rows,
      formatAmount(l.amount, l.currency === '?' ? undefined : l.currency),
    ]),
  )
}

/** Totals of the rows about to be sent, per currency: "12 rows, 1,234.00 THB; 3 rows, 45.00 MYR". */
export function toSendTotals(run: BulkRun): string {
  const totals = new Map<string, {rows: number; amount: number}>()
  for (const row of run.rows) {
    if (!row.planned || (row.status !== 'pending' && row.status !== 'unknown')) continue
    const t = totals.get(row.planned.fee_type) ?? {rows: 0, amount: 0}
    t.rows += 1
    t.amount += row.planned.refund_fee
    totals.set(row.planned.fee_type, t)
  }
  return (
    [...totals]
      .map(([currency, t]) => `${t.rows} row${t.rows === 1 ? '' : 's'}, ${formatAmount(t.amount, currency)}`)
      .join('; ') || 'nothing'
  )
}
