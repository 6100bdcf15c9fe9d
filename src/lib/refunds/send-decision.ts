/**
 * Where money moves: what gw does after each answer to a refund it sent, and after each look at
 * the gateway's record of its number (refund service's send). Pure: the answer and the lookup
 * in, the next step out, so the whole table is tested as a table (test/unit/refunds/send-decision).
 *
 * The rules it keeps: a refund is said made only when the gateway showed that number with that
 * amount succeed; a number the gateway already holds is looked up, never taken for this refund
 * on its word; where the gateway cannot tell, gw says so and never sends blindly.
 */
import {DUPLICATE_CODES} from '../gateway/protocol/index.js'
import type {Lookup} from './lookup.js'

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
  /** The gateway refused it: nothing was made. */
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
  /** The record shows this refund: its state is the outcome. */
  | {next: 'settled'; state: 'SUCCESS' | 'PROCESSING' | 'FAIL'}

export function afterLookup(found: Lookup, answered: {duplicate: boolean; unverified: boolean}): AfterLookup {
  if (found.state === 'other_amount') return {next: 'other_amount'}
  // After a failed verification nothing is sent again: the next run settles it by looking it up.
  if (answered.unverified && (found.state === 'unknown' || found.state === 'absent')) return {next: 'unverified'}
  if (found.state === 'unknown') return {next: 'unknown'}
  if (found.state === 'absent') return answered.duplicate ? {next: 'other_order'} : {next: 'send_again'}
  return {next: 'settled', state: found.state}
}
