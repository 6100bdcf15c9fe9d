/** What `gw reconcile` shows: how the file is read and compared, then rows and amounts per class and currency, and where the output went. */
import {formatAmount} from '../gateway/protocol/index.js'
import type {OutputForm} from '../io/streams.js'
import type {Comparison, ReconcileInput} from '../reconcile/open.js'
import {AMOUNT_COLUMNS, type ReconcileOutcome, refundsNotKnownNote} from '../reconcile/reconcile.js'
import {
  earlierOutputNote,
  hiddenNote,
  ignoredNote,
  markNotes,
  partlyStruckNote,
  sourceNotes,
  totalsNotes,
} from './files.js'
import {table} from './table.js'
import {plural} from '../plural.js'
import {fileShown} from '../untrusted.js'

/** "order found (Invoice No); amount (Total); state (Status)". */
const comparedText = (comparisons: readonly Comparison[]) =>
  comparisons.map((c) => `${c.check} (${c.columns.join(', ')})`).join('; ')

/** Notes on stderr before the rows are read: how the file is read, what is compared from which columns, what is ignored. */
export function readingNotes(input: ReconcileInput): string[] {
  const all: Comparison['check'][] = ['order found', 'amount', 'currency', 'state']
  const missing = all.filter((check) => !input.comparisons.some((c) => c.check === check))
  const compared = `comparing: ${comparedText(input.comparisons)}${missing.length ? `; not compared: ${missing.join(', ')} (no column)` : ''}`
  const ignored = ignoredNote(input.ignored_columns, input.hints)
  const earlier = earlierOutputNote(input.table.header)
  return [
    ...sourceNotes(input.table.source),
    compared,
    ...[earlier, ignored, hiddenNote(input.table.header), input.outputNote].filter((n) => n !== undefined),
  ]
}

/** What was learned while reading: the amounts' decimal mark; and what was read but not reconciled: the totals rows. */
export const outcomeNotes = (outcome: ReconcileOutcome, input: ReconcileInput) => [
  ...markNotes(input.table.source, input.table.header),
  ...totalsNotes(outcome.totals),
  ...[partlyStruckNote(input.table.source)].filter((n) => n !== undefined),
]

export function reconcileView(outcome: ReconcileOutcome, mismatches: number, out: string, form: OutputForm): string {
  const amount = (c: ReconcileOutcome['summary'][number], minor: number | undefined) =>
    c.currency === '?' ? '-' : formatAmount(minor, c.currency)
  const fields = Object.keys(AMOUNT_COLUMNS) as (keyof typeof AMOUNT_COLUMNS)[]
  const rows = outcome.summary.map((c) => [
    c.classification,
    c.currency,
    c.rows,
    ...fields.map((field) => amount(c, c[field])),
  ])
  const stopped = outcome.stopped ? ' (interrupted: the rest of the file was not checked)' : ''
  const notKnown = refundsNotKnownNote(outcome.refunds_not_known)
  return [
    table(['classification', 'currency', 'rows', ...fields.map((field) => AMOUNT_COLUMNS[field])], rows, form),
    ...(notKnown ? [notKnown] : []),
    `compared: ${comparedText(outcome.comparisons)}`,
    `${plural(outcome.rows, 'row')}, ${mismatches} ${mismatches === 1 ? 'needs' : 'need'} a look; written to ${fileShown(out)}${stopped}`,
    ...(outcome.earlier_output ? [`the earlier output was kept as ${fileShown(outcome.earlier_output)}`] : []),
  ].join('\n')
}
