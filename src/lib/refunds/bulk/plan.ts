/**
 * Steps 2 and 3 of a bulk refund, up to sending: the journal of earlier runs (rows done are
 * not sent again, rows sent without a known outcome are settled), the preflight (each order
 * queried once), each row checked against its order and given its refund number (derived
 * from the order as the gateway knows it, the amount in minor units and the occurrence),
 * repeats of the same refund found, and the rows of each order checked against its balance.
 * Problems are collected, not thrown; the result is an immutable plan. Nothing is sent here.
 */
import {type Work, runBatch} from '../../batch.js'
import {stoppedError} from '../../errors.js'
import {hasRefundQuery} from '../../gateway/protocol/index.js'
import type {ClaimHolder, OrderClaim} from '../../store/claims.js'
import {describeReference, disagreement, orderKey} from '../../orders/reference.js'
import type {FoundOrder} from '../../orders/finding.js'
import {describeRefundProblem} from '../balance.js'
import {isFinal} from '../refund.js'
import type {RefundService} from '../service.js'
import {claimKeyOf} from '../single.js'
import {Journal, type JournalIdentity} from './journal.js'
import {type LineIndex, type SettledEarlier, checkOrderBalance} from './order-checks.js'
import {type CheckPace, type OrderGroup, type Preflighted, groupByOrder, preflight} from './preflight.js'
import type {RefundFile} from './refund-file.js'
import {COLUMN_NAMES, numberRows} from './numbering.js'
import {
  type OrderLine,
  type Problem,
  type RefundRow,
  type RowRequest,
  type RowState,
  isOpen,
  isToSend,
  journalCrossCheck,
  NOT_SENT,
  settleByLookup,
  stateFromJournal,
} from './rows.js'

export interface BulkPlan {
  readonly file: RefundFile
  /** Every problem, by line; the file's own and those the gateway's answers showed. */
  readonly problems: readonly Problem[]
  /** The file itself cannot be sent (header problems, or row problems without --skip-invalid). */
  readonly blocked: boolean
  /** The journal as found, when the file could be planned at all; `torn`: its last line was cut short by a crash. */
  readonly journal?: {path: string; header: JournalIdentity; resumed: boolean; torn: boolean; grown?: number}
  /** What the journal said at the start: rows already final, rows sent without a final outcome, rows never sent. */
  readonly found: {done: number; uncertain: number; toGo: number}
  /** How the uncertain rows were settled by refund query, per status. */
  readonly settled: Readonly<Record<string, number>>
  /** Per row of the file, in its order. */
  readonly states: readonly RowState[]
  /** Orders with more than one row: what their rows send against what is left of them. */
  readonly orders: readonly OrderLine[]
  /** Distinct orders of the file: rows naming one order by different numbers count once. */
  readonly distinct_orders: number
  /** The claims of the file's orders this run holds until it ends (released by whoever ends it); none for a dry run. */
  readonly claim?: OrderClaim
  /** Refunds of the file's orders sent earlier without a known outcome (not by this file), settled by looking them up. */
  readonly settled_earlier: readonly SettledEarlier[]
}

interface PlanInput {
  file: RefundFile
  journalPath: string
  identity: JournalIdentity
  skip_invalid: boolean
  allow_repeats: boolean
  /** Send the rows gw's own earlier report (the file) says failed or were not sent: a re-check sends none of them otherwise. */
  retry_failed: boolean
  batch_id?: string
  /** Refund rows of the same order and amount as a refund made in the last 7 days outside the file. */
  again?: boolean
  dry_run: boolean
  concurrency: number
  /** A phase of the checks starts: progress over `total` queries, and the signal that stops them (Ctrl-C). */
  checking(label: string, total: number): Promise<Work>
}

type Usable = RefundRow & {request: RowRequest}

function lineIndex(rows: readonly RefundRow[]): LineIndex {
  return (line) => {
    let low = 0
    let high = rows.length - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const at = rows[middle]!.line
      if (at === line) return middle
      if (at < line) low = middle + 1
      else high = middle - 1
    }
    return undefined
  }
}

