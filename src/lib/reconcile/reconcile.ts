/**
 * Reconcile: the merchant's records against the gateway's, row by row. The file streams
 * through a bounded batch (memory does not grow with its size); results are written in the
 * input's order through a small reorder window.
 */
import {basename, dirname, extname, join, resolve} from 'node:path'

import {runBatch} from '../batch.js'
import {CsvWriter, type CsvHeader, type CsvRow, missingOrderColumn, orderColumnOf, readCsv} from '../files/csv.js'
import {GwError, usageError} from '../errors.js'
import type {FoundOrder, OrderReference, OrderService} from '../orders/service.js'
import type {Progress} from '../cli/progress.js'
import {
  AmountError,
  CURRENCIES,
  isCurrency,
  lookupError,
  parseMinorUnits,
  toMinorUnits,
} from '../gateway/protocol/index.js'
import type {RefundService} from '../refunds/service.js'
import {refundedTotal} from '../refunds/service.js'

export const CLASSES = [
  'match',
  'amount_mismatch',
  'currency_mismatch',
  'status_mismatch',
  'missing_at_gateway',
  'query_failed',
  'invalid_row',
] as const
export type Classification = (typeof CLASSES)[number]

/** The merchant's words for a state, and the gateway states each stands for. */
const MERCHANT_STATUS: Record<string, readonly string[]> = {
  paid: ['SUCCESS'],
  unpaid: ['NOTPAY', 'USERPAYING', 'PAYERROR'],
  refunded: ['REFUND'],
  closed: ['CLOSED'],
}
const GATEWAY_STATES = ['SUCCESS', 'REFUND', 'NOTPAY', 'USERPAYING', 'PAYERROR', 'CLOSED', 'PENDING', 'NOTSURE', 'FAIL']

export const OUTPUT_COLUMNS = [
  'gateway_state',
  'gateway_total_fee',
  'gateway_fee_type',
  'gateway_channel',
  'time_paid',
  'refunded_total',
  'classification',
  'detail',
] as const

export interface ReconciledRow {
  line: number
  values: string[]
  mch_order_no?: string
  classification: Classification
  detail: string
  gateway_state?: string
  gateway_total_fee?: number
  gateway_fee_type?: string
  gateway_channel?: string
  time_paid?: string
  refunded_total?: number
  /** For the summary: the gateway's amount when known, else the merchant's. */
  amount?: number
  currency?: string
}

export interface ReconcileOptions {
  concurrency: number
  rate?: number
  channel?: string
  withRefunds: boolean
  onlyMismatches: boolean
  out: string
  /** Called with every row written (for --json). */
  onRow?: (row: ReconciledRow) => void
  progress: Progress
}

export interface SummaryCell {
  classification: Classification
  currency: string
  rows: number
  amount: number
}

export function defaultReconcileOut(file: string): string {
  const absolute = resolve(file)
  return join(dirname(absolute), `${basename(absolute, extname(absolute))}.reconciled.csv`)
}

interface MerchantView {
  ref: OrderReference
  channel?: string
  totalFee?: number
  amount?: string
  feeType?: string
  status?: string
}

/** What the row says, or why it cannot be used. */
function readRow(row: CsvRow, defaultChannel: string | undefined): MerchantView | string {
  const column = orderColumnOf(row)
  if (!column) return 'no order number'
  const value = row.get(column)
  if ([...value].length > 32) return `${column} is longer than 32 characters`
  const feeType = row.get('fee_type').toUpperCase() || undefined
  if (feeType && !isCurrency(feeType)) return `fee_type "${row.get('fee_type')}" is not ${CURRENCIES.join(', ')}`
  let totalFee: number | undefined
  try {
    if (row.get('total_fee')) totalFee = parseMinorUnits(row.get('total_fee'))
  } catch (error) {
    return `total_fee: ${(error as AmountError).message}`
  }
  const amount = row.get('amount') || undefined
  if (amount !== undefined && !/^\d+(\.\d*)?$/.test(amount)) return `amount "${amount}" is not an amount like 150.50`
  const status = row.get('status') || undefined
  if (status && !MERCHANT_STATUS[status.toLowerCase()] && !GATEWAY_STATES.includes(status.toUpperCase())) {
    return `status "${status}" is not one of paid, unpaid, refunded, closed or a gateway state`
  }
  return {
    ref: {[column]: value},
    channel: row.get('channel').toLowerCase() || defaultChannel,
    totalFee,
    amount,
    feeType,
    status,
  }
}

