/**
 * Reconcile: the merchant's records against the gateway's, row by row. The file is opened
 * first, and what can be compared is said (open.ts). The rows then stream through a bounded batch (memory does not grow with the
 * file); results are written in the input's order through a small reorder window
 * (ordered-window), each row judged by classify.
 */
import {AnnotatedWriter} from '../files/annotated-output.js'
import {type AuditTrail, startTrail, summarySheet} from '../files/audit.js'
import type {Cell, Money, TypedCells} from '../files/cells.js'
import {Tally, type TallyLine} from '../files/tally.js'
import {
  type ColumnCurrencies,
  type Table,
  type TableLine,
  type TableRow,
  decimalMarkOf,
  linesOf,
} from '../files/table.js'
import {fileSha256} from '../io/file-version.js'
import {GwError} from '../errors.js'
import {hasRefundQuery, isCurrency, isoTime, ORDER_NUMBER_FIELDS, PAID_ORDER_STATES} from '../gateway/protocol/index.js'
import {type NoteLine, NotesUnder} from '../files/notes.js'
import {type TotalsRow, TotalsRows, totalsVerdict} from '../files/totals.js'
import type {OrderService} from '../orders/service.js'
import {refundedTotal} from '../refunds/refund.js'
import type {RefundService} from '../refunds/service.js'
import {
  CLASSES,
  type Classification,
  type RefundedTotal,
  type Verdict,
  classifyFailure,
  compare,
  currencyOfRow,
  readMerchantRow,
} from './classify.js'
import {type Comparison, OUTPUT_COLUMNS, type ReconcileInput} from './open.js'
import {mapInOrder} from '../batch.js'
import type {StatusWords} from '../orders/status-words.js'

type ReconciledRow = Verdict & {line: number; values: string[]; typed?: TypedCells}

interface ReconcileOptions {
  /** The currency the amount column's header names, from the input (ReconcileInput). */
  currencies?: ColumnCurrencies
  /** What the file's statuses mean (gw's and POS systems' words, and --status-map). */
  statuses: StatusWords
  concurrency: number
  rate?: number
  channel?: string
  withRefunds: boolean
  onlyMismatches: boolean
  bom?: boolean
  /** gw's version, for the audit trail. */
  gw_version: string
  signal?: AbortSignal
  /** Called with every row in the file's order; `written` when it went to the output (for --json and progress). Awaited: a slow reader slows the run. */
  onRow(row: ReconciledRow, written: boolean): void | Promise<void>
}

/**
 * The amounts a summary line sums, as a settlement is read: what the gateway's orders took (paid:
 * SUCCESS or REFUND), gave back (refunded, when known) and never took (unpaid: any other state),
 * beside the merchant's (the file's); each named as docs/conventions.md names amounts.
 */
type SummedAmounts = 'paid_fee' | 'refunded_fee' | 'unpaid_fee' | 'merchant_total_fee'

/** A row's money as a settlement reads it; a refunded order whose refunds were not asked adds nothing to refunded. */
function settled(row: Verdict): Partial<Record<SummedAmounts, number>> {
  const state = row.gateway_state
  const paid = state !== undefined && PAID_ORDER_STATES.includes(state)
  return {
    paid_fee: paid ? row.gateway_total_fee : undefined,
    // A paid order the gateway shows unrefunded (SUCCESS) has refunded nothing.
    refunded_fee: state === 'SUCCESS' ? 0 : paid ? row.refunded_total : undefined,
    unpaid_fee: state !== undefined && !paid ? row.gateway_total_fee : undefined,
    merchant_total_fee: row.merchant_total_fee,
  }
}

/** A refunded order whose refunded total is not known (its refunds not asked): the summary's refunded leaves it out. */
const refundsNotKnown = (row: Verdict) => row.gateway_state === 'REFUND' && row.refunded_total === undefined

/** Rows per class and currency, with the gateway's and the file's amounts (undefined when no row of the line has one). */
export type SummaryCell = Omit<TallyLine<Classification, SummedAmounts>, 'group'> & {classification: Classification}

export interface ReconcileOutcome {
  /** Which file, account, mode, gw, user and times: the output's audit trail. */
  audit: AuditTrail
  /** Where the output an earlier run left at the same path was kept (never overwritten). */
  earlier_output: string | null
  comparisons: Comparison[]
  ignored_columns: string[]
  summary: SummaryCell[]
  rows: number
  written: number
  stopped: boolean
  /** Totals rows: reported, never queried. */
  totals: TotalsRow[]
  /** Rows of refunded orders whose refunded total is not known (--with-refunds asks): left out of refunded. */
  refunds_not_known: number
}