export async function planBulkRefund(input: PlanInput, refunds: RefundService): Promise<BulkPlan> {
  const {file, skip_invalid: skipInvalid} = input
  const problems = [...file.problems]
  const problemOf = (line: number) =>
    problems
      .filter((p) => p.line === line)
      .map((p) => p.message)
      .join('; ')
  const states: RowState[] = file.rows.map((row) =>
    row.request ? NOT_SENT : {outcome: {status: 'skipped_invalid', err_msg: problemOf(row.line)}},
  )
  const headerBlocked = problems.some((p) => p.file || p.line === (file.header.line ?? 1)) || Boolean(file.truncated)
  // A dry run checks the usable rows even when others have problems: the plan shows them all.
  if (headerBlocked || (problems.length && !skipInvalid && !input.dry_run)) {
    // A row its note or a comment holds back is said held, not pending: the file's problem says why.
    file.rows.forEach((row, i) => {
      const held = file.held.get(row.line)
      if (row.request && held) states[i] = {outcome: {status: 'held', err_msg: held}}
    })
    const distinct_orders = new Set(file.rows.flatMap((r) => (r.request ? [orderKey(r.request.ref)] : []))).size
    return {
      file,
      problems,
      blocked: true,
      found: {done: 0, uncertain: 0, toGo: 0},
      settled: {},
      states,
      orders: [],
      distinct_orders,
      settled_earlier: [],
    }
  }
  const {rows: history, resumed, torn, grown} = Journal.read(input.journalPath, input.identity)
  file.rows.forEach((row, i) => {
    if (row.request) states[i] = stateFromJournal(row, history.get(row.line))
  })
  journalCrossCheck(file.rows, states)
  const uncertain = file.rows.map((_, i) => i).filter((i) => states[i]!.outcome.status === 'unknown')
  const found = {
    done: states.filter((s) => isFinal(s.outcome)).length,
    uncertain: uncertain.length,
    toGo: states.filter((s) => s.outcome.status === 'pending').length,
  }

  const indexOf = lineIndex(file.rows)
  const groups = groupByOrder(file.rows.filter((row, i): row is Usable => Boolean(row.request) && isOpen(states[i]!)))
  const checked = await checkRows({input, states, problems, groups, uncertain, indexOf}, refunds)
  problems.sort((a, b) => a.line - b.line)
  // Rows with a problem are skipped; a row that may have been sent stays to be settled.
  for (const problem of problems) {
    const at = indexOf(problem.line)
    if (at !== undefined && states[at]!.outcome.status === 'pending') {
      states[at] = {...states[at]!, outcome: {status: 'skipped_invalid', err_msg: problem.message}}
    }
  }
  if (!input.retry_failed) leaveOutUnsentBefore(file, states, indexOf)
  const journal = {path: input.journalPath, header: input.identity, resumed, torn, ...(grown ? {grown} : {})}
  const blocked = problems.length > 0 && !skipInvalid
  return {file, problems, blocked, journal, found, states, ...checked}
}

/**
 * gw's own report run again re-checks the batch: the rows it says failed or were not sent are
 * left out, never sent on a re-check (the customer may have been refunded another way since),
 * unless --retry-failed says so. Rows it says were sent are looked up as ever.
 */
function leaveOutUnsentBefore(file: RefundFile, states: RowState[], indexOf: LineIndex): void {
  for (const [line, status] of file.unsentBefore ?? []) {
    const at = indexOf(line)
    if (at === undefined || !isToSend(states[at]!)) continue
    const err_msg = `the report this file is says ${status}: a report run again re-checks and does not send it; add --retry-failed to send it`
    states[at] = {...states[at]!, outcome: {status: 'left_out', err_msg}}
  }
}

/** What the checks work on; states and problems are filled in. */
interface Checking {
  input: PlanInput
  states: RowState[]
  problems: Problem[]
  groups: Map<string, OrderGroup>
  uncertain: number[]
  indexOf: LineIndex
}

