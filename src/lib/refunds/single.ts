/**
 * One refund, as `gw refund create ORDER` makes it, with the local history as its journal.
 * Before a new refund of an order, the order's refunds sent earlier without a known outcome
 * are settled (looked up, or their number sent again: never a new number); one still unknown
 * stops the command (exit 5). When the refund asked for is the one an earlier run left
 * unsettled, settling it completes the command. An identical refund made recently needs a
 * confirmation (--again). The intent is synced before sending; the outcome recorded after.
 */
import {GwError, type StopSignal, stopSignalOf, stoppedError} from '../errors.js'
import {LocalStateError} from '../io/database.js'
import {type RefundOrder, formatAmount, isoTime, minorUnitsOf, normalizeRefundState} from '../gateway/protocol/index.js'
import {type OrderClaim, type RefundEntry, isMade, isUnsettled} from '../orders/history.js'
import type {FoundOrder} from '../orders/service.js'
import type {RefundProblem} from './balance.js'
import {hasRefundQuery, howSettled, refundedTotal} from './lookup.js'
import type {PlannedRefund, RefundRequest, RefundResult, RefundService} from './service.js'

/** How long an identical refund counts as "recent": one made within it needs --again. */
const IDENTICAL_WINDOW_MS = 7 * 24 * 3600 * 1000

/** A refund already made of the same order and amount. */
export interface MadeRefund {
  mch_refund_no: string
  gw_refund_no?: string
  refund_fee: number
  fee_type: string
  /** When it was made (ISO 8601), as far as known. */
  at?: string
  /** Where it was made, when it was made on this machine. */
  source?: string
  /** The gateway refused it, on a channel that cannot confirm a refusal (no refund query). */
  refused?: boolean
}

interface OneRefundHooks {
  /** An identical refund was made recently; resolves when another is wanted, throws otherwise. */
  identical(made: MadeRefund, planned: PlannedRefund): Promise<void>
  /** The refund is about to be sent (after the live-profile confirmation). */
  sending(planned: PlannedRefund): Promise<void>
}

/** A refund refused before it was sent, after earlier refunds of the order were sent again to settle them (then not "nothing was sent"). */
export type RefusedRefund = RefundProblem & {resent_earlier?: readonly PlannedRefund[]}

export type OneRefund = RefundResult & {
  /** The refund an earlier run left unsettled, settled now: nothing new was sent. */
  completed_earlier?: boolean
  /** A signal stopped the command while the refund was in flight: sent, outcome unknown. */
  interrupted?: StopSignal
}

function plannedFrom(entry: RefundEntry, found: FoundOrder): PlannedRefund {
  const {record} = found
  return {
    ref: {mch_order_no: entry.mch_order_no},
    mch_order_no: entry.mch_order_no,
    gw_order_no: entry.gw_order_no ?? record.gw_order_no,
    channel: entry.channel ?? found.channel,
    total_fee: record.total_fee ?? 0,
    fee_type: entry.fee_type ?? record.fee_type ?? '',
    refund_fee: entry.refund_fee,
    mch_refund_no: entry.mch_refund_no,
  }
}

export class SingleRefunds {
  constructor(readonly refunds: RefundService) {}

  /**
   * Settles the order's refunds sent without a known outcome; throws (exit 5) when one stays
   * unknown. `resending` is told of a refund about to be sent again under its number.
   */
  async settle(
    found: FoundOrder,
    resending: (planned: PlannedRefund) => void = () => {},
    signal?: AbortSignal,
  ): Promise<RefundResult[]> {
    const {history, appid} = this.refunds
    const unsettled = history.refundsOf(appid, found.record.mch_order_no ?? '').filter(isUnsettled)
    const settled: RefundResult[] = []
    for (const entry of unsettled) {
      const planned = plannedFrom(entry, found)
      const looked = await this.refunds.lookup(planned)
      let result: RefundResult
      if (looked.state === 'SUCCESS' || looked.state === 'PROCESSING' || looked.state === 'FAIL') {
        const status = ({SUCCESS: 'refunded', PROCESSING: 'processing', FAIL: 'failed'} as const)[looked.state]
        result = {
          status,
          planned,
          gw_refund_no: looked.gw_refund_no,
          refund_time: looked.refund_time,
          resolved_by: 'refund_query',
        }
        this.refunds.recordOutcome(planned, status, {
          source: entry.source ?? 'refund create',
          gw_refund_no: looked.gw_refund_no,
        })
      } else if (looked.state === 'other_amount') {
        const other = formatAmount(looked.refund_fee, planned.fee_type)
        const explanation = `The gateway holds refund number ${planned.mch_refund_no} with another amount (${other}): it is not the refund this machine sent.`
        result = {status: 'failed', planned, explanation, resolved_by: 'refund_query'}
        this.refunds.recordOutcome(planned, 'failed', {source: entry.source ?? 'refund create'})
      } else if (looked.state === 'unknown' && hasRefundQuery(planned.channel)) {
        result = {status: 'unknown', planned, explanation: looked.why, resolved_by: 'refund_query'}
      } else {
        // Never arrived, or cannot be looked up: the same number again settles it, and the gateway takes it once.
        resending(planned)
        result = await this.refunds.send(planned, entry.source, signal)
      }
      if (result.status === 'unknown') {
        const amount = formatAmount(planned.refund_fee, planned.fee_type)
        throw new GwError(
          result.unverified ? 'signature' : 'unknown',
          `Refund ${planned.mch_refund_no} of ${amount} on order ${planned.mch_order_no} was sent earlier and its outcome is still not known (${result.explanation}). Nothing new was sent.`,
          {
            advice: `Run the same command again later: ${howSettled(planned)}.`,
            details: {mch_refund_no: planned.mch_refund_no},
          },
        )
      }
      settled.push(result)
    }
    return settled
  }

