/**
 * Where money moves: every decision between a refund's states, pure, each tested as a table
 * (test/unit/refunds/decisions.test.ts). What the gateway's refund query shows of a number; what
 * gw does after each answer to a refund it sent, and after each look at the gateway's record of
 * its number; what a refusal, a number held without a refund query, an answer that failed
 * verification and the last lookup make of it. What this machine's records may prove is
 * evidence.ts's. The services ask and record; these decide.
 *
 * The rules they keep: a refund is said made only when the gateway showed that number with that
 * amount succeed; a number the gateway already holds is looked up, never taken for this refund
 * on its word; where the gateway cannot tell, gw says so and never sends blindly.
 */
import {
  DUPLICATE_CODES,
  type RefundOrder,
  explainError,
  formatAmount,
  hasRefundQuery,
  lookupError,
  normalizeRefundState,
} from '../gateway/protocol/index.js'
import type {Refusal} from '../gateway/answers.js'
import {type RefundEntry} from '../store/records.js'
import {type Lookup, type PlannedRefund, type RefundResult, STATE_OF_LOOKUP} from './refund.js'

/**
 * A refund query's entry for a refund number (undefined: the order has no refund of that
 * number), as a refund of `refundFee`: a state is said of that refund only when the gateway
 * shows that number with that amount.
 */
export function lookupOf(entry: RefundOrder | undefined, refundFee: number): Lookup {
  if (!entry) return {state: 'absent'}
  // An entry without its amount (the gateway writes "" for what it does not have yet) proves nothing either way.
  if (entry.mch_refund_fee === undefined) return {state: 'unknown', why: 'the refund query does not show its amount'}
  if (entry.mch_refund_fee !== refundFee)
    return {state: 'other_amount', gw_refund_no: entry.gw_refund_no, refund_fee: entry.mch_refund_fee}
  const state = normalizeRefundState(entry.refund_state)
  if (state === 'SUCCESS' || state === 'PROCESSING' || state === 'FAIL') {
    return {state, gw_refund_no: entry.gw_refund_no, refund_time: entry.refund_time, refund_fee: entry.mch_refund_fee}
  }
  return {state: 'unknown', why: `the refund is in state ${entry.refund_state}`}
}

/** How the next run settles a refund sent without a known outcome: one sentence for every message that says it. */
export const howSettled = (refund: {channel: string; mch_refund_no: string}) =>
  hasRefundQuery(refund.channel)
    ? `gw looks refund ${refund.mch_refund_no} up first`
    : `gw sends refund number ${refund.mch_refund_no} again, which the gateway takes once`

// The send: after each answer, after each lookup.

/** An answer to order_refund other than its success, as the client classified it (gateway/answers.ts). */
export type SentAnswer = {status: 'refused'; code: string} | {status: 'uncertain'; code?: string; reason: string}

export interface Sending {
  /** The channel has a refund query: the gateway's record of a number can be asked. */
  canQuery: boolean
  /** Which sending of this refund the answer is to (1: the first). */
  round: number
  /** The number was given (a flag, a file) and never sent from here for this order. */
  numberGiven: boolean
}

/** What an answer that is not the refund's success makes of it. */
type AfterAnswer =
  /** The gateway refused it: nothing was made (where it can tell: `refusedResult`). */
  | {next: 'refused'}
  /** An answer gw cannot trust (its signature, or about another request), and no refund query: unknown. */
  | {next: 'unverified'}
  /** Delayed by the channel (TRADE_STATE_ERROR), no refund query: processing, to confirm on the platform. */
  | {next: 'processing'}
  /** A number the user gave is already used, and no refund query can tell by whom: failed, nothing made by this run. */
  | {next: 'number_taken'}
  /** No refund query: the gateway holds the number (sent here before, or this run's earlier round). */
  | {next: 'held'; existed: boolean}
  /** No refund query, no clear answer: the same number is sent again (the gateway takes it once). */
  | {next: 'send_again'}
  /** The gateway's record of the number decides. */
  | {next: 'look_up'; duplicate: boolean; unverified: boolean; existed: boolean}