const money = (minor: number | undefined, currency: string | undefined): Money | undefined =>
  minor !== undefined && currency && isCurrency(currency) ? {minor, currency} : undefined

export class Reconciler {
  /** Queries the gateway answered, and transport failures before the first answer. */
  #answered = 0
  #unanswered = 0

  constructor(
    readonly orders: OrderService,
    readonly refunds: RefundService,
  ) {}

  /**
   * A gateway that answers none of the first queries is down, or the profile points nowhere:
   * the run stops (exit 3) instead of classifying every row query_failed over a good output.
   */
  #checkReachable(error: GwError, concurrency: number): void {
    if (error.kind !== 'transport' || this.#answered > 0) return
    const limit = Math.max(16, concurrency * 2)
    if (++this.#unanswered < limit) return
    throw new GwError(
      'transport',
      `The gateway answered none of the first ${limit} order queries (${error.message.replace(/\.$/, '')}): stopped, nothing was written.`,
      {
        advice: 'Check the base URL of the profile and the network (gw doctor), then run again.',
      },
    )
  }

  async #judge(row: TableRow, options: ReconcileOptions): Promise<ReconciledRow> {
    const base = {line: row.line, values: row.values, typed: row.typed}
    const view = readMerchantRow(row, options.channel, options.statuses, options.currencies)
    if (typeof view === 'string')
      return {...base, classification: 'invalid_row', detail: view, currency: currencyOfRow(row)}
    let found
    try {
      found = await this.orders.find(view.ref, view.channel)
      this.#answered++
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      if (error.kind !== 'transport') this.#answered++
      this.#checkReachable(error, options.concurrency)
      return {...base, ...classifyFailure(view, error)}
    }
    let refunded: RefundedTotal | undefined
    // The refunded total tells a partly refunded order (still `paid` to the merchant) from a fully refunded one.
    if ((options.withRefunds || view.status) && found.record.result === 'REFUND') {
      if (hasRefundQuery(found.channel)) {
        const refunds = await this.refunds.refundsOf(found, view.mchRefundNo ? [view.mchRefundNo] : [])
        refunded = refunds && {minor: refundedTotal(refunds), from: 'gateway'}
      } else {
        // No refund query for the channel (alipay): what this machine made is all gw can know, and it says so.
        // Counted as the gateway's refund query counts (succeeded or processing); one the gateway held
        // without showing its state (not confirmable) is not proven, so not counted.
        const made = this.refunds.madeHere(found).filter((r) => r.status !== 'not_confirmable')
        refunded = {minor: made.reduce((sum, r) => sum + r.refund_fee, 0), from: 'history'}
      }
    }
    return {...base, ...compare(view, found, refunded)}
  }