  /** A refund of the same order and amount made recently, on this machine or (where the gateway tells) elsewhere. */
  identical(planned: PlannedRefund, gatewayRefunds: RefundOrder[]): MadeRefund | undefined {
    const since = Date.now() - IDENTICAL_WINDOW_MS
    const {history, appid} = this.refunds
    // A refusal on a channel without a refund query cannot be confirmed: such a refund may have been made.
    const mayBeMade = (r: RefundEntry) =>
      isMade(r) || (r.status === 'failed' && !hasRefundQuery(r.channel ?? planned.channel))
    const local = history
      .refundsOf(appid, planned.mch_order_no)
      .filter((r) => mayBeMade(r) && r.refund_fee === planned.refund_fee && Date.parse(r.at) >= since)
      .at(-1)
    if (local) return {...local, fee_type: planned.fee_type, refused: local.status === 'failed'}
    const remote = gatewayRefunds.find((r) => {
      const made = ['SUCCESS', 'PROCESSING'].includes(normalizeRefundState(r.refund_state))
      const at = r.refund_time
      return made && r.mch_refund_fee === planned.refund_fee && (!at || Date.parse(at) >= since)
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
   * One refund of an order at a time: a second run started together (a retry wrapper, two
   * people, another machine sharing the config dir) is refused, where one after the other would
   * see the first's refund. A claim in the history's database, taken in a transaction.
   */
  #claimOrder(found: FoundOrder): OrderClaim {
    const {history, appid} = this.refunds
    return history.claimOrder(appid, found.record.mch_order_no ?? found.record.gw_order_no ?? '')
  }

  /**
   * The refund asked for by its number, already settled by an earlier run as this machine's
   * history records it (the gateway showed it refunded, or showed it cannot be confirmed): said
   * again without sending. A channel without a refund query would learn nothing new from a resend.
   */
  async #knownOutcome(
    request: RefundRequest,
    found: FoundOrder,
    minor: number | undefined,
  ): Promise<OneRefund | undefined> {
    const {history, appid} = this.refunds
    if (!request.mchRefundNo || minor === undefined) return undefined
    const entry = history
      .refundsOf(appid, found.record.mch_order_no ?? '')
      .find((r) => r.mch_refund_no === request.mchRefundNo && r.refund_fee === minor)
    if (entry?.status !== 'refunded' && entry?.status !== 'not_confirmable') return undefined
    const planned = plannedFrom(entry, found)
    // The history is evidence, not proof: where the gateway can show the refund, it is asked.
    if (hasRefundQuery(planned.channel)) {
      const looked = await this.refunds.lookup(planned)
      if (looked.state !== 'SUCCESS') return undefined
      const {gw_refund_no, refund_time} = looked
      return {
        status: 'refunded',
        planned,
        gw_refund_no,
        refund_time,
        resolved_by: 'refund_query',
        already_existed: true,
      }
    }
    const explanation =
      entry.status === 'not_confirmable'
        ? `Sent from this machine at ${isoTime(new Date(entry.at))}; the gateway holds refund number ${entry.mch_refund_no} and has no refund query for ${planned.channel} to show its amount and state. Nothing was sent again. Confirm it on the merchant platform.`
        : undefined
    return {
      status: entry.status,
      planned,
      gw_refund_no: entry.gw_refund_no,
      explanation,
      resolved_by: 'history',
      already_existed: true,
    }
  }

  /**
   * `signal` (Ctrl-C, SIGTERM) stops the command: before the refund is sent, nothing was sent;
   * while it is in flight, it was sent and its outcome is unknown (its intent is in the history,
   * so the next run settles it). Either way the order's claim is released.
   */
  async refund(
    request: RefundRequest,
    hooks: OneRefundHooks,
    signal?: AbortSignal,
  ): Promise<OneRefund | RefusedRefund> {
    let inFlight: PlannedRefund | undefined
    /** Refunds an earlier run left unsettled, sent again by this one under their numbers to settle them. */
    const resent: PlannedRefund[] = []
    try {
      // Nothing is in flight yet: a stop here is "nothing was sent".
      const found = (await interruptible(
        this.refunds.orders.find(request.ref, request.channel),
        signal,
        () => inFlight,
      )) as FoundOrder
      const claim = this.#claimOrder(found)
      try {
        const sending = (planned: PlannedRefund) => (inFlight = planned)
        const work = this.#refundClaimed(request, found, hooks, sending, (planned) => resent.push(planned), signal)
        const done = await interruptible(work, signal, () => inFlight)
        // A problem of the new refund after an earlier one was sent again: not "nothing was sent".
        if ('kind' in done && resent.length) return {...done, resent_earlier: [...resent]}
        return done
      } finally {
        claim.release()
      }
    } catch (error) {
      // An earlier refund went out again to settle it: whatever stopped the new one, money may have moved.
      if (resent.length && error instanceof GwError && error.kind !== 'unknown')
        throw new GwError('unknown', `${resentSentence(resent)} Then: ${error.message}`, {
          advice: error.advice,
          details: {...error.details, resent_earlier: resent.map((p) => p.mch_refund_no)},
        })
      // The local database stopped the refund before it left (held by another program, damaged).
      if (error instanceof LocalStateError && !inFlight) throw error.nothingSent()
      throw error
    }
  }

  async #refundClaimed(
    request: RefundRequest,
    found: FoundOrder,
    hooks: OneRefundHooks,
    sent: (planned: PlannedRefund) => void,
    resending: (planned: PlannedRefund) => void,
    signal?: AbortSignal,
  ): Promise<OneRefund | RefundProblem> {
    const settled = await this.settle(
      found,
      (planned) => {
        sent(planned)
        resending(planned)
      },
      signal,
    )
    // The refund asked for may be the one an earlier run left unsettled: then it is done.
    const minor = requestedMinor(request, found)
    const earlier = settled.find(
      (r) =>
        (r.status === 'refunded' || r.status === 'processing' || r.status === 'not_confirmable') &&
        r.planned.refund_fee === minor &&
        (!request.mchRefundNo || r.planned.mch_refund_no === request.mchRefundNo),
    )
    if (earlier) return {...earlier, completed_earlier: true}
    const known = await this.#knownOutcome(request, found, minor)
    if (known) return known
    const gatewayRefunds = await this.refunds.queries.refundsOf(found)
    const planned = this.refunds.plan(request, found, gatewayRefunds && refundedTotal(gatewayRefunds))
    if ('kind' in planned) return planned
    const made = this.identical(planned, gatewayRefunds ?? [])
    if (made) await hooks.identical(made, planned)
    await hooks.sending(planned)
    // Stopped while asked (the command has said "nothing was sent"): no intent, nothing sent.
    if (signal?.aborted)
      throw stoppedError(signal.reason, 'Stopped before the refund was sent.', 'Run the same command again to refund.')
    // The intent is on disk before the refund leaves; the history refusing it stops the refund here.
    this.refunds.recordIntent(planned, 'refund create')
    // In flight from here: a stop after this says "sent, outcome unknown", never "nothing was sent".
    sent(planned)
    return this.refunds.send(planned, 'refund create', signal)
  }
}