/** The merchant's amount in minor units, when the row gives one and its currency is known. */
function merchantMinor(view: MerchantView, currency = view.feeType): number | undefined {
  if (view.totalFee !== undefined) return view.totalFee
  if (view.amount === undefined || !currency) return undefined
  return toMinorUnits(view.amount, currency)
}

function statusMatches(merchant: string, gateway: string): boolean {
  const states = MERCHANT_STATUS[merchant.toLowerCase()]
  return states ? states.includes(gateway) : merchant.toUpperCase() === gateway
}

export class Reconciler {
  constructor(
    readonly orders: OrderService,
    readonly refunds: RefundService,
  ) {}

  async #reconcileRow(row: CsvRow, options: ReconcileOptions): Promise<ReconciledRow> {
    const base = {line: row.line, values: row.values}
    const view = readRow(row, options.channel)
    if (typeof view === 'string') return {...base, classification: 'invalid_row', detail: view}
    let found: FoundOrder
    try {
      found = await this.orders.find(view.ref, view.channel)
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      let amount: number | undefined
      try {
        amount = merchantMinor(view)
      } catch (amountError) {
        return {...base, classification: 'invalid_row', detail: `amount: ${(amountError as AmountError).message}`}
      }
      const side = {mch_order_no: view.ref.mch_order_no, amount, currency: view.feeType}
      const code = error.details?.err_code as string | undefined
      if (code === 'GW_INVALID_ORDER_NO')
        return {...base, ...side, classification: 'missing_at_gateway', detail: error.message}
      const advice = code ? lookupError(code)?.action : error.advice
      return {
        ...base,
        ...side,
        classification: 'query_failed',
        detail: `${error.message}${advice && !error.message.includes(advice) ? ` ${advice}` : ''}`,
      }
    }
    return this.#compare(base, view, found, options)
  }

  async #compare(
    base: {line: number; values: string[]},
    view: MerchantView,
    found: FoundOrder,
    options: ReconcileOptions,
  ): Promise<ReconciledRow> {
    const record = found.record
    const result: ReconciledRow = {
      ...base,
      mch_order_no: record.mch_order_no ?? view.ref.mch_order_no,
      classification: 'match',
      detail: '',
      gateway_state: record.result,
      gateway_total_fee: record.total_fee,
      gateway_fee_type: record.fee_type,
      gateway_channel: found.channel,
      time_paid: record.time_end || undefined,
      amount: record.total_fee,
      currency: record.fee_type,
    }
    if (options.withRefunds && record.result === 'REFUND') {
      const refunds = await this.refunds.refundsOf(found)
      result.refunded_total = refunds && refundedTotal(refunds)
    }
    const differences: [Classification, string][] = []
    if (view.feeType && record.fee_type && view.feeType !== record.fee_type)
      differences.push(['currency_mismatch', `currency: merchant ${view.feeType}, gateway ${record.fee_type}`])
    let merchantTotal: number | undefined
    try {
      merchantTotal = merchantMinor(view, view.feeType ?? record.fee_type)
    } catch (error) {
      return {...result, classification: 'invalid_row', detail: `amount: ${(error as AmountError).message}`}
    }
    if (merchantTotal !== undefined && record.total_fee !== undefined && merchantTotal !== record.total_fee) {
      differences.push([
        'amount_mismatch',
        `amount: merchant ${merchantTotal}, gateway ${record.total_fee} (minor units)`,
      ])
    }
    if (view.status && !statusMatches(view.status, record.result)) {
      const hint =
        view.status.toLowerCase() === 'unpaid' && record.result === 'SUCCESS'
          ? ' (paid at the gateway: a missed notification?)'
          : ''
      differences.push(['status_mismatch', `status: merchant ${view.status}, gateway ${record.result}${hint}`])
    }
    if (differences.length === 0) return result
    // One class per row, the weightiest; the detail names every difference.
    const order: Classification[] = ['currency_mismatch', 'amount_mismatch', 'status_mismatch']
    differences.sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]))
    return {...result, classification: differences[0]![0], detail: differences.map((d) => d[1]).join('; ')}
  }

  /** Reconciles the file; returns the summary. Throws a usage error for an unusable file. */
  async run(
    file: string,
    options: ReconcileOptions,
  ): Promise<{header: CsvHeader; summary: SummaryCell[]; rows: number; written: number}> {
    const csv = readCsv(file)
    const first = await csv.next()
    const header = first.value as CsvHeader
    const noOrderColumn = missingOrderColumn(header)
    if (noOrderColumn) throw usageError(`${file} line 1: ${noOrderColumn}.`)
    const extra = OUTPUT_COLUMNS.filter((c) => !header.keys.includes(c))
    const writer = new CsvWriter(options.out, [...header.names, ...extra])
    const summary = new Map<string, SummaryCell>()
    let rows = 0
    let written = 0

    // Rows finish out of order; they are written in order. The window bounds memory.
    const WINDOW = Math.max(256, options.concurrency * 32)
    const done = new Map<number, ReconciledRow>()
    let nextToWrite = 0
    let sequence = 0
    let drained: (() => void) | undefined
    const flush = async () => {
      while (done.has(nextToWrite)) {
        const row = done.get(nextToWrite)!
        done.delete(nextToWrite)
        nextToWrite++
        const key = `${row.classification}\u0000${row.currency ?? '?'}`
        const cell = summary.get(key) ?? {
          classification: row.classification,
          currency: row.currency ?? '?',
          rows: 0,
          amount: 0,
        }
        cell.rows++
        cell.amount += row.amount ?? 0
        summary.set(key, cell)
        if (options.onlyMismatches && row.classification === 'match') continue
        const values = header.names.map((_, i) => row.values[i] ?? '')
        const ours: Record<(typeof OUTPUT_COLUMNS)[number], string | number | undefined> = {
          gateway_state: row.gateway_state,
          gateway_total_fee: row.gateway_total_fee,
          gateway_fee_type: row.gateway_fee_type,
          gateway_channel: row.gateway_channel,
          time_paid: row.time_paid,
          refunded_total: row.refunded_total,
          classification: row.classification,
          detail: row.detail,
        }
        for (const column of OUTPUT_COLUMNS) {
          const at = header.keys.indexOf(column)
          if (at !== -1) values[at] = String(ours[column] ?? '')
        }
        await writer.write([...values, ...extra.map((c) => ours[c])])
        written++
        options.onRow?.(row)
      }
      if (sequence - nextToWrite < WINDOW) drained?.()
    }
    const numbered = (async function* () {
      for await (const item of csv) {
        while (sequence - nextToWrite >= WINDOW) await new Promise<void>((resolveDrain) => (drained = resolveDrain))
        yield {seq: sequence++, row: item as CsvRow}
      }
    })()
    let writing = Promise.resolve()
    try {
      await runBatch(
        numbered,
        async ({seq, row}) => {
          const reconciled = await this.#reconcileRow(row, options)
          rows++
          options.progress.tick(reconciled.classification !== 'match')
          done.set(seq, reconciled)
          writing = writing.then(flush)
          await writing
        },
        {concurrency: options.concurrency, rate: options.rate},
      )
      await writing
      await writer.close()
    } catch (error) {
      await writer.abort()
      throw error
    }
    const order = (c: SummaryCell) => CLASSES.indexOf(c.classification)
    return {
      header,
      summary: [...summary.values()].sort((a, b) => order(a) - order(b) || a.currency.localeCompare(b.currency)),
      rows,
      written,
    }
  }
}
