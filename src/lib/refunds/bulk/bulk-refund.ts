/**
 * Bulk refunds from a CSV: money leaving the merchant, so every row is refunded once, none
 * silently skipped, and a run killed at any moment resumes to the same end.
 *
 * 1. The whole file is checked before anything is sent; every problem names its line.
 * 2. The journal of earlier runs is read: final rows are skipped, rows sent without a known
 *    outcome are looked up by refund query.
 * 3. Preflight: each distinct order is queried once; rows on unpaid or closed orders, or
 *    adding up beyond an order's balance, are problems too.
 * 4. Each refund's intent is synced to the journal before it is sent; its outcome after.
 *    Refund numbers are fixed per row (given, or derived from appid, order, amount and the
 *    occurrence of that pair), and the gateway takes each number once, so a resend can
 *    never refund twice.
 * 5. A report lists every row with its outcome.
 */
import {createHash} from 'node:crypto'
import {basename, dirname, extname, join, resolve} from 'node:path'

import {runBatch} from '../../batch.js'
import {
  CsvWriter,
  type CsvHeader,
  type CsvRow,
  fileSha256,
  missingOrderColumn,
  orderColumnOf,
  readCsv,
} from '../../files/csv.js'
import {GwError} from '../../errors.js'
import {type FinalStatus, Journal, type OutcomeRecord, type RowHistory} from './journal.js'
import type {FoundOrder, OrderReference, OrderService} from '../../orders/service.js'
import type {Progress} from '../../cli/progress.js'
import {
  AmountError,
  CHANNELS_BY_OPERATION,
  CURRENCIES,
  ORDER_NUMBER_FIELDS,
  formatAmount,
  isCurrency,
  lookupError,
  normalizeRefundState,
  parseMinorUnits,
  toMinorUnits,
} from '../../gateway/protocol/index.js'
import {type PlannedRefund, type RefundResult, type RefundService, refundedTotal} from '../service.js'

export type RowStatus = FinalStatus | 'skipped_invalid' | 'unknown' | 'pending'

export interface Problem {
  line: number
  message: string
}

export interface RefundRow {
  line: number
  values: string[]
  ref: OrderReference
  orderKey: string
  refundFee?: number
  refundAmount?: string
  feeType?: string
  totalFee?: number
  channel?: string
  attach?: string
  mchRefundNo: string
  /** What is known of the row so far. */
  status: RowStatus
  planned?: PlannedRefund
  gw_refund_no?: string
  err_code?: string
  err_msg?: string
  advice?: string
}

export interface BulkPaths {
  csv: string
  journal: string
  report: string
}

export function defaultPaths(csv: string, journal?: string, report?: string): BulkPaths {
  const absolute = resolve(csv)
  const stem = join(dirname(absolute), basename(absolute, extname(absolute)))
  return {
    csv: absolute,
    journal: resolve(journal ?? `${stem}.journal.jsonl`),
    report: resolve(report ?? `${stem}.report.csv`),
  }
}

/** `RF` + 30 hex digits of SHA-256 over appid, order, amount and occurrence: the same file gives the same numbers. */
export function deriveRefundNumber(appid: string, orderKey: string, amountKey: string, occurrence: number): string {
  return `RF${createHash('sha256').update(`${appid}\n${orderKey}\n${amountKey}\n${occurrence}`).digest('hex').slice(0, 30).toUpperCase()}`
}

/** 50, 50.0 and 50.00 are the same amount. */
function canonicalDecimal(text: string): string {
  const [whole = '0', fraction = ''] = text.split('.')
  const trimmed = fraction.replace(/0+$/, '')
  return `${BigInt(whole)}${trimmed ? `.${trimmed}` : ''}`
}

export interface ParsedFile {
  header: CsvHeader
  rows: RefundRow[]
  problems: Problem[]
}