/** The refunds an earlier run left unsettled that this run sent again, said before what stopped the new one. */
export function resentSentence(resent: readonly PlannedRefund[]): string {
  const each = resent.map((p) => `${p.mch_refund_no} of ${formatAmount(p.refund_fee, p.fee_type)}`).join(', ')
  const one = resent.length === 1
  const order = resent[0]!.mch_order_no
  return one
    ? `Refund ${each} on order ${order}, sent by an earlier run without a known outcome, was sent again under its number to settle it (gw order timeline ${order} tells what became of it).`
    : `Refunds ${each} on order ${order}, sent by an earlier run without a known outcome, were sent again under their numbers to settle them (gw order timeline ${order} tells what became of them).`
}

/** The amount asked for, in minor units of the order's currency, when it converts. */
function requestedMinor(request: RefundRequest, found: FoundOrder): number | undefined {
  try {
    return minorUnitsOf(request.amount, found.record.fee_type ?? '')
  } catch {
    return undefined
  }
}

/**
 * The work, unless `signal` stops it first: then a refund in flight is "sent, outcome unknown"
 * (never waited for), and anything before is "nothing was sent".
 */
async function interruptible<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  inFlight: () => PlannedRefund | undefined,
): Promise<T | OneRefund> {
  if (!signal) return work
  // Stopped, the work goes on until the process ends; what it meets then is not this command's end.
  work.catch(() => undefined)
  let stop!: () => void
  const stopped = new Promise<OneRefund>((resolve, reject) => {
    stop = () => {
      const received = stopSignalOf(signal.reason)
      const planned = inFlight()
      if (!planned) {
        reject(
          stoppedError(
            received,
            'Interrupted before the refund was sent: nothing was sent.',
            'Run the same command again to refund.',
          ),
        )
        return
      }
      resolve({
        status: 'unknown',
        planned,
        interrupted: received,
        explanation: `Interrupted while refund ${planned.mch_refund_no} was in flight: it was sent, and its outcome is unknown. Run the same command again to settle it: ${howSettled(planned)}, never under a new number.`,
        resolved_by: hasRefundQuery(planned.channel) ? 'refund_query' : 'resend',
      })
    }
    if (signal.aborted) stop()
    else signal.addEventListener('abort', stop, {once: true})
  })
  try {
    return await Promise.race([work, stopped])
  } finally {
    signal.removeEventListener('abort', stop)
  }
}
