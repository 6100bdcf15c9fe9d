/**
 * Steps 2 and 3 of a bulk refund, up to sending: the journal of earlier runs (rows done are
 * not sent again, rows sent without a known outcome are settled), the preflight (each order
 * queried once), each row checked against its order and given its refund number (derived
 * from the order as the gateway knows it, the amount in minor units and the occurrence),
 * repeats of the same refund found, and the rows of each order checked against its balance.
 * Problems are collected, not thrown; the result is an immutable plan. Nothing is sent here.
 */
import {runBatch} from '../../batch.js'
import {formatAmount} from '../../gateway/protocol/index.js'
import {describeReference} from '../../orders/reference.js'
import type {FoundOrder} from '../../orders/service.js'
import {describeRefundProblem} from '../../render/refunds.js'
import {balanceProblem} from '../balance.js'
import {hasRefundQuery, lookupOf, refundedTotal} from '../lookup.js'
import type {RefundService} from '../service.js'
import {type JournalHeader, Journal} from './journal.js'
import {type OrderGroup, groupByOrder, preflight} from './preflight.js'
import type {RefundFile} from './refund-file.js'
import {deriveRefundNumber} from './refund-number.js'
import {
  type Problem,
  type RefundRow,
  type RowRequest,
  type RowState,
  isFinal,
  isOpen,
  isToSend,
  numberOf,
  settleByLookup,
  stateFromJournal,
} from './rows.js'

/** How the file's columns name the two amount forms, for messages. */
const COLUMN_NAMES = {decimal: 'refund_amount', minor: 'refund_fee'}

export interface BulkPlan {
  readonly file: RefundFile
  /** Every problem, by line; the file's own and those the gateway's answers showed. */
  readonly problems: readonly Problem[]
  /** The file itself cannot be sent (header problems, or row problems without --skip-invalid). */
  readonly blocked: boolean
  /** The journal as found, when the file could be planned at all; `torn`: its last line was cut short by a crash. */
  readonly journal?: {path: string; header: JournalIdentity; resumed: boolean; torn: boolean}
  /** What the journal said at the start: rows already final, rows sent without a final outcome, rows never sent. */
  readonly found: {done: number; uncertain: number; toGo: number}
  /** How the uncertain rows were settled by refund query, per status. */
  readonly settled: Readonly<Record<string, number>>
  /** Per row of the file, in its order. */
  readonly states: readonly RowState[]
}

export type JournalIdentity = Omit<JournalHeader, 'type' | 'version' | 'created_at'>

interface PlanInput {
  file: RefundFile
  journalPath: string
  identity: JournalIdentity
  skip_invalid: boolean
  allow_repeats: boolean
  batch_id?: string
  concurrency: number
}

type Usable = RefundRow & {request: RowRequest}

export async function planBulkRefund(input: PlanInput, refunds: RefundService): Promise<BulkPlan> {
  const {file, skip_invalid: skipInvalid, concurrency} = input
  const problems = [...file.problems]
  const problemOf = (line: number) =>
    problems
      .filter((p) => p.line === line)
      .map((p) => p.message)
      .join('; ')
  const states: RowState[] = file.rows.map((row) =>
    row.request ? {outcome: {status: 'pending'}} : {outcome: {status: 'skipped_invalid', err_msg: problemOf(row.line)}},
  )
  const headerBlocked = problems.some((p) => p.line === 1) || Boolean(file.truncated)
  if (problems.length && (!skipInvalid || headerBlocked)) {
    return {file, problems, blocked: true, found: {done: 0, uncertain: 0, toGo: 0}, settled: {}, states}
  }
  const {rows: history, resumed, torn} = Journal.read(input.journalPath, input.identity)
  file.rows.forEach((row, i) => {
    if (row.request) states[i] = stateFromJournal(history.get(row.line))
  })
  const uncertain = file.rows.map((_, i) => i).filter((i) => states[i]!.outcome.status === 'unknown')
  const found = {
    done: states.filter((s) => isFinal(s.outcome)).length,
    uncertain: uncertain.length,
    toGo: states.filter((s) => s.outcome.status === 'pending').length,
  }

  const indexOf = new Map(file.rows.map((row, i) => [row.line, i]))
  const open = file.rows.filter((row, i): row is Usable => Boolean(row.request) && isOpen(states[i]!))
  const groups = groupByOrder(open)
  const preflighted = await preflight(groups, refunds.orders, concurrency)
  problems.push(...preflighted.problems)
  for (const row of open) {
    const order = preflighted.found.get(row.request.orderKey)
    if (!order) continue
    const at = indexOf.get(row.line)!
    const planned = refunds.plan(row.request, order, undefined)
    if ('kind' in planned) {
      const message = describeRefundProblem(planned, describeReference(row.request.ref), COLUMN_NAMES)
      problems.push({line: row.line, message})
    } else {
      states[at] = {...states[at]!, planned}
    }
  }
  problems.push(...numberRows(file, states, input, refunds.appid))
  // Rows sent before without a known outcome: the gateway's record of their number decides.
  // Without a refund query for the channel, they are sent again under the same number.
  const settled: Record<string, number> = {}
  await runBatch(
    uncertain.filter((i) => states[i]!.planned && hasRefundQuery(states[i]!.planned!.channel)),
    async (i) => {
      states[i] = settleByLookup(states[i]!, await refunds.lookup(states[i]!.planned!))
    },
    {concurrency},
  )
  for (const i of uncertain) settled[states[i]!.outcome.status] = (settled[states[i]!.outcome.status] ?? 0) + 1
  await runBatch(
    groups.values(),
    async (group) => {
      const order = preflighted.found.get(group.request.orderKey)
      if (order) problems.push(...(await checkOrderBalance(group, order, states, indexOf, refunds)))
    },
    {concurrency},
  )
  problems.sort((a, b) => a.line - b.line)
  // Rows with a problem are skipped; a row that may have been sent stays to be settled.
  for (const problem of problems) {
    const at = indexOf.get(problem.line)
    if (at !== undefined && states[at]!.outcome.status === 'pending') {
      states[at] = {...states[at]!, outcome: {status: 'skipped_invalid', err_msg: problem.message}}
    }
  }
  const journal = {path: input.journalPath, header: input.identity, resumed, torn}
  return {file, problems, blocked: problems.length > 0 && !skipInvalid, journal, found, settled, states}
}

