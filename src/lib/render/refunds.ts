/**
 * Refunds for people: a refund's outcome, an order's refunds, and a refund refused before
 * sending, said with "Nothing was sent" (its words are the problem's own: refunds/balance).
 */
import {type ErrorKind, GwError, type SuggestedFor, gwCommand} from '../errors.js'
import {
  type AmountNames,
  type RefundRecord,
  decimalOf,
  describeRefundState,
  formatAmount,
  hasRefundQuery,
  isoTime,
  normalizeRefundState,
  PROCESSING_WAIT,
} from '../gateway/protocol/index.js'
import type {OutputForm} from '../io/streams.js'
import type {RefundEntry} from '../store/records.js'
import {fileShown, shown} from '../untrusted.js'
import {describeRefundProblem} from '../refunds/balance.js'
import type {ListedRefund} from '../refunds/list.js'
import {type ListCounted, type ListView, listCount, listedState, noneListed, unattributedNote} from './words.js'
import {
  type EarlierRefund,
  type MadeRefund,
  type OneRefund,
  type PlannedRefund,
  type RefundResult,
  type RefusedRefund,
  outcomeOfRefund,
} from '../refunds/refund.js'
import {type RefundedElsewhere, describeRefundedElsewhere} from '../refunds/elsewhere.js'
import {describeMadeRefund} from '../refunds/single.js'
import {fields} from './fields.js'

import {listed, table} from './table.js'

/**
 * A refund as --json gives it: the refund's own facts, flat (its number, order, channel, each
 * `_fee` beside its `_amount`), the order's balance left after it (`balance_fee`) when this run
 * refunded it, as the text's "balance left" says, and whatever else the service tells of it
 * (how it was settled, what was not recorded...). Not the plan, whose balance is before it.
 */
export type RefundDocument = Omit<OneRefund, 'planned'> & {
  mch_refund_no: string
  mch_order_no: string
  gw_order_no?: string
  channel: string
  fee_type: string
  refund_fee: number
  refund_amount?: string
  total_fee: number
  total_amount?: string
  balance_fee?: number
  balance_amount?: string
}

/** What is left of the order once this refund is made: only for a refund this run made (else the gateway's balance is not known to follow). */
function balanceLeft(result: OneRefund): number | undefined {
  const p = result.planned
  if (p.balance_fee === undefined || result.status !== 'refunded' || result.already_existed) return undefined
  return p.balance_fee - p.refund_fee
}

function refundDocument(result: OneRefund): RefundDocument {
  const {planned: p, status, ...said} = result
  const amount = (fee: number | undefined) => decimalOf(fee, p.fee_type)
  const balance = balanceLeft(result)
  return {
    status,
    mch_refund_no: p.mch_refund_no,
    mch_order_no: p.mch_order_no,
    gw_order_no: p.gw_order_no,
    channel: p.channel,
    fee_type: p.fee_type,
    refund_fee: p.refund_fee,
    refund_amount: amount(p.refund_fee),
    total_fee: p.total_fee,
    total_amount: amount(p.total_fee),
    balance_fee: balance,
    balance_amount: amount(balance),
    ...said,
  }
}

function refundResultView(result: OneRefund): string {
  const p = result.planned
  const headline = {
    refunded: result.already_existed ? 'already refunded earlier under this refund number' : 'refunded',
    processing: 'processing: the channel answers later',
    failed: 'failed',
    unknown: result.unverified
      ? 'outcome unknown: the answer failed verification'
      : result.interrupted
        ? 'sent; outcome unknown (interrupted)'
        : 'outcome unknown',
    not_confirmable: 'sent, not confirmable: the gateway holds this refund number but cannot show its amount or state',
  }[result.status]
  return fields(
    [
      ['refund', p.mch_refund_no],
      ['status', headline],
      ['order', p.mch_order_no],
      ['amount', formatAmount(p.refund_fee, p.fee_type)],
      ['order total', formatAmount(p.total_fee, p.fee_type)],
      ['balance left', balanceLeft(result) === undefined ? undefined : formatAmount(balanceLeft(result), p.fee_type)],
      ['gateway refund', result.gw_refund_no],
      ['refund time', result.refund_time],
      ['detail', result.explanation],
    ],
    {boldFirst: true},
  )
}

