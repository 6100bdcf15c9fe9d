/**
 * A file opened to reconcile, before any order is asked: what can be compared and from which
 * columns (a file that lets gw check nothing beyond an order's existence is refused unless that
 * is all that is asked, never a silent pass), the columns ignored, and where the output goes.
 */
import {annotatedWidth, fittedOutput, outputFor} from '../files/annotated-output.js'
import {checkOutputs} from '../files/output-paths.js'
import {columnHints} from '../files/columns.js'
import {
  type ColumnCurrencies,
  type ReadOptions,
  type Table,
  type TableHeader,
  amountHeaders,
  missingOrderColumn,
  openTable,
  unseenProblems,
} from '../files/table.js'
import {GwError, usageError} from '../errors.js'
import {ORDER_NUMBER_FIELDS} from '../gateway/protocol/index.js'
import {ORDER_LIST_COLUMNS} from '../orders/list.js'
import {quoted} from '../untrusted.js'
import {RECONCILE_FIELDS} from './classify.js'

/** The columns reconcile writes beside the file's. */
export const OUTPUT_COLUMNS = [
  'gateway_state',
  'gateway_total_fee',
  'gateway_amount',
  'gateway_fee_type',
  'gateway_channel',
  'time_paid',
  'refunded_total',
  'refunded_amount',
  'classification',
  'detail',
] as const

/** One thing reconcile checks of every row, and the columns (as the file names them) it is read from. */
export interface Comparison {
  check: 'order found' | 'amount' | 'currency' | 'state'
  columns: string[]
}

/** A file ready to reconcile: its table, where the output goes, what will be compared, what is ignored. */
export interface ReconcileInput {
  /** The file as given. */
  file: string
  table: Table
  out: string
  comparisons: Comparison[]
  ignored_columns: string[]
  /** Ignored columns that look like a field, with the --column that would read them. */
  hints: string[]
  /** Where the output goes when it is not where it was to go (a workbook too wide, written as CSV). */
  outputNote?: string
  /** The currency the amount column's header names (`Amount (MYR)`). */
  currencies: ColumnCurrencies
}

/** What each comparison is read from, among the columns the header has. */
function comparisonsOf(header: TableHeader): Comparison[] {
  const from = (...fields: string[]) =>
    fields.filter((f) => header.index.has(f)).map((f) => header.names[header.index.get(f)!]!)
  const checks: [Comparison['check'], string[]][] = [
    ['order found', from(...ORDER_NUMBER_FIELDS)],
    ['amount', from('total_fee', 'amount')],
    ['currency', from('fee_type')],
    ['state', from('status')],
  ]
  return checks.filter(([, columns]) => columns.length).map(([check, columns]) => ({check, columns}))
}

/**
 * Opens the file, says what will be compared and checks where the output goes (`out`, else
 * beside the file, as a workbook when the file is one). A usage error for a file without order
 * numbers, or one where nothing beyond existence can be compared (unless `existenceOnly`).
 */
export async function openForReconcile(
  file: string,
  options: Omit<ReadOptions, 'fields'> & {existenceOnly: boolean; out?: string},
): Promise<ReconcileInput> {
  // gw's own reconcile output and order list are files it reads back: the gateway's columns are not read.
  const outputs = [OUTPUT_COLUMNS, ORDER_LIST_COLUMNS]
  const read = {...options, fields: RECONCILE_FIELDS, required: [ORDER_NUMBER_FIELDS], outputs, amounts: ['amount']}
  const table = await openTable(file, read)
  const {header} = table
  const anyOf = [[...ORDER_NUMBER_FIELDS], ['total_fee', 'amount']]
  // A column the sheet hides is never compared silently (a stale amount would decide a match).
  const amounts = amountHeaders(table, ['amount', 'total_fee'])
  const unseen = [...unseenProblems(table, RECONCILE_FIELDS, anyOf), ...amounts.problems]
  if (unseen.length)
    throw usageError(`${file} line ${header.line ?? 1}: ${unseen.join('; ')}.`, 'Nothing was asked of the gateway.')
  const noOrderColumn = missingOrderColumn(table, RECONCILE_FIELDS)
  if (noOrderColumn) throw usageError(`${file} line ${header.line ?? 1}: ${noOrderColumn}.`)
  const comparisons = comparisonsOf(header)
  const hints = columnHints(header, RECONCILE_FIELDS, anyOf)
  // Its width is known from the header: a workbook too wide is written as CSV (or refused when named).
  const size = {columns: annotatedWidth(header, OUTPUT_COLUMNS), lines: 0, longest: 0}
  const {path: out, note} = fittedOutput(
    outputFor(file, options.out, '.reconciled', table.source.kind),
    options.out !== undefined,
    size,
  )
  const input = {
    file,
    table,
    out,
    comparisons,
    ignored_columns: header.ignored,
    hints,
    ...(note ? {outputNote: note} : {}),
    currencies: amounts.currencies,
  }
  if (comparisons.length === 1 && !options.existenceOnly) {
    const names = header.names.map((n) => quoted(n)).join(', ')
    throw new GwError(
      'usage',
      `${file}: only whether each order exists could be checked: no column of amounts (total_fee or amount), currency (fee_type) or state (status) was found among ${names}.`,
      {
        advice: `${hints.length ? `${hints.join('; ')}. ` : 'Say which column holds each, e.g. --column amount="Amount (THB)" --column status=Status. '}Or add --existence-only to check only that the orders exist.`,
        details: {comparisons, ignored_columns: header.ignored},
      },
    )
  }
  checkOutputs(file, [{flag: '--out', path: out}])
  return input
}
