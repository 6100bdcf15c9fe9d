/**
 * What this machine's records may prove of a refund, and what they may not, pure, each tested as a
 * table (test/unit/refunds/decisions.test.ts): a refund number sent before for another order or
 * amount, a refund seen refunded, an identical refund made recently, a refund asked for that an
 * earlier run settled, and what settles a refund an earlier run left unknown before a new one of
 * its order goes. Local records are evidence, never proof: where the gateway can tell, it is asked.
 */
import {type RefundOrder, hasRefundQuery, isoTime, normalizeRefundState} from '../gateway/protocol/index.js'
import {type RefundEntry, isMade} from '../store/records.js'
import {
  type EarlierRefund,
  type Lookup,
  type MadeRefund,
  type PlannedRefund,
  type RefundProblem,
  type RefundResult,
  STATE_OF_LOOKUP,
} from './refund.js'

/**
 * A refund number this machine sent for another order or another amount (`first`, its record) is
 * never sent again: the gateway would refuse it as a duplicate, and a channel without a refund
 * query could not tell the two refunds apart.
 */
export function numberReused(
  first: RefundEntry | undefined,
  mchOrderNo: string,
  refundFee: number,
): RefundProblem | undefined {
  if (!first || (first.mch_order_no === mchOrderNo && first.refund_fee === refundFee)) return undefined
  return {
    kind: 'number_reused',
    mchRefundNo: first.mch_refund_no,
    order: first.mch_order_no,
    refundFee: first.refund_fee,
    currency: first.fee_type ?? '',
    at: first.at,
  }
}

/**
 * Whether the history's record of a refund number (`entry`) is this refund (number, order, amount)
 * as the gateway showed it refunded to a run of this machine. Evidence only: the caller holds it
 * against the order's state.
 */
export const isSeenRefunded = (
  entry: RefundEntry | undefined,
  planned: Pick<PlannedRefund, 'mch_order_no' | 'refund_fee'>,
): entry is RefundEntry =>
  entry?.mch_order_no === planned.mch_order_no &&
  entry.refund_fee === planned.refund_fee &&
  (entry.status === 'refunded' || entry.status === undefined)

/** How long an identical refund counts as "recent": one made within it needs --again. */
export const IDENTICAL_WINDOW_MS = 7 * 24 * 3600 * 1000

/**
 * A refund of the same order and amount made recently (since `since`), on this machine (`local`,
 * its records of the order) or, where the gateway tells, elsewhere (`gateway`, the order's refunds
 * as a refund query lists them); `isOther` says which refund numbers count. A refusal on a channel
 * without a refund query cannot be confirmed: such a refund may have been made.
 */
export function identicalRefund(
  planned: PlannedRefund,
  seen: {local: readonly RefundEntry[]; gateway: readonly RefundOrder[]; since: number},
  isOther: (mchRefundNo: string) => boolean = () => true,
): MadeRefund | undefined {
  const mayBeMade = (r: RefundEntry) =>
    isMade(r) || (r.status === 'failed' && !hasRefundQuery(r.channel ?? planned.channel))
  const local = seen.local
    .filter((r) => mayBeMade(r) && r.refund_fee === planned.refund_fee && Date.parse(r.at) >= seen.since)
    .filter((r) => isOther(r.mch_refund_no))
    .at(-1)
  if (local) return {...local, fee_type: planned.fee_type, refused: local.status === 'failed'}
  const remote = seen.gateway.find((r) => {
    const made = ['SUCCESS', 'PROCESSING'].includes(normalizeRefundState(r.refund_state))
    const at = r.refund_time
    return (
      made &&
      r.mch_refund_fee === planned.refund_fee &&
      (!at || Date.parse(at) >= seen.since) &&
      isOther(r.mch_refund_no)
    )
  })
  if (!remote) return undefined
  const {mch_refund_no, gw_refund_no} = remote
  return {
    mch_refund_no,
    gw_refund_no,
    refund_fee: planned.refund_fee,
    fee_type: planned.fee_type,
    at: remote.refund_time,
  }
}

/**
 * The refund asked for by its number, already settled by an earlier run as this machine's history
 * records it (`entry`: refunded, or not confirmable): the record is evidence, not proof. Where the
 * gateway has a refund query (`looked`: what it shows), only its SUCCESS says it again; where it
 * has none, the order's own state is the gateway's word: one that shows no refund succeeded
 * contradicts the record, which then proves nothing (not confirmable, nothing sent); else the
 * record is said again, without sending. Undefined: the refund is to be planned and sent as asked.
 */
export function knownResult(
  entry: RefundEntry,
  planned: PlannedRefund,
  order: {state: string},
  looked: Lookup | undefined,
): RefundResult | undefined {
  if (looked) {
    if (looked.state !== 'SUCCESS') return undefined
    const {gw_refund_no, refund_time} = looked
    return {status: 'refunded', planned, gw_refund_no, refund_time, resolved_by: 'refund_query', already_existed: true}
  }
  const {state} = order
  const sent = `Sent from this machine at ${isoTime(new Date(entry.at))}; the gateway has no refund query for ${planned.channel} to show refund ${entry.mch_refund_no}'s amount and state`
  const refunded = entry.status === 'refunded' && state === 'REFUND'
  const explanation = refunded
    ? undefined
    : state === 'REFUND'
      ? `${sent}, and the order shows a refund succeeded, this one or another. Nothing was sent again. Confirm it on the merchant platform.`
      : `${sent}, and the order is ${state}: no refund of it shows as succeeded${entry.status === 'refunded' ? `, though this machine's history records this one as refunded` : ''}. Nothing was sent again. Confirm it on the merchant platform.`
  return {
    status: refunded ? 'refunded' : 'not_confirmable',
    planned,
    gw_refund_no: entry.gw_refund_no,
    explanation,
    resolved_by: 'history',
    already_existed: true,
  }
}

// A refund an earlier run left unknown, as a new refund of its order settles it first.

/**
 * What settles a refund of the order that an earlier run sent without a known outcome, before a new
 * refund of the order goes; nothing is sent unasked. `theOneAsked`: it is the very refund this
 * command asks for (the same amount, and number when one is given); `looked`: what the gateway's
 * refund query shows of it (undefined where the channel has none).
 * - `send_again`: it is the one asked for and never arrived, or cannot be looked up: sent now under its number;
 * - `cannot_look_up` / `still_unknown`: it stops the command (exit 5), nothing sent;
 * - `record`: the gateway's word, said and recorded as `status` (`made`: the refund asked for, made).
 */
type EarlierStep =
  | {next: 'send_again'}
  | {next: 'cannot_look_up'}
  | {next: 'still_unknown'; why: string}
  | {next: 'record'; status: EarlierRefund['status']; made: boolean}

export function earlierStep(theOneAsked: boolean, looked: Lookup | undefined): EarlierStep {
  if (!looked) return theOneAsked ? {next: 'send_again'} : {next: 'cannot_look_up'}
  if (looked.state === 'unknown') return {next: 'still_unknown', why: looked.why}
  // Never arrived, and it is what this command asks for: it goes now, under its number.
  if (looked.state === 'absent' && theOneAsked) return {next: 'send_again'}
  const status = STATE_OF_LOOKUP[looked.state] as EarlierRefund['status']
  return {next: 'record', status, made: theOneAsked && (status === 'refunded' || status === 'processing')}
}