export function refundRecordView(mchOrderNo: string, refund: RefundRecord, form: OutputForm): string {
  const summary = fields(
    [
      ['order', mchOrderNo],
      ['order total', formatAmount(refund.total_fee, refund.fee_type)],
      ['refunded', formatAmount(refund.refund_fee, refund.fee_type)],
      ['refunds', refund.refund_count ?? refund.refund_orders.length],
    ],
    {boldFirst: true},
  )
  if (refund.refund_orders.length === 0) return summary
  const rows = refund.refund_orders.map((r) => [
    r.mch_refund_no,
    formatAmount(r.mch_refund_fee, refund.fee_type),
    `${r.refund_state}: ${describeRefundState(r.refund_state)}`,
    r.refund_time ?? '',
    r.gw_refund_no ?? '',
  ])
  const processing = refund.refund_orders.some((r) => normalizeRefundState(r.refund_state) === 'PROCESSING')
  const wait = processing ? `\nPROCESSING: ${PROCESSING_WAIT}; query again then.` : ''
  return `${summary}\n${table(['refund', 'amount', 'state', 'time', 'gateway refund'], rows, form, {drop: ['gateway refund'], whole: '--json'})}${wait}`
}

/** The refunds this machine made of an order whose channel has no refund query, said to be from gw's own history. */
export function madeHereView(
  mchOrderNo: string,
  channel: string,
  made: readonly RefundEntry[],
  form: OutputForm,
): string {
  const rows = made.map((r) => [
    r.mch_refund_no,
    formatAmount(r.refund_fee, r.fee_type),
    r.status ?? 'refunded',
    isoTime(new Date(r.at)),
    r.gw_refund_no ?? '',
    shown(r.source ?? '', 40),
  ])
  return [
    `Refunds of order ${mchOrderNo} from this machine's history; the gateway has no refund query for ${channel}:`,
    table(['refund', 'amount', 'status', 'recorded', 'gateway refund', 'made by'], rows, form, {
      drop: ['made by', 'gateway refund'],
      whole: '--json',
    }),
    `Refunds made elsewhere are not listed: the merchant platform shows every refund of the order.`,
  ].join('\n')
}

/** "refund 30.00 THB of order INV-1" */
export const refundAction = (p: PlannedRefund) =>
  `refund ${formatAmount(p.refund_fee, p.fee_type)} of order ${p.mch_order_no}`

/**
 * How to check a refund later, as a command that runs as printed: a refund query where the
 * gateway has one, else the order's state (said before the command, which ends the sentence).
 */
function howToCheck(p: {mch_order_no: string; mch_refund_no: string; channel: string}, profile: SuggestedFor): string {
  return hasRefundQuery(p.channel)
    ? gwCommand(profile, 'refund', 'query', p.mch_order_no, '--mch-refund-no', p.mch_refund_no)
    : `the gateway has no refund query for ${p.channel}; the order shows REFUND once a refund succeeds: ${gwCommand(profile, 'order', 'query', p.mch_order_no)}`
}

/** "refund RF1 of 30.00 THB was made at 2026-11-21T16:30:00+07:00 (by refunds.csv)" */

/**
 * The question asked before a refund identical to one made recently: the action, and what
 * --again and looking first mean. Looking first looks at the refund that was made, never at the
 * number drawn for this attempt, which the gateway does not know.
 */
/** The question before a refund of an order refunded elsewhere: --again answers it. */
export function elsewhereQuestion(elsewhere: RefundedElsewhere, planned: PlannedRefund) {
  const options = {
    always: true,
    flag: 'again' as const,
    otherwise: 'or look at the order on the merchant platform first',
  }
  return [`${refundAction(planned)}, though ${describeRefundedElsewhere(elsewhere)}`, options] as const
}

export function identicalQuestion(made: MadeRefund, planned: PlannedRefund, profile: SuggestedFor) {
  const look = howToCheck({...planned, mch_refund_no: made.mch_refund_no}, profile)
  const options = {always: true, flag: 'again' as const, otherwise: `or look at the refund made first: ${look}`}
  return [`${refundAction(planned)} again: ${describeMadeRefund(made)}`, options] as const
}

/**
 * A refund for people: its view and notes, or the error a refusal before sending or a failed
 * refund is (of the outcome the refund service gives it). `order` and `names` say how the user
 * named the order and the amount.
 */
