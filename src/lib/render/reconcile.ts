/** What `gw reconcile` shows: rows and amounts per class and currency, and where the output went. */
import {formatAmount} from '../gateway/protocol/index.js'
import type {ReconcileOutcome} from '../reconcile/reconcile.js'
import {table} from './table.js'

export function reconcileView(outcome: ReconcileOutcome, mismatches: number, out: string): string {
  const amount = (c: ReconcileOutcome['summary'][number]) =>
    c.currency === '?' ? '-' : formatAmount(c.amount, c.currency)
  const rows = outcome.summary.map((c) => [c.classification, c.currency, c.rows, amount(c)])
  const stopped = outcome.stopped ? ' (interrupted: the rest of the file was not checked)' : ''
  return [
    table(['classification', 'currency', 'rows', 'amount'], rows),
    `${outcome.rows} rows, ${mismatches} need a look; written to ${out}${stopped}`,
  ].join('\n')
}