/** Reads and checks the whole file. Nothing is sent here. */
export async function parseRefundFile(path: string, appid: string): Promise<ParsedFile> {
  const problems: Problem[] = []
  const rows: RefundRow[] = []
  let header: CsvHeader | undefined
  const occurrences = new Map<string, number>()
  const explicitNumbers = new Map<string, number>()
  for await (const item of readCsv(path)) {
    if (!('line' in item)) {
      header = item
      const keys = header.keys
      const noOrderColumn = missingOrderColumn(header)
      if (noOrderColumn) problems.push({line: 1, message: noOrderColumn})
      if (!keys.includes('refund_fee') && !keys.includes('refund_amount'))
        problems.push({
          line: 1,
          message:
            'no amount column: the header needs refund_fee (minor units, e.g. 5000) or refund_amount (decimal, e.g. 50.00)',
        })
      const duplicates = keys.filter((k, i) => k && keys.indexOf(k) !== i)
      if (duplicates.length)
        problems.push({line: 1, message: `columns named twice: ${[...new Set(duplicates)].join(', ')}`})
      if (problems.length) break
      continue
    }
    const row = parseRow(item, header!, appid, problems, occurrences)
    if (row.status === 'skipped_invalid') {
      rows.push(row)
      continue
    }
    if (item.get('mch_refund_no')) {
      const first = explicitNumbers.get(row.mchRefundNo)
      if (first !== undefined)
        problems.push({
          line: row.line,
          message: `mch_refund_no ${row.mchRefundNo} is used again (first on line ${first}); each refund number may be used once`,
        })
      else explicitNumbers.set(row.mchRefundNo, row.line)
    }
    rows.push(row)
  }
  return {header: header!, rows, problems}
}

/** A row of the file; one with problems comes back `skipped_invalid`, to be reported, never sent. */
function parseRow(
  item: CsvRow,
  header: CsvHeader,
  appid: string,
  problems: Problem[],
  occurrences: Map<string, number>,
): RefundRow {
  const line = item.line
  const before = problems.length
  const problem = (message: string) => problems.push({line, message})
  if (item.values.length > header.names.length)
    problem(`${item.values.length} fields, but the header has ${header.names.length} columns`)
  const column = orderColumnOf(item)
  if (!column) problem(`no order number: fill one of ${ORDER_NUMBER_FIELDS.filter((c) => item.has(c)).join(', ')}`)
  for (const [name, max] of [
    ['mch_order_no', 32],
    ['gw_order_no', 32],
    ['channel_order_no', 32],
    ['mch_refund_no', 32],
    ['attach', 127],
  ] as const) {
    const value = item.get(name)
    if ([...value].length > max) problem(`${name} is ${[...value].length} characters; at most ${max} are allowed`)
  }
  const feeType = item.get('fee_type').toUpperCase() || undefined
  if (feeType && !isCurrency(feeType))
    problem(`fee_type "${item.get('fee_type')}" is not a currency the gateway takes (${CURRENCIES.join(', ')})`)
  const channel = item.get('channel').toLowerCase() || undefined
  if (channel && !CHANNELS_BY_OPERATION.order_refund.includes(channel))
    problem(
      `channel "${channel}" cannot be refunded through the API; refunds take ${CHANNELS_BY_OPERATION.order_refund.join(', ')}`,
    )
  let totalFee: number | undefined
  if (item.get('total_fee')) {
    try {
      totalFee = parseMinorUnits(item.get('total_fee'))
    } catch (error) {
      problem(`total_fee: ${(error as Error).message}`)
    }
  }
  const feeText = item.get('refund_fee')
  const amountText = item.get('refund_amount')
  let refundFee: number | undefined
  let refundAmount: string | undefined
  let amountKey = ''
  if (feeText && amountText) problem('both refund_fee and refund_amount are filled; give one')
  else if (feeText) {
    try {
      refundFee = parseMinorUnits(feeText)
      if (refundFee === 0) problem('refund_fee is zero; a refund must be above zero')
      amountKey = `fee:${refundFee}`
    } catch (error) {
      problem(`refund_fee: ${(error as AmountError).message}`)
    }
  } else if (amountText) {
    if (!/^\d+(\.\d*)?$/.test(amountText))
      problem(`refund_amount "${amountText}" is not an amount; write it like 50.00 (no sign, no thousands separators)`)
    else if (/^0*(\.0*)?$/.test(amountText)) problem('refund_amount is zero; a refund must be above zero')
    else {
      refundAmount = amountText
      amountKey = `amount:${canonicalDecimal(amountText)}`
      if (feeType && isCurrency(feeType)) {
        try {
          toMinorUnits(amountText, feeType)
        } catch (error) {
          problem(`refund_amount: ${(error as AmountError).message}`)
        }
      }
    }
  } else problem('no amount: fill refund_fee or refund_amount')
  if (problems.length > before || !column) {
    return {
      line,
      values: item.values,
      ref: {},
      orderKey: '',
      mchRefundNo: item.get('mch_refund_no'),
      status: 'skipped_invalid',
      err_msg: problems
        .slice(before)
        .map((p) => p.message)
        .join('; '),
    }
  }
  const ref: OrderReference = {[column]: item.get(column)}
  const orderKey = `${column}:${item.get(column)}`
  const pair = `${orderKey}\n${amountKey}`
  const occurrence = (occurrences.get(pair) ?? 0) + 1
  occurrences.set(pair, occurrence)
  return {
    line,
    values: item.values,
    ref,
    orderKey,
    refundFee,
    refundAmount,
    feeType,
    totalFee,
    channel,
    attach: item.get('attach') || undefined,
    mchRefundNo: item.get('mch_refund_no') || deriveRefundNumber(appid, orderKey, amountKey, occurrence),
    status: 'pending',
  }
}