export function afterAnswer(answer: SentAnswer, sending: Sending): AfterAnswer {
  const duplicate = answer.status === 'refused' && DUPLICATE_CODES.includes(answer.code)
  if (answer.status === 'refused' && !duplicate) return {next: 'refused'}
  const unverified =
    answer.status === 'uncertain' && (answer.reason === 'bad_signature' || answer.reason === 'not_about_request')
  // Refused as a duplicate on the first sending: the number was there before this run.
  const existed = duplicate && sending.round === 1
  if (sending.canQuery) return {next: 'look_up', duplicate, unverified, existed}
  if (unverified) return {next: 'unverified'}
  if (answer.status === 'uncertain' && answer.code === 'TRADE_STATE_ERROR') return {next: 'processing'}
  // Nothing tells whose refund the number is: the order's state would be another refund's word.
  if (existed && sending.numberGiven) return {next: 'number_taken'}
  if (duplicate || (answer.status === 'uncertain' && answer.reason === 'duplicate_on_retry'))
    return {next: 'held', existed}
  return {next: 'send_again'}
}

/** What the gateway's record of the number makes of the refund. */
type AfterLookup =
  /** The number is there with another amount: not this refund; failed. */
  | {next: 'other_amount'}
  /** Refused as a duplicate, and the order has no refund of that number: another order's number; failed. */
  | {next: 'other_order'}
  /** An untrusted answer, and the record does not settle it: unknown, never sent again. */
  | {next: 'unverified'}
  /** The record cannot be read: unknown. */
  | {next: 'unknown'}
  /** The refund did not land: the same number may be sent again. */
  | {next: 'send_again'}
  /** The record shows this refund: its state is the outcome (`settledResult`). */
  | {next: 'settled'; state: 'SUCCESS' | 'PROCESSING' | 'FAIL'}

export function afterLookup(found: Lookup, answered: {duplicate: boolean; unverified: boolean}): AfterLookup {
  if (found.state === 'other_amount') return {next: 'other_amount'}
  // After a failed verification nothing is sent again: the next run settles it by looking it up.
  if (answered.unverified && (found.state === 'unknown' || found.state === 'absent')) return {next: 'unverified'}
  if (found.state === 'unknown') return {next: 'unknown'}
  if (found.state === 'absent') return answered.duplicate ? {next: 'other_order'} : {next: 'send_again'}
  return {next: 'settled', state: found.state}
}

/** The refund, as the gateway's record of its number shows it (SUCCESS, PROCESSING or FAIL). */
export function settledResult(
  planned: PlannedRefund,
  found: Extract<Lookup, {state: 'SUCCESS' | 'PROCESSING' | 'FAIL'}>,
  existed: boolean,
): RefundResult {
  const status = STATE_OF_LOOKUP[found.state] as 'refunded' | 'processing' | 'failed'
  const {gw_refund_no, refund_time} = found
  const settled = {planned, status, gw_refund_no, refund_time, resolved_by: 'refund_query' as const}
  const facts = {...settled, already_existed: existed}
  if (status === 'refunded') return facts
  if (status === 'processing')
    return {...facts, err_code: 'TRADE_STATE_ERROR', explanation: lookupError('TRADE_STATE_ERROR')!.action}
  return {...facts, err_code: 'REFUND_FAILED', explanation: 'The channel reports the refund as failed.'}
}

/** A refund the lookup after an unclear answer shows was not made under its number (`why`: another amount, another order's). */
export const notMadeResult = (planned: PlannedRefund, code: string | undefined, why: string): RefundResult => ({
  status: 'failed',
  planned,
  err_code: code,
  explanation: explainError(code, why),
  resolved_by: 'refund_query',
})

/** Why a refund the lookup after an unclear answer shows not made under its number failed, in words. */
export function notMadeWhy(planned: PlannedRefund, looked: {next: 'other_amount' | 'other_order'}, found: Lookup) {
  if (looked.next === 'other_order') return `refund number ${planned.mch_refund_no} belongs to another order`
  const other = formatAmount((found as Extract<Lookup, {state: 'other_amount'}>).refund_fee, planned.fee_type)
  return `refund ${planned.mch_refund_no} exists at the gateway with another amount (${other})`
}

/** Delayed by the channel (TRADE_STATE_ERROR) on a channel without a refund query: processing, to confirm on the platform. */
export const delayedResult = (planned: PlannedRefund): RefundResult => ({
  status: 'processing',
  planned,
  err_code: 'TRADE_STATE_ERROR',
  explanation: `${lookupError('TRADE_STATE_ERROR')!.action} The gateway has no refund query for ${planned.channel}: confirm refund ${planned.mch_refund_no} on the merchant platform.`,
  resolved_by: 'answer',
})

