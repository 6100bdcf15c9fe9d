/**
 * Reconcile: the merchant's records against the gateway's, row by row. The file streams
 * through a bounded batch (memory does not grow with its size); results are written in the
 * input's order through a small reorder window (ordered-window), each row judged by classify.
 */
import {AnnotatedWriter} from '../files/annotated-output.js'
import {Tally, type TallyLine} from '../files/tally.js'
import {type TableRow, missingOrderColumn, openTable} from '../files/table.js'
import {GwError, usageError} from '../errors.js'
import type {OrderService} from '../orders/service.js'
import {refundedTotal} from '../refunds/lookup.js'
import type {RefundService} from '../refunds/service.js'
import {CLASSES, type Classification, type Verdict, classifyFailure, compare, readMerchantRow} from './classify.js'
import {mapInOrder} from './ordered-window.js'

const OUTPUT_COLUMNS = [
  'gateway_state',
  'gateway_total_fee',
  'gateway_fee_type',
  'gateway_channel',
  'time_paid',
  'refunded_total',
  'classification',
  'detail',
] as const

export type ReconciledRow = Verdict & {line: number; values: string[]}

interface ReconcileOptions {
  concurrency: number
  rate?: number
  channel?: string
  withRefunds: boolean
  onlyMismatches: boolean
  out: string
  signal?: AbortSignal
  /** Called with every row in the file's order; `written` when it went to the output (for --json and progress). */
  onRow(row: ReconciledRow, written: boolean): void
}

export interface SummaryCell {
  classification: Classification
  currency: string
  rows: number
  amount: number
}

export interface ReconcileOutcome {
  summary: SummaryCell[]
  rows: number
  written: number
  stopped: boolean
}

export class Reconciler {
  constructor(
    readonly orders: OrderService,
    readonly refunds: RefundService,
  ) {}

  async #judge(row: TableRow, options: ReconcileOptions): Promise<ReconciledRow> {
    const base = {line: row.line, values: row.values}
    const view = readMerchantRow(row, options.channel)
    if (typeof view === 'string') return {...base, classification: 'invalid_row', detail: view}
    let found
    try {
      found = await this.orders.find(view.ref, view.channel)
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      return {...base, ...classifyFailure(view, error)}
    }
    let refunded: number | undefined
    if (options.withRefunds && found.record.result === 'REFUND') {
      const refunds = await this.refunds.queries.refundsOf(found)
      refunded = refunds && refundedTotal(refunds)
    }
    return {...base, ...compare(view, found, refunded)}
  }

  /** Reconciles the file into `options.out`. Throws a usage error for an unusable file. */
  async run(file: string, options: ReconcileOptions): Promise<ReconcileOutcome> {
    const table = await openTable(file)
    const noOrderColumn = missingOrderColumn(table.header)
    if (noOrderColumn) throw usageError(`${file} line 1: ${noOrderColumn}.`)
    const writer = new AnnotatedWriter(options.out, table.header, OUTPUT_COLUMNS)
    const tally = new Tally<Classification>()
    let rows = 0
    let written = 0
    let stopped = false
    try {
      const window = Math.max(256, options.concurrency * 32)
      const judged = await mapInOrder(
        table.rows,
        (row) => this.#judge(row, options),
        async (row) => {
          rows++
          tally.add(row.classification, row.currency, row.amount)
          const kept = !options.onlyMismatches || row.classification !== 'match'
          options.onRow(row, kept)
          if (!kept) return
          await writer.write(row.values, row)
          written++
        },
        {concurrency: options.concurrency, rate: options.rate, signal: options.signal, window},
      )
      stopped = judged.stopped
      await writer.close()
    } catch (error) {
      await writer.abort()
      throw error
    }
    const summary = tally
      .lines(CLASSES)
      .map(({group, ...line}: TallyLine<Classification>) => ({classification: group, ...line}))
    return {summary, rows, written, stopped}
  }
}