  /** Reconciles the opened file into `options.out`. */
  async run(input: ReconcileInput, options: ReconcileOptions): Promise<ReconcileOutcome> {
    const {table} = input
    const profile = this.refunds.profile
    const trail = startTrail(input.file, await fileSha256(input.file), profile, options.gw_version)
    const writer = await AnnotatedWriter.open(input.out, table.header, OUTPUT_COLUMNS, {
      bom: options.bom,
      delimiter: table.source.delimiter,
      decimalMark: decimalMarkOf(table.source),
      sheet: 'reconciled',
      keep: true,
      lead: ['classification', 'detail'],
    })
    const tally = new Tally<Classification, SummedAmounts>()
    let rows = 0
    let written = 0
    let notKnown = 0
    const totals = new TotalsRows(['amount', 'total_fee'])
    /** A line that is not a row, written where it was (under --only-mismatches, only a totals row that does not agree). */
    const writeLine = async (line: NotRow) => {
      if ('blank' in line) {
        if (!options.onlyMismatches) await writer.write(line.blank, {classification: 'not_a_row'})
      } else if ('note' in line) {
        if (!options.onlyMismatches)
          await writer.write(line.cells, {classification: 'not_a_row', detail: 'a note under the rows'})
      } else if (!options.onlyMismatches || line.totals.agrees === false)
        await writer.write(line.cells, {classification: 'totals', detail: totalsVerdict(line.totals)})
    }
    const lines = rowsBetweenLines(table, totals, (above) => writer.writeAbove(above, {classification: 'not_a_row'}))
    try {
      const window = Math.max(256, options.concurrency * 32)
      const judging = {...options, currencies: input.currencies}
      const judged = await mapInOrder(
        lines.rows,
        async ({row, before}) => ({row: await this.#judge(row, judging), before}),
        async ({row, before}) => {
          for (const line of before) await writeLine(line)
          rows++
          tally.add(row.classification, row.currency, settled(row))
          if (refundsNotKnown(row)) notKnown++
          const kept = !options.onlyMismatches || row.classification !== 'match'
          await options.onRow(row, kept)
          if (!kept) return
          const currency = row.gateway_fee_type
          await writer.write(row, {
            ...row,
            gateway_amount: money(row.gateway_total_fee, currency),
            refunded_amount: money(row.refunded_total, currency),
          })
          written++
        },
        {concurrency: options.concurrency, rate: options.rate, signal: options.signal, window},
      )
      if (!judged.stopped) for (const line of lines.after) await writeLine(line)
      const summary = tally.lines(CLASSES).map(({group, ...line}) => ({classification: group, ...line}))
      const {comparisons, ignored_columns} = input
      const audit = {...trail, finished: isoTime()}
      const outcome = {
        audit,
        comparisons,
        ignored_columns,
        summary,
        rows,
        written,
        stopped: judged.stopped,
        totals: totals.found,
        refunds_not_known: notKnown,
      }
      const kept = await writer.close(reconcileSummary(outcome, tally.lines(CLASSES)))
      return {...outcome, earlier_output: kept ?? null}
    } catch (error) {
      await writer.abort()
      throw error
    }
  }
}

/** A line of the file that is not a row to reconcile: blank, or a totals row (which `totals` records and checks). */
type NotRow = {blank: TableLine} | {totals: TotalsRow; cells: TableRow} | {note: NoteLine; cells: TableRow}

const NO_LINES: readonly NotRow[] = Object.freeze([])

/**
 * The rows to reconcile, each with the lines that are not rows before it, so that the output
 * lines up with the file while only rows take the batch's places and rate; `above`: each line
 * above the header, as it comes (before any row); `after`: the lines after the last row, once
 * the rows are read.
 */
function rowsBetweenLines(table: Table, totals: TotalsRows, above: (line: TableLine) => Promise<void>) {
  const after: NotRow[] = []
  const notes = new NotesUnder(['amount', 'total_fee'], ORDER_NUMBER_FIELDS)
  async function* rows(): AsyncGenerator<{row: TableRow; before: readonly NotRow[]}> {
    for await (const line of linesOf(table)) {
      if ('above' in line) await above(line.above)
      else if ('blank' in line) after.push(line)
      else if (totals.take(line.row)) after.push({totals: totals.found.at(-1)!, cells: line.row})
      else if (notes.take(line.row)) after.push({note: notes.found.at(-1)!, cells: line.row})
      else yield {row: line.row, before: after.length ? after.splice(0) : NO_LINES}
    }
  }
  return {rows: rows(), after}
}

/** The summary's amount columns: the gateway's money as a settlement reads it, then the file's. */
export const AMOUNT_COLUMNS: Record<SummedAmounts, string> = {
  paid_fee: 'paid',
  refunded_fee: 'refunded',
  unpaid_fee: 'unpaid',
  merchant_total_fee: 'your amount',
}

/** What the summary's refunded leaves out, when anything: said under the text's table and in summary.csv. */
export const refundsNotKnownNote = (rows: number) =>
  rows
    ? `${rows === 1 ? '1 refunded order' : `${rows} refunded orders`} left out of refunded: ${rows === 1 ? 'its refunds were' : 'their refunds were'} not asked (--with-refunds asks the gateway)`
    : undefined

/** The summary of the output: the audit trail, rows and amounts per class and currency, then what was compared. */
function reconcileSummary(
  outcome: Omit<ReconcileOutcome, 'earlier_output'>,
  lines: TallyLine<Classification, SummedAmounts>[],
) {
  const notes: Cell[][] = [
    [],
    ['compared', outcome.comparisons.map((c) => `${c.check} (${c.columns.join(', ')})`).join('; ')],
    ['ignored columns', outcome.ignored_columns.join(', ')],
  ]
  if (outcome.stopped) notes.push(['interrupted', 'the rest of the file was not checked'])
  const notKnown = refundsNotKnownNote(outcome.refunds_not_known)
  if (notKnown) notes.push(['refunds not known', notKnown])
  return summarySheet(outcome.audit, 'classification', lines, AMOUNT_COLUMNS, money, notes)
}