/** A number the user gave, already used at the gateway, on a channel that cannot tell by whom: nothing made by this run. */
export const numberTakenResult = (planned: PlannedRefund, code: string): RefundResult => ({
  status: 'failed',
  planned,
  err_code: code,
  explanation:
    `Refund number ${planned.mch_refund_no} is already used at the gateway, by this order or another, and ` +
    `the gateway has no refund query for ${planned.channel} to tell which; gw never sent it for order ` +
    `${planned.mch_order_no}. Nothing was refunded by this run. Give another refund number, or none (gw makes one).`,
  resolved_by: 'answer',
})

/** The answers failed verification: nothing in them is used, nothing is sent again; the next run settles it. */
export const unverifiedResult = (planned: PlannedRefund, why: string): RefundResult => ({
  status: 'unknown',
  planned,
  explanation: `The answer failed verification (${why}); nothing in it was trusted, and refund ${planned.mch_refund_no} may or may not have been made. Run the same command again once the connection to the gateway is trusted: ${howSettled(planned)}.`,
  unverified: true,
  resolved_by: 'answer',
})

/** Sent, and nothing settled it (`why`): unknown, settled by the next run as `howSettled` says. */
export const unsettledResult = (planned: PlannedRefund, why: string): RefundResult => ({
  status: 'unknown',
  planned,
  explanation: `The outcome could not be settled (${why}). Run the same command again later: ${howSettled(planned)}.`,
  resolved_by: hasRefundQuery(planned.channel) ? 'refund_query' : 'resend',
})

/**
 * A refusal carries nothing of the refund it answers (2.1), so a signed refusal of another request
 * would pass for this one's: where the channel has a refund query, what the gateway shows of the
 * refund's number (`found`) decides; where it has none (`found` undefined), failed, with the check
 * on the merchant platform said.
 */
export function refusedResult(planned: PlannedRefund, refusal: Refusal, found: Lookup | undefined): RefundResult {
  const {code: err_code, message: err_msg, explanation} = refusal
  const failed: RefundResult = {status: 'failed', planned, err_code, err_msg, explanation, resolved_by: 'answer'}
  if (!found) {
    const unconfirmed = `${explanation} The gateway has no refund query for ${planned.channel} to confirm that nothing was refunded: check refund ${planned.mch_refund_no} on the merchant platform before refunding the order again.`
    return {...failed, explanation: unconfirmed}
  }
  if (found.state === 'unknown')
    return {
      status: 'unknown',
      planned,
      explanation: `The gateway refused the refund (${err_code}), but looking refund ${planned.mch_refund_no} up to confirm it did not settle it (${found.why}). Run the same command again later: gw looks it up first.`,
      resolved_by: 'refund_query',
    }
  // Not there, failed, or the number held for another amount: this refund was not made under it.
  if (found.state === 'absent' || found.state === 'other_amount' || found.state === 'FAIL') return failed
  return {
    status: STATE_OF_LOOKUP[found.state] as 'refunded' | 'processing',
    planned,
    gw_refund_no: found.gw_refund_no,
    refund_time: found.refund_time,
    resolved_by: 'refund_query',
  }
}

/** What was learned of the order of a refund whose number the gateway holds (no refund query): its state, or why not. */
export type HeldOrder = {state: string} | {stopped: true} | {error: string}

/**
 * The gateway holds this refund number (it refused it as a duplicate) and has no refund query for
 * the channel: that proves the number is held, not the refund's amount or state, and an order in
 * REFUND may owe its state to another refund. Sent, not confirmable, never refunded; but where the
 * order shows a refund succeeded and this machine saw the gateway show this very refund refunded
 * (`seen`: another run of the same rows, at the same time). The order's state is said, for the
 * merchant platform's check.
 */
export function heldResult(
  planned: PlannedRefund,
  existed: boolean,
  order: HeldOrder,
  seen: RefundEntry | undefined,
): RefundResult {
  if ('state' in order && order.state === 'REFUND' && seen)
    return {status: 'refunded', planned, gw_refund_no: seen.gw_refund_no, resolved_by: 'history', already_existed: true}
  const said =
    'stopped' in order
      ? 'the order was not queried (gw was stopped)'
      : 'error' in order
        ? `the order could not be queried (${order.error})`
        : order.state === 'REFUND'
          ? 'the order shows a refund succeeded, this one or another'
          : `the order is ${order.state}: no refund of it shows as succeeded yet`
  const explanation = `The gateway holds refund number ${planned.mch_refund_no} (it refused it as already used), but it has no refund query for ${planned.channel} to show that refund's amount and state; ${said}. Nothing more was sent. Confirm refund ${planned.mch_refund_no} on the merchant platform.`
  return {status: 'not_confirmable', planned, explanation, resolved_by: 'resend', already_existed: existed}
}