/** Rounds of order queries before a network failure stops the batch (each round retries within). */
const PREFLIGHT_ROUNDS = 3

const STATUS_BY_RESULT: Record<RefundResult['status'], RowStatus> = {
  refunded: 'refunded',
  processing: 'processing',
  failed: 'failed',
  unknown: 'unknown',
}
const FINAL: readonly RowStatus[] = ['refunded', 'already_refunded', 'failed', 'processing']

export interface BulkRun {
  paths: BulkPaths
  header: CsvHeader
  rows: RefundRow[]
  problems: Problem[]
  resumed: boolean
  /** What the journal said at the start: rows already final, rows sent without a final outcome, rows never sent. */
  found: {done: number; uncertain: number; toGo: number}
  /** How the uncertain rows were settled by refund query, per status. */
  settled: Record<string, number>
  journalHeader?: {csv_file: string; csv_sha256: string; appid: string}
}

export class BulkRefunds {
  constructor(
    readonly refunds: RefundService,
    readonly orders: OrderService,
    readonly concurrency: number,
  ) {}

  get appid(): string {
    return this.refunds.appid
  }

  /**
   * Steps 1-3: everything up to sending; problems are collected, not thrown. When the file
   * itself has problems and they are not to be skipped, nothing is asked of the gateway.
   */
  async prepare(paths: BulkPaths, options: {skipInvalid: boolean}): Promise<BulkRun> {
    const parsed = await parseRefundFile(paths.csv, this.appid)
    const run: BulkRun = {
      paths,
      header: parsed.header,
      rows: parsed.rows,
      problems: parsed.problems,
      resumed: false,
      found: {done: 0, uncertain: 0, toGo: 0},
      settled: {},
    }
    if (run.problems.length && (!options.skipInvalid || run.problems.some((p) => p.line === 1))) return run
    run.journalHeader = {csv_file: basename(paths.csv), csv_sha256: await fileSha256(paths.csv), appid: this.appid}
    const {rows: history, resumed} = Journal.read(paths.journal, run.journalHeader)
    run.resumed = resumed
    const uncertain = this.#applyJournal(run.rows, history)
    run.found = {
      done: run.rows.filter((r) => FINAL.includes(r.status)).length,
      uncertain: uncertain.length,
      toGo: run.rows.filter((r) => r.status === 'pending').length,
    }

    const pending = run.rows.filter((r) => r.status === 'pending' || r.status === 'unknown')
    const byOrder = new Map<string, RefundRow[]>()
    for (const row of pending) byOrder.set(row.orderKey, [...(byOrder.get(row.orderKey) ?? []), row])
    const orders = await this.#preflight(byOrder, run.problems)

    for (const row of pending) {
      const found = orders.get(row.orderKey)
      if (!found) continue
      try {
        row.planned = await this.refunds.plan(
          {
            ref: row.ref,
            refundFee: row.refundFee,
            amount: row.refundAmount,
            mchRefundNo: row.mchRefundNo,
            feeType: row.feeType,
            totalFee: row.totalFee,
            amountNames: ['refund_amount', 'refund_fee'],
          },
          found,
          null,
        )
      } catch (error) {
        if (!(error instanceof GwError) || error.kind !== 'usage') throw error
        run.problems.push({line: row.line, message: error.message.replace(/ Nothing was sent\.$/, '')})
      }
    }
    // Rows sent before without a known outcome: the gateway's record of their number decides.
    await runBatch(
      uncertain.filter((r) => r.planned),
      async (row) => this.#settle(row, await this.refunds.lookup(row.planned!)),
      {concurrency: this.concurrency},
    )
    for (const row of uncertain) run.settled[row.status] = (run.settled[row.status] ?? 0) + 1
    await this.#checkBalances(byOrder, orders, run.problems)
    run.problems.sort((a, b) => a.line - b.line)
    // Rows with a problem are skipped; a row that may have been sent stays to be settled.
    const byLine = new Map(run.rows.map((r) => [r.line, r]))
    for (const problem of run.problems) {
      const row = byLine.get(problem.line)
      if (row?.status === 'pending') Object.assign(row, {status: 'skipped_invalid', err_msg: problem.message})
    }
    return run
  }

