/**
 * The checks of one order of a bulk file, once the gateway has shown it: its refunds sent earlier
 * outside the file settled first (or the rows held), rows that refund again what a recent refund
 * refunded, and the rows against the order's balance. Nothing is sent here.
 */
import {GwError, isStopped} from '../../errors.js'
import {type RefundOrder, formatAmount, hasRefundQuery, isoTime} from '../../gateway/protocol/index.js'
import {describeReference} from '../../orders/reference.js'
import type {FoundOrder} from '../../orders/finding.js'
import {balanceProblem} from '../balance.js'
import {lookupOf} from '../decisions.js'
import {describeRefundedElsewhere, refundedElsewhere} from '../elsewhere.js'
import {type EarlierRefund, refundedTotal} from '../refund.js'
import type {RefundService} from '../service.js'
import {SingleRefunds, claimKeyOf, describeMadeRefund} from '../single.js'
import {type ClaimHolder, heldSentence} from '../../store/claims.js'
import type {OrderGroup} from './preflight.js'
import {
  type OrderLine,
  type Problem,
  type RefundRow,
  type RowState,
  isOpen,
  isToSend,
  numberOf,
  settleByLookup,
  succeeded,
} from './rows.js'

/** The index of a line's row: a search of the rows (in the file's order), not a map of a million lines. */
export type LineIndex = (line: number) => number | undefined

/** A refund of an order of the file sent earlier, outside the file, as the plan settled it. */
export type SettledEarlier = EarlierRefund & {mch_order_no: string}

/**
 * The order's refunds sent earlier without a known outcome, other than the file's own rows (a
 * single refund, another file's): settled by looking them up before any row of the order goes,
 * as a single refund settles them, and said. One no lookup settles holds the order's rows not
 * sent yet (held, exit 5): a new refund of an order waits for the one still unknown.
 */
async function settleEarlier(
  group: OrderGroup,
  order: FoundOrder,
  checking: OrderChecking,
  ours: ReadonlySet<string>,
  refunds: RefundService,
): Promise<void> {
  const {states, indexOf} = checking
  const hold = (outcome: {status: 'held'; err_msg: string; advice?: string}) => {
    for (const row of group.rows) {
      const state = states[indexOf(row.line)!]!
      if (state.outcome.status === 'pending' && isToSend(state)) states[indexOf(row.line)!] = {...state, outcome}
    }
  }
  // Another run refunds the order now: what it sent is still in flight, never settled from here.
  const key = claimKeyOf(order)
  const holder = checking.refused.get(key)
  if (holder) {
    const advice = 'Run the same command again once that run has ended: gw will see what it refunded.'
    return hold({status: 'held', err_msg: heldSentence(key, holder), advice})
  }
  const found: EarlierRefund[] = []
  try {
    await new SingleRefunds(refunds).settle(order, {ours}, found)
  } catch (error) {
    if (!(error instanceof GwError) || isStopped(error)) throw error
    hold({status: 'held', err_msg: error.message, advice: error.advice})
  } finally {
    const mch_order_no = order.record.mch_order_no ?? ''
    for (const refund of found) checking.earlier.settled.push({...refund, mch_order_no})
  }
}

/**
 * A row refunding what a refund of the order made in the last 7 days outside the file already
 * refunded (the same amount: a single refund, one on the merchant platform, another file's of
 * another --batch-id) is a problem unless --again or --batch-id (a second round on purpose), as a
 * single refund asks "again?". A row whose own number the gateway already holds is found made
 * before this, whichever file sent it: the same refund in any file has the same number.
 */
function identicalProblems(
  group: OrderGroup,
  existing: readonly RefundOrder[],
  checking: OrderChecking,
  ours: ReadonlySet<string>,
  refunds: RefundService,
): Problem[] {
  const {states, indexOf} = checking
  if (checking.earlier.repeatsMeant) return []
  const single = new SingleRefunds(refunds)
  const other = (number: string) => !ours.has(number)
  const named = describeReference(group.request.ref)
  // Asked once an amount: the rows of an order are many, its amounts few.
  const madeOf = new Map<number, ReturnType<SingleRefunds['identical']>>()
  return group.rows.flatMap((row) => {
    const state = states[indexOf(row.line)!]!
    if (state.outcome.status !== 'pending' || !isToSend(state)) return []
    const fee = state.planned.refund_fee
    if (!madeOf.has(fee)) madeOf.set(fee, single.identical(state.planned, existing, other))
    const made = madeOf.get(fee)
    if (!made) return []
    const message = `order ${named}: ${describeMadeRefund(made)}, the same amount as this row; add --again if this one is meant too`
    return [{line: row.line, message}]
  })
}

/**
 * The rows still to send of an order the gateway shows refunded elsewhere (refunds/elsewhere.ts):
 * a problem of each unless --again or --batch-id, as a single refund asks.
 */
function elsewhereProblems(
  group: OrderGroup,
  order: FoundOrder,
  existing: readonly RefundOrder[] | undefined,
  checking: OrderChecking,
  refunds: RefundService,
): Problem[] {
  const {states, indexOf} = checking
  if (checking.earlier.repeatsMeant) return []
  if (checking.sentByFile.has(order.record.mch_order_no ?? '')) return []
  const elsewhere = refundedElsewhere(order, refunds.records.ofOrder(order.record.mch_order_no ?? ''), existing)
  if (!elsewhere) return []
  const message = `${describeRefundedElsewhere(elsewhere)}; add --again if this row is meant too`
  return group.rows.flatMap((row) => {
    const state = states[indexOf(row.line)!]!
    return state.outcome.status === 'pending' && isToSend(state) ? [{line: row.line, message}] : []
  })
}

/**
 * What the checks of one order work on: the rows' states (filled in), and the earlier refunds
 * settled; `repeatsMeant`: --again or --batch-id, a refund identical to one made is meant.
 */
