/**
 * A bulk run's refund numbers: each planned row gets the one the file gives, the one an earlier
 * run sent it under (never a new number for a refund that may have been made), or one derived
 * from the order and amount (refund-number.ts); rows repeating an order and amount are problems
 * unless allowed. Nothing is sent here.
 */
import {formatAmount} from '../../gateway/protocol/index.js'
import {quoted} from '../../untrusted.js'
import {describeRefundProblem} from '../balance.js'
import type {RefundService} from '../service.js'
import type {RefundFile} from './refund-file.js'
import {DERIVED_FORM, deriveRefundNumber} from './refund-number.js'
import type {Problem, RowState} from './rows.js'

/** How the file's columns name the two amount forms, for messages. */
export const COLUMN_NAMES = {decimal: 'refund_amount', minor: 'refund_fee'}

/**
 * Gives each planned row its refund number: the one the file gives, the one an earlier run
 * sent it under (never a new number for a refund that may have been made), or one derived
 * from the order and amount, never one another row of this journal holds. Rows repeating an
 * order and amount are problems unless allowed.
 */
export function numberRows(
  file: RefundFile,
  states: RowState[],
  input: {allow_repeats: boolean; batch_id?: string},
  refunds: RefundService,
): Problem[] {
  const {appid} = refunds
  const problems: Problem[] = []
  // Numbers derived here differ by their order, amount and occurrence; only those sent before are to avoid.
  const taken = new Set(states.flatMap((s) => (s.sent ? [s.sent.mch_refund_no] : [])))
  const refundOf = (i: number) => states[i]!.planned ?? states[i]!.sent
  const orderOf = (i: number) => refundOf(i)!.gw_order_no ?? `mch:${states[i]!.planned?.mch_order_no ?? ''}`
  const samePair = (a: number, b: number) =>
    orderOf(a) === orderOf(b) && refundOf(a)!.refund_fee === refundOf(b)!.refund_fee
  // The rows with a refund by order and amount, each pair's rows in the file's order: an array of
  // indexes, where a map of every pair held a string and an object per row of a million.
  const indexes = Uint32Array.from(states.keys()).filter((i) => refundOf(i) !== undefined)
  indexes.sort((a, b) => {
    const [x, y] = [orderOf(a), orderOf(b)]
    return x < y ? -1 : x > y ? 1 : refundOf(a)!.refund_fee - refundOf(b)!.refund_fee || a - b
  })
  let first = 0
  let occurrence = 0
  for (const [k, i] of indexes.entries()) {
    const row = file.rows[i]!
    let state = states[i]!
    const refund = refundOf(i)!
    if (k === 0 || !samePair(indexes[k - 1]!, i)) {
      first = i
      occurrence = 0
    } else if (!input.allow_repeats && state.planned) {
      const amount = formatAmount(refund.refund_fee, refund.fee_type)
      const message = `repeats the refund of line ${file.rows[first]!.line} (the same order, ${amount}); add --allow-repeats if both are meant`
      problems.push({line: row.line, message})
    }
    const planned = state.planned
    if (!planned) continue
    const derive = (n: number) =>
      deriveRefundNumber({
        appid,
        gwOrderNo: orderOf(i),
        refundFee: refund.refund_fee,
        occurrence: n,
        batch: input.batch_id,
      })
    // The row's own number: the file's, else the next derived one that no other row has sent.
    const sentNumber = state.sent?.mch_refund_no
    let number = row.mchRefundNo
    if (!number) {
      do {
        occurrence++
        number = derive(occurrence)
      } while (number !== sentNumber && taken.has(number))
    }
    // The journal's number is used only when it is that very number: another, even one gw would
    // derive for another occurrence of this order and amount, is an edit (its refund may be made
    // under the row's own number: only a lookup of that number settles the row).
    if (sentNumber && sentNumber !== number) {
      const at = state.sent?.journal_line
      const edited = `the journal's line ${at} records refund ${quoted(sentNumber)} for line ${row.line}, whose refund number is ${quoted(number)}: edited, or another file's journal`
      state = {...state, sent: undefined, edited}
    }
    const {mch_order_no} = planned
    const reused = row.mchRefundNo && !state.sent && refunds.numberReused(mch_order_no, number, refund.refund_fee)
    if (reused) {
      problems.push({line: row.line, message: describeRefundProblem(reused, mch_order_no, COLUMN_NAMES)})
      continue
    }
    // A number of the form gw derives (a report run again carries it, whatever its --batch-id or
    // occurrence) is gw's own, whoever's machine sent it: the gateway holding it means this refund,
    // never another order's, and "give another number" would refund the customer twice.
    const derived = !row.mchRefundNo || DERIVED_FORM.test(number)
    const number_given = Boolean(row.mchRefundNo) && !derived && !state.sent && !refunds.sentHere(mch_order_no, number)
    states[i] = {...state, planned: {...planned, mch_refund_no: number, number_given}}
  }
  return problems
}