  #applyJournal(rows: RefundRow[], history: Map<number, RowHistory>): RefundRow[] {
    const uncertain: RefundRow[] = []
    for (const row of rows) {
      const entry = history.get(row.line)
      if (!entry) continue
      const outcome = entry.outcome
      // A processing refund is asked about again: the channel may have settled it since.
      if (
        outcome &&
        outcome.mch_refund_no === row.mchRefundNo &&
        outcome.status !== 'unknown' &&
        outcome.status !== 'processing'
      ) {
        Object.assign(row, {
          status: outcome.status,
          gw_refund_no: outcome.gw_refund_no,
          err_code: outcome.err_code,
          err_msg: outcome.err_msg,
          advice: outcome.advice,
        })
        // The amount and currency as sent, for the summary and the report.
        if (entry.intent) Object.assign(row, {refundFee: entry.intent.refund_fee, feeType: entry.intent.fee_type})
      } else if (entry.intent) {
        row.status = 'unknown'
        uncertain.push(row)
      }
    }
    return uncertain
  }

  /**
   * One order query per distinct order. An order whose query fails on the network is asked
   * again in later rounds: one flaky answer must not stop a whole batch.
   */
  async #preflight(byOrder: Map<string, RefundRow[]>, problems: Problem[]): Promise<Map<string, FoundOrder>> {
    const orders = new Map<string, FoundOrder>()
    let waiting = [...byOrder.entries()]
    for (let round = 1; waiting.length; round++) {
      const failed: [string, RefundRow[], GwError][] = []
      await runBatch(
        waiting,
        async ([key, rows]) => {
          const channels = [...new Set(rows.map((r) => r.channel).filter(Boolean))]
          if (channels.length > 1) {
            for (const row of rows)
              problems.push({
                line: row.line,
                message: `the rows of order ${key.split(':')[1]} name different channels (${channels.join(', ')})`,
              })
            return
          }
          try {
            orders.set(key, await this.orders.find(rows[0]!.ref, channels[0]))
          } catch (error) {
            if (!(error instanceof GwError)) throw error
            if (error.kind === 'refused' || error.kind === 'usage') {
              for (const row of rows) problems.push({line: row.line, message: error.message})
            } else {
              failed.push([key, rows, error])
            }
          }
        },
        {concurrency: this.concurrency},
      )
      if (failed.length && round >= PREFLIGHT_ROUNDS) throw failed[0]![2]
      if (failed.length) await new Promise((resolve) => setTimeout(resolve, 500 * round))
      waiting = failed.map(([key, rows]) => [key, rows])
    }
    return orders
  }

  /**
   * Rows of one order may not add up beyond what is left of it. The refund query that gives
   * the balance also shows rows whose number the gateway already has (a journal lost, or a
   * file run before): those are settled from it, not sent.
   */
  async #checkBalances(
    byOrder: Map<string, RefundRow[]>,
    orders: Map<string, FoundOrder>,
    problems: Problem[],
  ): Promise<void> {
    await runBatch(
      byOrder.entries(),
      async ([key, rows]) => {
        const found = orders.get(key)
        if (!found) return
        // Numbers this file already sent are likelier to be known; then one row's own number. An
        // order no refund succeeded on, of which this file sent nothing yet, has none of ours.
        const sentBefore = rows.filter((r) => r.status !== 'pending').map((r) => r.mchRefundNo)
        const fresh = sentBefore.length === 0 && found.record.result === 'SUCCESS'
        const existing = fresh
          ? []
          : await this.refunds.refundsOf(found, [...sentBefore.slice(0, 2), rows[0]!.mchRefundNo])
        for (const refund of existing ?? []) {
          const row = rows.find((r) => r.mchRefundNo === refund.mch_refund_no && r.status === 'pending')
          if (!row) continue
          const state = normalizeRefundState(refund.refund_state)
          this.#settle(
            row,
            state === 'SUCCESS' || state === 'PROCESSING' || state === 'FAIL'
              ? {state, gw_refund_no: refund.gw_refund_no}
              : {state: 'unknown', why: state},
          )
          if (row.status === 'refunded') row.status = 'already_refunded'
        }
        const toSend = rows.filter((r) => r.planned && (r.status === 'pending' || r.status === 'unknown'))
        const sum = toSend.reduce((total, r) => total + r.planned!.refund_fee, 0)
        const record = found.record
        const balance = existing === undefined ? undefined : record.total_fee! - refundedTotal(existing)
        if (balance !== undefined && sum > balance) {
          const currency = record.fee_type!
          for (const row of toSend)
            problems.push({
              line: row.line,
              message: `the rows of order ${key.split(':')[1]} add up to ${formatAmount(sum, currency)}, more than its balance of ${formatAmount(balance, currency)}`,
            })
        }
      },
      {concurrency: this.concurrency},
    )
  }

  #settle(row: RefundRow, lookup: Awaited<ReturnType<RefundService['lookup']>>): void {
    if (lookup.state === 'SUCCESS') Object.assign(row, {status: 'refunded', gw_refund_no: lookup.gw_refund_no})
    else if (lookup.state === 'PROCESSING')
      Object.assign(row, {status: 'processing', gw_refund_no: lookup.gw_refund_no})
    else if (lookup.state === 'FAIL')
      Object.assign(row, {
        status: 'failed',
        gw_refund_no: lookup.gw_refund_no,
        err_code: 'REFUND_FAILED',
        err_msg: 'the channel reports the refund as failed',
      })
    else if (lookup.state === 'absent') row.status = 'pending'
    // unknown stays unknown: sending again is safe (the gateway takes a number once) and settles it.
  }

  /** Step 4: sends every row still to go. Stops taking rows when the signal aborts. */
  async send(
    run: BulkRun,
    options: {rate?: number; signal?: AbortSignal; progress: Progress},
  ): Promise<{stopped: boolean}> {
    const journal = await Journal.open(run.paths.journal, run.journalHeader!, run.resumed)
    try {
      // Outcomes settled by lookup during prepare are recorded first.
      for (const row of run.rows) {
        if (FINAL.includes(row.status) && row.planned) await journal.append(outcomeRecord(row))
      }
      return await this.#sendAll(run, journal, options)
    } finally {
      await journal.close()
    }
  }

  async #sendAll(
    run: BulkRun,
    journal: Journal,
    options: {rate?: number; signal?: AbortSignal; progress: Progress},
  ): Promise<{stopped: boolean}> {
    const toGo = run.rows.filter((r) => r.planned && (r.status === 'pending' || r.status === 'unknown'))
    // Outcomes are queued, not awaited row by row: the journal keeps their order and its close
    // waits for them. A write that fails stops the batch.
    const outcomes: Promise<void>[] = []
    const failure = new AbortController()
    const signal = options.signal ? AbortSignal.any([options.signal, failure.signal]) : failure.signal
    await runBatch(
      toGo,
      async (row) => {
        const planned = row.planned!
        await journal.append({
          type: 'intent',
          line: row.line,
          mch_refund_no: planned.mch_refund_no,
          mch_order_no: planned.mch_order_no,
          refund_fee: planned.refund_fee,
          fee_type: planned.fee_type,
          at: new Date().toISOString(),
        })
        let sent: RefundResult
        try {
          sent = await this.refunds.send(planned)
        } catch (error) {
          sent = {status: 'unknown', planned, explanation: (error as Error).message, resolved_by: 'refund_query'}
        }
        row.status =
          sent.already_existed && sent.status === 'refunded' ? 'already_refunded' : STATUS_BY_RESULT[sent.status]
        Object.assign(row, {
          gw_refund_no: sent.gw_refund_no,
          err_code: sent.err_code,
          err_msg: sent.err_msg,
          advice: sent.status === 'failed' || sent.status === 'unknown' ? sent.explanation : undefined,
        })
        outcomes.push(
          journal.append(outcomeRecord(row)).catch((error: Error) => {
            failure.abort()
            throw error
          }),
        )
        options.progress.tick(row.status === 'failed' || row.status === 'unknown')
      },
      {concurrency: this.concurrency, rate: options.rate, signal},
    )
    await Promise.all(outcomes)
    return {stopped: Boolean(options.signal?.aborted)}
  }
}