export function refundOutcome(
  result: OneRefund | RefusedRefund,
  order: string,
  names: AmountNames,
  profile: SuggestedFor,
): {error: GwError} | {text: string; notes: (string | undefined)[]; refund: RefundDocument} {
  const outcome = outcomeOfRefund(result)
  const earlier = result.settled_earlier?.map(earlierSentence) ?? []
  if ('kind' in result) {
    const refused = describeRefundProblem(result, order, names)
    const details = result.settled_earlier ? {settled_earlier: result.settled_earlier} : undefined
    return {error: new GwError(outcome as ErrorKind, [...earlier, `${refused} Nothing was sent.`].join(' '), {details})}
  }
  const p = result.planned
  if (result.status === 'failed') {
    const details = {err_code: result.err_code, err_msg: result.err_msg, mch_refund_no: p.mch_refund_no}
    const what = `Refund ${p.mch_refund_no} of ${formatAmount(p.refund_fee, p.fee_type)} failed`
    const settled = result.settled_earlier ? {settled_earlier: result.settled_earlier} : {}
    const message = [...earlier, `${what}: ${result.explanation}`].join(' ')
    return {error: new GwError(outcome as ErrorKind, message, {details: {...details, ...settled}})}
  }
  const asked = result.completed_earlier
    ? `Refund ${p.mch_refund_no} was sent by an earlier run whose outcome was not known; it is settled now (${result.status}). Nothing new was sent.`
    : result.sent_again
      ? `Refund ${p.mch_refund_no} was sent by an earlier run whose outcome was not known; as the same refund was asked for, it was sent again under its number, which the gateway takes once.`
      : undefined
  const later = result.status === 'processing' ? `Check it later: ${howToCheck(p, profile)}` : undefined
  return {
    text: refundResultView(result),
    notes: [...earlier, asked, later, notRecorded(result, profile)],
    refund: refundDocument(result),
  }
}

/**
 * An error that ended `gw refund create` after it settled earlier refunds of the order (a question
 * declined or stopped, a refund it could not settle): those refunds said first, as a result says them.
 */
export function endedAfterSettling(error: unknown): unknown {
  const earlier = error instanceof GwError ? (error.details?.settled_earlier as EarlierRefund[] | undefined) : undefined
  if (!earlier?.length) return error
  const {kind, message, advice, details} = error as GwError
  return new GwError(kind, [...earlier.map(earlierSentence), message].join(' '), {advice, details, cause: error})
}

/** An earlier refund of the order this command settled by looking it up, in a sentence. */
export function earlierSentence(e: EarlierRefund): string {
  const refund = `Refund ${e.mch_refund_no} of ${formatAmount(e.refund_fee, e.fee_type)}, sent earlier${e.source && e.source !== 'refund create' ? ` by ${shown(e.source, 60)}` : ''} without a known outcome,`
  const gateway = e.gw_refund_no ? ` (gateway refund ${e.gw_refund_no})` : ''
  return {
    refunded: `${refund} was made: the gateway shows it refunded${gateway}.`,
    processing: `${refund} was made and is still processing${gateway}.`,
    failed: `${refund} was not made: the gateway shows it failed.`,
    absent: `${refund} never reached the gateway: nothing was refunded under it.`,
  }[e.status]
}

/** What this machine could not record of a refund it sent (exit 5): where the record went, and what the next run does. */
function notRecorded({not_recorded: behind, planned: p}: RefundResult, profile: SuggestedFor): string | undefined {
  if (!behind) return undefined
  const where =
    behind.where === 'later'
      ? `its outcome went to ${fileShown(behind.file)}, added to the history the next time gw opens it`
      : `its outcome could not be kept anywhere on this machine; the next refund of the order looks it up first (${howToCheck(p, profile)})`
  return `Refund ${p.mch_refund_no} is not in this machine's history yet: ${behind.why} So ${where}.`
}

/** `gw refund list`: a table of the refunds, newest first, and how many. */
export function refundListView(
  refunds: readonly ListedRefund[],
  appid: string,
  counted: ListCounted,
  form: OutputForm,
): ListView {
  if (!refunds.length) return noneListed(`No refunds made on this machine for ${appid} match.`, form)
  const rows = refunds.map((r) => [
    r.made_at,
    r.mch_refund_no,
    r.mch_order_no,
    formatAmount(r.refund_fee, r.fee_type),
    r.total_fee === undefined ? '' : formatAmount(r.total_fee, r.fee_type),
    listedState(r.status, r),
    r.gw_refund_no ?? '',
    r.source ?? '',
  ])
  const head = ['made', 'refund', 'order', 'amount', 'order total', 'status', 'gateway refund', 'made by']
  const fit = {
    drop: ['made by', 'gateway refund', 'order total'],
    whole: '--json and --out',
    unwrapped: ['refund', 'order'],
  }
  return listed(head, rows, fit, form, [listCount(refunds.length, 'refund', counted, form), unattributedNote(refunds)])
}
