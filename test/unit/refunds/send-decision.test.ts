/**
 * The money decision of a refund sent (refund service's send), as a table: each answer the
 * gateway can give, on a channel with a refund query and without one, then each record of the
 * number a lookup can find.
 */
import {describe, expect, it} from 'vitest'

import {type Sending, type SentAnswer, afterAnswer, afterLookup} from '../../../src/lib/refunds/send-decision.js'
import type {Lookup} from '../../../src/lib/refunds/lookup.js'

const refused = (code: string): SentAnswer => ({status: 'refused', code})
const uncertain = (reason: string, code?: string): SentAnswer => ({status: 'uncertain', reason, code})
const first: Sending = {canQuery: true, round: 1, numberGiven: false}

describe('after an answer', () => {
  it.each<[string, SentAnswer, Sending, ReturnType<typeof afterAnswer>]>([
    // A refusal that is not about the number: nothing was made.
    ['a refusal', refused('GW_INVALID_FEE'), first, {next: 'refused'}],
    ['a refusal, no refund query', refused('GW_INVALID_FEE'), {...first, canQuery: false}, {next: 'refused'}],
    // With a refund query, everything unclear is looked up; a duplicate on the first sending existed before.
    [
      'a duplicate, first sending',
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      first,
      {next: 'look_up', duplicate: true, unverified: false, existed: true},
    ],
    [
      'a duplicate, a later sending',
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      {...first, round: 2},
      {next: 'look_up', duplicate: true, unverified: false, existed: false},
    ],
    [
      'no answer',
      uncertain('no_answer'),
      first,
      {next: 'look_up', duplicate: false, unverified: false, existed: false},
    ],
    [
      'a bad signature',
      uncertain('bad_signature'),
      first,
      {next: 'look_up', duplicate: false, unverified: true, existed: false},
    ],
    [
      'about another request',
      uncertain('not_about_request'),
      first,
      {next: 'look_up', duplicate: false, unverified: true, existed: false},
    ],
    // Without one: never trusted, never said made on the gateway's word.
    ['a bad signature, no refund query', uncertain('bad_signature'), {...first, canQuery: false}, {next: 'unverified'}],
    [
      'a delayed refund, no refund query',
      uncertain('ambiguous_code', 'TRADE_STATE_ERROR'),
      {...first, canQuery: false},
      {next: 'processing'},
    ],
    [
      'a number given, taken, no refund query',
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      {canQuery: false, round: 1, numberGiven: true},
      {next: 'number_taken'},
    ],
    [
      "gw's own number, taken, no refund query",
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      {...first, canQuery: false},
      {next: 'held', existed: true},
    ],
    [
      'taken on a later sending, no refund query',
      refused('GW_DUPLICATED_REFUND_ORDERNO'),
      {canQuery: false, round: 2, numberGiven: true},
      {next: 'held', existed: false},
    ],
    [
      'a duplicate on retry, no refund query',
      uncertain('duplicate_on_retry'),
      {...first, canQuery: false, round: 2},
      {next: 'held', existed: false},
    ],
    ['no answer, no refund query', uncertain('no_answer'), {...first, canQuery: false}, {next: 'send_again'}],
  ])('%s', (_, answer, sending, next) => {
    expect(afterAnswer(answer, sending)).toEqual(next)
  })
})

describe('after a lookup of the number', () => {
  const clear = {duplicate: false, unverified: false}
  it.each<[string, Lookup, {duplicate: boolean; unverified: boolean}, ReturnType<typeof afterLookup>]>([
    ['shown succeeded', {state: 'SUCCESS'}, clear, {next: 'settled', state: 'SUCCESS'}],
    ['shown processing', {state: 'PROCESSING'}, clear, {next: 'settled', state: 'PROCESSING'}],
    ['shown failed', {state: 'FAIL'}, clear, {next: 'settled', state: 'FAIL'}],
    // Shown by the record, an unverified answer is settled: the record is verified.
    [
      'shown succeeded after a bad signature',
      {state: 'SUCCESS'},
      {...clear, unverified: true},
      {next: 'settled', state: 'SUCCESS'},
    ],
    ['with another amount', {state: 'other_amount', refund_fee: 5}, clear, {next: 'other_amount'}],
    ['absent after no answer', {state: 'absent'}, clear, {next: 'send_again'}],
    ['absent after a duplicate', {state: 'absent'}, {...clear, duplicate: true}, {next: 'other_order'}],
    ['absent after a bad signature', {state: 'absent'}, {...clear, unverified: true}, {next: 'unverified'}],
    ['unreadable', {state: 'unknown', why: 'x'}, clear, {next: 'unknown'}],
    [
      'unreadable after a bad signature',
      {state: 'unknown', why: 'x'},
      {...clear, unverified: true},
      {next: 'unverified'},
    ],
  ])('%s', (_, found, answered, next) => {
    expect(afterLookup(found, answered)).toEqual(next)
  })
})