function outcomeRecord(row: RefundRow): OutcomeRecord {
  return {
    type: 'outcome',
    line: row.line,
    mch_refund_no: row.mchRefundNo,
    status: row.status as OutcomeRecord['status'],
    gw_refund_no: row.gw_refund_no,
    err_code: row.err_code,
    err_msg: row.err_msg,
    advice: row.advice,
    at: new Date().toISOString(),
  }
}

export const REPORT_COLUMNS = [
  'status',
  'mch_refund_no',
  'gw_refund_no',
  'refund_fee',
  'err_code',
  'err_msg',
  'advice',
] as const

/** Step 5: every input row with its columns, plus what became of it. */
export async function writeReport(run: BulkRun): Promise<void> {
  const names = run.header.names
  const keys = run.header.keys
  const extra = REPORT_COLUMNS.filter((c) => !keys.includes(c))
  const writer = new CsvWriter(run.paths.report, [...names, ...extra])
  try {
    for (const row of run.rows) {
      const values = names.map((_, i) => row.values[i] ?? '')
      const ours: Record<(typeof REPORT_COLUMNS)[number], string | number | undefined> = {
        status: row.status,
        mch_refund_no: row.mchRefundNo,
        gw_refund_no: row.gw_refund_no,
        refund_fee: row.planned?.refund_fee ?? row.refundFee,
        err_code: row.err_code,
        err_msg: row.err_msg,
        advice: row.advice ?? (row.err_code ? lookupError(row.err_code)?.action : undefined),
      }
      for (const column of REPORT_COLUMNS) {
        const at = keys.indexOf(column)
        if (at !== -1) values[at] = String(ours[column] ?? '')
      }
      await writer.write([...values, ...extra.map((c) => ours[c])])
    }
    await writer.close()
  } catch (error) {
    await writer.abort()
    throw error
  }
}

export interface SummaryLine {
  status: string
  currency: string
  rows: number
  amount: number
}

export function summarize(rows: RefundRow[]): SummaryLine[] {
  const lines = new Map<string, SummaryLine>()
  for (const row of rows) {
    const currency = row.planned?.fee_type ?? row.feeType ?? '?'
    const key = `${row.status}\u0000${currency}`
    const line = lines.get(key) ?? {status: row.status, currency, rows: 0, amount: 0}
    line.rows += 1
    line.amount += row.planned?.refund_fee ?? row.refundFee ?? 0
    lines.set(key, line)
  }
  return [...lines.values()].sort((a, b) => a.status.localeCompare(b.status) || a.currency.localeCompare(b.currency))
}