/**
 * Gives each planned row its refund number: the one the file gives, the one an earlier run
 * sent it under (never a new number for a refund that may have been made), or one derived
 * from the order and amount, never one another row of this journal holds. Rows repeating an
 * order and amount are problems unless allowed.
 */
function numberRows(file: RefundFile, states: RowState[], input: PlanInput, appid: string): Problem[] {
  const problems: Problem[] = []
  const first = new Map<string, number>()
  const occurrences = new Map<string, number>()
  const taken = new Set(states.map((s) => s.sent?.mch_refund_no).filter((n): n is string => Boolean(n)))
  file.rows.forEach((row, i) => {
    const state = states[i]!
    const refund = state.planned ?? state.sent
    if (!refund) return
    const gwOrderNo = refund.gw_order_no ?? `mch:${state.planned?.mch_order_no ?? ''}`
    const pair = JSON.stringify([gwOrderNo, refund.refund_fee])
    const earlier = first.get(pair)
    if (earlier === undefined) first.set(pair, row.line)
    else if (!input.allow_repeats && state.planned) {
      const amount = formatAmount(refund.refund_fee, refund.fee_type)
      const message = `repeats the refund of line ${earlier} (the same order, ${amount}); add --allow-repeats if both are meant`
      problems.push({line: row.line, message})
    }
    if (!state.planned) return
    let number = row.mchRefundNo || state.sent?.mch_refund_no
    if (!number) {
      let occurrence = occurrences.get(pair) ?? 0
      do {
        occurrence++
        number = deriveRefundNumber({appid, gwOrderNo, refundFee: refund.refund_fee, occurrence, batch: input.batch_id})
      } while (taken.has(number))
      occurrences.set(pair, occurrence)
      taken.add(number)
    }
    states[i] = {...state, planned: {...state.planned, mch_refund_no: number}}
  })
  return problems
}

/**
 * Rows of one order may not add up beyond what is left of it. The refund query that gives
 * the balance also shows rows whose number the gateway already has (a journal lost, or a
 * file run before): those are already refunded, with the time and refund they match.
 */
async function checkOrderBalance(
  group: OrderGroup,
  order: FoundOrder,
  states: RowState[],
  indexOf: Map<number, number>,
  refunds: RefundService,
): Promise<Problem[]> {
  const at = (row: RefundRow) => indexOf.get(row.line)!
  const numbers = group.rows.map((r) => numberOf(r, states[at(r)]!)).filter(Boolean)
  const existing = await refunds.queries.refundsOf(order, numbers.slice(0, 2))
  for (const refund of existing ?? []) {
    const row = group.rows.find(
      (r) => numberOf(r, states[at(r)]!) === refund.mch_refund_no && states[at(r)]!.outcome.status === 'pending',
    )
    if (!row) continue
    const settled = settleByLookup(states[at(row)]!, lookupOf(refund))
    const made_by = refunds.history.findRefund(refunds.appid, refund.mch_refund_no)?.source
    const outcome =
      settled.outcome.status === 'refunded'
        ? {...settled.outcome, status: 'already_refunded' as const, made_by}
        : settled.outcome
    states[at(row)] = {...settled, outcome}
  }
  const toSend = group.rows.filter((r) => isToSend(states[at(r)]!))
  const sum = toSend.reduce((total, r) => total + states[at(r)]!.planned!.refund_fee, 0)
  const record = order.record
  if (existing === undefined || record.total_fee === undefined || !record.fee_type) return []
  const facts = {state: record.result, total: record.total_fee, currency: record.fee_type}
  const refunded = refundedTotal(existing)
  if (!balanceProblem(facts, sum, refunded)) return []
  const amount = (minor: number) => formatAmount(minor, facts.currency)
  const named = describeReference(group.request.ref)
  const message = `the rows of order ${named} add up to ${amount(sum)}, more than its balance of ${amount(facts.total - refunded)}`
  return toSend.map((row) => ({line: row.line, message}))
}