/** Runs one phase of the checks with its progress; Ctrl-C stops the plan, and nothing was sent. */
async function phase<T>(
  input: PlanInput,
  label: string,
  total: number,
  run: (pace: CheckPace) => Promise<T>,
): Promise<T> {
  const work = await input.checking(label, total)
  let result: T
  try {
    result = await run({
      concurrency: input.concurrency,
      signal: work.signal,
      tick: (problem) => work.progress.tick(problem),
    })
  } finally {
    work.done()
  }
  if (work.signal.aborted)
    throw stoppedError(
      work.signal.reason,
      'Interrupted while checking the orders: nothing was sent.',
      input.dry_run ? 'Run the dry run again to see the plan.' : 'Run the same command again to check and send.',
    )
  return result
}

/** The queries of the plan: every order once, then the refunds of uncertain rows and every order's balance. */
async function checkRows(
  checking: Checking,
  refunds: RefundService,
): Promise<Pick<BulkPlan, 'settled' | 'orders' | 'distinct_orders' | 'settled_earlier' | 'claim'>> {
  const {input, groups} = checking
  const preflighted = await phase(input, 'checking orders', groups.size, (pace) => preflight(groups, refunds, pace))
  // One refund of an order at a time, as a single refund takes it: the orders' claims are this
  // run's until it ends (a dry run's only long enough to see which another run holds).
  const claimed = refunds.records.claims([...preflighted.found.values()].map(claimKeyOf))
  if (input.dry_run) claimed.claim.release()
  try {
    const checked = await checkFound(checking, preflighted, claimed.refused, refunds)
    return {...checked, claim: input.dry_run ? undefined : claimed.claim}
  } catch (error) {
    if (!input.dry_run) claimed.claim.release()
    throw error
  }
}

/** The checks once the orders are known, each order claimed by this run or held by another (`refused`). */
async function checkFound(
  checking: Checking,
  preflighted: Preflighted,
  refused: ReadonlyMap<string, ClaimHolder>,
  refunds: RefundService,
): Promise<Pick<BulkPlan, 'settled' | 'orders' | 'distinct_orders' | 'settled_earlier'>> {
  const {input, states, problems, groups, uncertain, indexOf} = checking
  // One by one: a spread of a hundred thousand problems would overflow the stack.
  for (const problem of preflighted.problems) problems.push(problem)
  for (const [key, group] of groups) {
    const order = preflighted.found.get(key)
    if (!order) continue
    for (const row of group.rows) {
      const request = row.request
      const twoOrders = disagreement(request.numbers, order.record)
      if (twoOrders) {
        problems.push({line: row.line, message: twoOrders})
        continue
      }
      // The order's reference, one object for all its rows.
      const planned = refunds.plan({...request, ref: group.request.ref}, order, undefined)
      if ('kind' in planned) {
        const message = describeRefundProblem(planned, describeReference(request.ref), COLUMN_NAMES)
        problems.push({line: row.line, message})
      } else {
        const at = indexOf(row.line)!
        // The row's own refund number, else none until the numbering derives it: never one made up here.
        states[at] = {...states[at]!, planned: {...planned, mch_refund_no: row.mchRefundNo}}
      }
    }
  }
  const numbering = refunds.records.reading(() => numberRows(input.file, states, input, refunds))
  for (const problem of numbering) problems.push(problem)
  // Rows sent before without a known outcome: the gateway's record of their number decides.
  // Without a refund query for the channel, they are sent again under the same number.
  const settled: Record<string, number> = {}
  const orders: OrderLine[] = []
  const settled_earlier: SettledEarlier[] = []
  const lookups = uncertain.filter((i) => states[i]!.planned && hasRefundQuery(states[i]!.planned!.channel))
  const byOrder = sameOrders(groups, preflighted.found)
  const earlier = {repeatsMeant: Boolean(input.again || input.batch_id), settled: settled_earlier}
  const sentByFile = new Set(
    states.flatMap(({sent, outcome}) => (sent && outcome.status !== 'failed' ? [sent.mch_order_no] : [])),
  )
  const orderChecking = {states, indexOf, earlier, refused, sentByFile}
  await phase(input, 'checking refunds', lookups.length + byOrder.size, async (pace) => {
    await provenSince(input.file, states, refunds, {...pace, tick: () => {}})
    await runBatch(
      lookups,
      async (i) => {
        states[i] = settleByLookup(states[i]!, await refunds.lookup(states[i]!.planned!))
        pace.tick(false)
      },
      pace,
    )
    for (const i of uncertain) states[i] = afterLookup(states[i]!, input.file.rows[i]!, problems)
    await runBatch(
      byOrder.values(),
      async (group) => {
        const order = preflighted.found.get(orderKey(group.request.ref))
        const checked = order ? await checkOrderBalance(group, order, orderChecking, refunds) : undefined
        for (const problem of checked?.problems ?? []) problems.push(problem)
        if (checked?.line && group.rows.length > 1) orders.push(checked.line)
        pace.tick(Boolean(checked?.problems.length))
      },
      pace,
    )
  })
  for (const i of uncertain) settled[states[i]!.outcome.status] = (settled[states[i]!.outcome.status] ?? 0) + 1
  orders.sort((a, b) => a.lines[0]! - b.lines[0]!)
  const usable = input.file.rows.filter((row) => row.request)
  const identity = (row: RefundRow) => {
    const key = orderKey(row.request!.ref)
    const order = preflighted.found.get(key)
    return order ? orderIdentity(order) : key
  }
  settled_earlier.sort((a, b) => a.mch_order_no.localeCompare(b.mch_order_no))
  return {settled, orders, distinct_orders: new Set(usable.map(identity)).size, settled_earlier}
}