interface OrderChecking {
  states: RowState[]
  indexOf: LineIndex
  earlier: {repeatsMeant: boolean; settled: SettledEarlier[]}
  /** Orders another run holds (its claim): their rows wait. */
  refused: ReadonlyMap<string, ClaimHolder>
  /**
   * Orders this file sent a refund of (its journal's intent, not failed): refunds this machine
   * made, though the history may not hold them yet (a run killed before its records reached it).
   */
  sentByFile: ReadonlySet<string>
}

/**
 * Rows of one order may not add up beyond what is left of it. The refund query that gives
 * the balance also shows rows whose number the gateway already has (a journal lost, or a
 * file run before): those are already refunded, with the time and refund they match.
 *
 * An order the gateway shows paid in full (SUCCESS: no refund of it succeeded), of which this
 * machine knows no refund, needs no refund query: its balance is its total. A refund of it
 * still processing elsewhere is not shown then, but the gateway refuses a refund beyond the
 * balance, and takes a refund number once: money still moves once.
 */
export async function checkOrderBalance(
  group: OrderGroup,
  order: FoundOrder,
  checking: OrderChecking,
  refunds: RefundService,
): Promise<{problems: Problem[]; line?: OrderLine}> {
  const {states, indexOf} = checking
  const at = (row: RefundRow) => indexOf(row.line)!
  const numbers = group.rows.map((r) => numberOf(r, states[at(r)]!)).filter(Boolean)
  const ours = new Set(numbers)
  await settleEarlier(group, order, checking, ours, refunds)
  const knownHere = refunds.records.hasRefunds(order.record.mch_order_no ?? '')
  const paidInFull = order.record.result === 'SUCCESS' && !knownHere
  const existing = paidInFull ? [] : await refunds.refundsOf(order, numbers.slice(0, 2))
  const pendingRow = (number: string) =>
    group.rows.find((r) => numberOf(r, states[at(r)]!) === number && states[at(r)]!.outcome.status === 'pending')
  for (const refund of existing ?? []) {
    const row = pendingRow(refund.mch_refund_no)
    if (!row) continue
    const settled = settleByLookup(states[at(row)]!, lookupOf(refund, states[at(row)]!.planned?.refund_fee ?? NaN))
    const made_by = refunds.records.byNumber(refund.mch_refund_no)?.source
    const outcome = settled.outcome.status === 'already_refunded' ? {...settled.outcome, made_by} : settled.outcome
    states[at(row)] = {...settled, outcome}
  }
  // No refund query for the channel: what this machine's history holds of a row's number (sent
  // for this order and amount) is not sent again, in the dry run as in the run: a refund it saw
  // succeed is already refunded; one the gateway held without showing its state stays not confirmable.
  if (!hasRefundQuery(order.channel)) {
    for (const made of refunds.records.ofOrder(order.record.mch_order_no ?? '')) {
      // A row still to send, or sent by this file with its outcome lost: the history settles both.
      const row = group.rows.find((r) => numberOf(r, states[at(r)]!) === made.mch_refund_no && isOpen(states[at(r)]!))
      const planned = row && states[at(row)]!.planned
      if (!planned || made.refund_fee !== planned.refund_fee) continue
      const facts = {gw_refund_no: made.gw_refund_no, made_by: made.source, settled_by: 'history' as const}
      // The history is evidence: the order's own state is the gateway's word, and one that shows no refund succeeded contradicts it.
      if (made.status === 'refunded' && order.record.result !== 'REFUND') {
        const advice = `This machine's history records refund ${made.mch_refund_no} as refunded (${made.source ?? 'gw'}), but the order is ${order.record.result}: no refund of it shows as succeeded, and the gateway has no refund query for ${order.channel} to say more. It is not sent: confirm it on the merchant platform.`
        states[at(row)] = {...states[at(row)]!, outcome: {status: 'not_confirmable' as const, ...facts, advice}}
      } else if (made.status === 'refunded') {
        const refund_time = isoTime(new Date(made.at))
        states[at(row)] = {...states[at(row)]!, outcome: succeeded(states[at(row)]!, {...facts, refund_time})}
      } else if (made.status === 'not_confirmable') {
        const advice = `Sent before from this machine (${made.source ?? 'gw'}); the gateway holds the number and has no refund query for ${order.channel}: confirm it on the merchant platform. It is not sent again.`
        states[at(row)] = {...states[at(row)]!, outcome: {status: 'not_confirmable' as const, ...facts, advice}}
      }
    }
  }
  const identical = [
    ...identicalProblems(group, existing ?? [], checking, ours, refunds),
    ...elsewhereProblems(group, order, existing, checking, refunds),
  ]
  const toSend = group.rows.filter((r) => isToSend(states[at(r)]!))
  const sum = toSend.reduce((total, r) => total + states[at(r)]!.planned!.refund_fee, 0)
  const record = order.record
  if (existing === undefined || record.total_fee === undefined || !record.fee_type) return {problems: identical}
  const facts = {state: record.result, total: record.total_fee, currency: record.fee_type}
  const refunded = refundedTotal(existing)
  const named = describeReference(group.request.ref)
  const balance = facts.total - refunded
  const line = {
    order: named,
    lines: group.rows.map((r) => r.line),
    to_send_fee: sum,
    currency: facts.currency,
    balance_fee: balance,
  }
  if (!balanceProblem(facts, sum, refunded)) return {problems: identical, line}
  const amount = (minor: number) => formatAmount(minor, facts.currency)
  const message = `the rows of order ${named} add up to ${amount(sum)}, more than its balance of ${amount(balance)}`
  return {problems: [...identical, ...toSend.map((row) => ({line: row.line, message}))], line}
}