/**
 * Refunds the journal left not confirmable (alipay: no refund query) that this machine has seen
 * succeed since (another run of the same rows, at the same time): already refunded, where the
 * order's own state bears it out (it shows a refund succeeded); the history alone proves nothing.
 */
async function provenSince(
  file: RefundFile,
  states: RowState[],
  refunds: RefundService,
  pace: CheckPace,
): Promise<void> {
  const seen = file.rows.flatMap((row, i) => {
    const {outcome, sent} = states[i]!
    const entry = outcome.status === 'not_confirmable' && sent && row.request && refunds.seenRefunded(sent)
    return entry ? [{i, ref: row.request!.ref, entry}] : []
  })
  await runBatch(
    seen,
    async ({i, ref, entry}) => {
      const state = await refunds.order(ref).then(
        (found) => found.record.result,
        () => undefined,
      )
      if (state !== 'REFUND') return
      const facts = {gw_refund_no: entry.gw_refund_no, made_by: entry.source, settled_by: 'history' as const}
      states[i] = {...states[i]!, outcome: {status: 'already_refunded', ...facts}}
    },
    pace,
  )
}

/**
 * A row the journal cannot vouch for, after the lookup of its refund number (where the channel
 * has one): a failure it recorded stands unless the gateway showed the refund made; an edited
 * row not settled by it is a problem, and nothing is sent for it.
 */
function afterLookup(state: RowState, row: RefundRow, problems: Problem[]): RowState {
  if (!isOpen(state)) return state
  if (state.failedBefore) return {...state, outcome: state.failedBefore}
  if (state.edited)
    problems.push({
      line: row.line,
      message: `${state.edited}; nothing is sent for this row until a lookup of its refund number settles it (restore the journal, or confirm on the merchant platform and give --journal NEW-FILE)`,
    })
  return state
}

/** The order as the gateway knows it, whichever of its numbers a row gave. */
const orderIdentity = (order: FoundOrder) => `${order.record.gw_order_no ?? ''}\u0000${order.record.mch_order_no ?? ''}`

/**
 * Rows naming one order by different numbers (merchant, gateway, channel) are one order for
 * its balance: their groups are merged once the queries have shown which order each names.
 */
function sameOrders(groups: Map<string, OrderGroup>, found: Map<string, FoundOrder>): Map<string, OrderGroup> {
  const merged = new Map<string, OrderGroup>()
  for (const [key, group] of groups) {
    const order = found.get(key)
    const identity = order ? orderIdentity(order) : key
    const earlier = merged.get(identity)
    if (earlier) earlier.rows = [...earlier.rows, ...group.rows].sort((a, b) => a.line - b.line)
    else merged.set(identity, {request: group.request, rows: [...group.rows]})
  }
  return merged
}
