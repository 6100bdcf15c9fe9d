/**
 * One refund, as `gw refund create ORDER` makes it, with the local history as its journal.
 * Before a new refund of an order, the order's refunds sent earlier without a known outcome are
 * settled by looking them up, never by sending them: found, they are said as made; absent, they
 * are said and recorded as never made; one that cannot be looked up (no refund query for the
 * channel) stops the command (exit 5), unless it is the very refund this command asks for (the
 * same amount, and number when one is given): then it is sent again under its number, which the
 * gateway takes once. Every earlier refund settled stands in the command's output. An identical
 * refund made recently needs a confirmation (--again). The intent is synced before sending; the
 * outcome recorded after.
 */
import {GwError, type SuggestedFor, gwCommand, stopSignalOf, stoppedError} from '../errors.js'
import {LocalStateError} from '../io/database-errors.js'
import {
  type RefundOrder,
  decimalOf,
  formatAmount,
  hasRefundQuery,
  isoTime,
  minorUnitsOf,
} from '../gateway/protocol/index.js'
import {shown} from '../untrusted.js'
import type {OrderClaim} from '../store/claims.js'
import {type RefundedElsewhere, refundedElsewhere} from './elsewhere.js'
import {type RefundEntry, isUnsettled} from '../store/records.js'
import type {FoundOrder} from '../orders/finding.js'
import {howSettled} from './decisions.js'
import {IDENTICAL_WINDOW_MS, earlierStep, identicalRefund, knownResult} from './evidence.js'
import {
  type EarlierRefund,
  type MadeRefund,
  type OneRefund,
  type PlannedRefund,
  type RefundRequest,
  type RefundResult,
  type RefusedRefund,
  refundedTotal,
} from './refund.js'
import type {RefundService} from './service.js'

/** A refund made recently, as the question before another of the same order and amount names it. */
export function describeMadeRefund(made: MadeRefund): string {
  const when = made.at ? ` at ${isoTime(new Date(made.at))}` : ''
  const where = made.source && made.source !== 'refund create' ? ` (by ${shown(made.source, 60)})` : ''
  const what = made.refused
    ? 'was refused, which the gateway cannot confirm without a refund query (check the merchant platform),'
    : 'was made'
  return `refund ${shown(made.mch_refund_no, 40)} of ${formatAmount(made.refund_fee, made.fee_type)} ${what}${when}${where}`
}

export interface OneRefundHooks {
  /** An identical refund was made recently; resolves when another is wanted, throws otherwise. */
  identical(made: MadeRefund, planned: PlannedRefund): Promise<void>
  /** The order was refunded elsewhere (refunds/elsewhere.ts); resolves when another is wanted, throws otherwise. */
  elsewhere(elsewhere: RefundedElsewhere, planned: PlannedRefund): Promise<void>
  /** The refund is about to be sent (after the live-profile confirmation). */
  sending(planned: PlannedRefund): Promise<void>
}

/** What settling the order's earlier refunds gives of the refund asked for, when it is one of them (each settled goes into the caller's `earlier`). */
interface Settling {
  /** The refund this command asks for is an earlier one the gateway shows made: nothing is sent. */
  made?: RefundResult
  /** The refund this command asks for is an earlier one that never arrived, or cannot be looked up: sent under its number. */
  again?: PlannedRefund
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

/** The number an order's claim is taken under, by a single refund or a bulk run. */
export const claimKeyOf = (found: FoundOrder) => found.record.mch_order_no ?? found.record.gw_order_no ?? ''

/** Whether an earlier refund is the one asked for: the same amount, and the same number when one is given. */
const isAsked = (entry: RefundEntry, asked: {minor?: number; mchRefundNo?: string}) =>
  entry.refund_fee === asked.minor && (!asked.mchRefundNo || entry.mch_refund_no === asked.mchRefundNo)

export class SingleRefunds {
  constructor(readonly refunds: RefundService) {}

  /**
   * Settles the order's refunds sent without a known outcome by looking each up: nothing is sent
   * here. One that stays unknown, or cannot be looked up (no refund query for its channel), stops
   * the command (exit 5), unless it is the refund `asked` for: then the caller sends it again
   * under its number. What the gateway shows is recorded, and each refund settled is added to
   * `earlier` as it is (the command says them even when it ends before settling them all).
   * `asked.ours`: refund numbers the command sends or settles itself (a bulk file's rows), not earlier ones.
   */
  async settle(
    found: FoundOrder,
    asked: {minor?: number; mchRefundNo?: string; ours?: ReadonlySet<string>},
    earlier: EarlierRefund[],
  ): Promise<Settling> {
    const {records} = this.refunds
    const settling: Settling = {}
    const orderNo = found.record.mch_order_no ?? ''
    // A refund of another order of the same number (its gateway number differs: another gateway's,
    // adopted from before gw recorded gateways) is never this order's, to look up or to send.
    const ofThisOrder = (entry: RefundEntry) =>
      !entry.gw_order_no || !found.record.gw_order_no || entry.gw_order_no === found.record.gw_order_no
    const earlierOne = (entry: RefundEntry) => ofThisOrder(entry) && !asked.ours?.has(entry.mch_refund_no)
    const unsettled = records.ofOrder(orderNo).filter((entry) => isUnsettled(entry) && earlierOne(entry))
    for (const entry of unsettled) {
      const planned = plannedFrom(entry, found)
      const source = entry.source ?? 'refund create'
      const theOneAsked = !settling.made && !settling.again && isAsked(entry, asked)
      const looked = hasRefundQuery(planned.channel) ? await this.refunds.lookup(planned) : undefined
      const step = earlierStep(theOneAsked, looked)
      if (step.next === 'send_again') {
        settling.again = planned
        continue
      }
      if (step.next === 'cannot_look_up') throw cannotLookUp(planned, entry, this.refunds.profile)
      if (step.next === 'still_unknown') throw stillUnknown(planned, step.why)
      const {status} = step
      const facts = looked!.state === 'absent' ? {} : {gw_refund_no: (looked as {gw_refund_no?: string}).gw_refund_no}
      // Kept as made when it was sent (the identical-refund window counts from then), not when it was looked up.
      this.refunds.recordOutcome(planned, status, {source, ...facts, at: entry.at})
      const refund_time = looked && 'refund_time' in looked ? looked.refund_time : undefined
      const amount = {refund_fee: planned.refund_fee, refund_amount: decimalOf(planned.refund_fee, planned.fee_type)}
      const said = {mch_refund_no: planned.mch_refund_no, ...amount, fee_type: planned.fee_type, status, source}
      earlier.push({...said, ...facts, ...(refund_time ? {refund_time} : {})})
      if (step.made) {
        const {gw_refund_no} = facts
        settling.made = {
          status: status as 'refunded' | 'processing',
          planned,
          gw_refund_no,
          refund_time,
          resolved_by: 'refund_query',
        }
      }
    }
    return settling
  }

  /**
   * A refund of the same order and amount made recently, on this machine or (where the gateway
   * tells) elsewhere; `isOther` says which refund numbers count (all, for a single refund).
   */
  identical(
    planned: PlannedRefund,
    gatewayRefunds: readonly RefundOrder[],
    isOther: (mchRefundNo: string) => boolean = () => true,
  ): MadeRefund | undefined {
    const local = this.refunds.records.ofOrder(planned.mch_order_no)
    return identicalRefund(planned, {local, gateway: gatewayRefunds, since: Date.now() - IDENTICAL_WINDOW_MS}, isOther)
  }

  /**
   * One refund of an order at a time: a second run started together (a retry wrapper, two
   * people, another machine sharing the config dir) is refused, where one after the other would
   * see the first's refund. A claim in the history's database, taken in a transaction.
   */
  #claimOrder(found: FoundOrder): OrderClaim {
    return this.refunds.records.claim(claimKeyOf(found))
  }

  /**
   * The refund asked for by its number, already settled by an earlier run as this machine's
   * history records it (refunded, or not confirmable): the record is evidence, not proof. Where
   * the gateway has a refund query it is asked. Where it has none, the order's own state is the
   * gateway's word: one that shows no refund succeeded contradicts the record, which then proves
   * nothing (not confirmable, nothing sent); else the record is said again, without sending.
   */
  async #knownOutcome(
    request: RefundRequest,
    found: FoundOrder,
    minor: number | undefined,
  ): Promise<OneRefund | undefined> {
    if (!request.mchRefundNo || minor === undefined) return undefined
    const entry = this.refunds.records
      .ofOrder(found.record.mch_order_no ?? '')
      .find((r) => r.mch_refund_no === request.mchRefundNo && r.refund_fee === minor)
    if (entry?.status !== 'refunded' && entry?.status !== 'not_confirmable') return undefined
    const planned = plannedFrom(entry, found)
    const looked = hasRefundQuery(planned.channel) ? await this.refunds.lookup(planned) : undefined
    return knownResult(entry, planned, {state: found.record.result}, looked)
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
    // The earlier refunds settled, as they are: said however the command ends after.
    const earlier: EarlierRefund[] = []
    try {
      // Nothing is in flight yet: a stop here is "nothing was sent".
      const found = (await interruptible(
        this.refunds.order(request.ref, request.channel),
        signal,
        () => inFlight,
      )) as FoundOrder
      const claim = this.#claimOrder(found)
      try {
        const sending = (planned: PlannedRefund) => (inFlight = planned)
        const work = this.#refundClaimed(request, found, hooks, {sending, earlier}, signal)
        const result = await interruptible(work, signal, () => inFlight)
        return result.settled_earlier || !earlier.length ? result : {...result, settled_earlier: [...earlier]}
      } finally {
        claim.release()
      }
    } catch (error) {
      // The local database stopped the refund before it left (held by another program, damaged).
      const ended = error instanceof LocalStateError && !inFlight ? error.nothingSent() : error
      if (!earlier.length || !(ended instanceof GwError)) throw ended
      const {kind, message, advice, details} = ended
      throw new GwError(kind, message, {advice, details: {...details, settled_earlier: [...earlier]}, cause: ended})
    }
  }

  async #refundClaimed(
    request: RefundRequest,
    found: FoundOrder,
    hooks: OneRefundHooks,
    {sending: sent, earlier}: {sending: (planned: PlannedRefund) => void; earlier: EarlierRefund[]},
    signal?: AbortSignal,
  ): Promise<OneRefund | RefusedRefund> {
    const minor = requestedMinor(request, found)
    const {made, again} = await this.settle(found, {minor, mchRefundNo: request.mchRefundNo}, earlier)
    const settled_earlier = earlier.length ? earlier : undefined
    // The refund asked for is the one an earlier run left unsettled: shown made, it is done.
    if (made) return {...made, completed_earlier: true, settled_earlier}
    if (again) {
      // ...or it never arrived (or cannot be looked up): it is sent now, as asked, under its number.
      await hooks.sending(again)
      if (signal?.aborted)
        throw stoppedError(
          signal.reason,
          'Stopped before the refund was sent.',
          'Run the same command again to refund.',
        )
      sent(again)
      const result = await this.refunds.send(again, 'refund create', signal)
      return {...result, sent_again: true, settled_earlier}
    }
    const known = await this.#knownOutcome(request, found, minor)
    if (known) return {...known, settled_earlier}
    const gatewayRefunds = await this.refunds.refundsOf(found)
    const planned = this.refunds.plan(request, found, gatewayRefunds && refundedTotal(gatewayRefunds))
    if ('kind' in planned) return {...planned, settled_earlier}
    const identical = this.identical(planned, gatewayRefunds ?? [])
    if (identical) await hooks.identical(identical, planned)
    const elsewhere =
      !identical && refundedElsewhere(found, this.refunds.records.ofOrder(planned.mch_order_no), gatewayRefunds)
    if (elsewhere) await hooks.elsewhere(elsewhere, planned)
    await hooks.sending(planned)
    // Stopped while asked (the command has said "nothing was sent"): no intent, nothing sent.
    if (signal?.aborted)
      throw stoppedError(signal.reason, 'Stopped before the refund was sent.', 'Run the same command again to refund.')
    // The intent is on disk before the refund leaves; the history refusing it stops the refund here.
    this.refunds.recordIntent(planned, 'refund create')
    // In flight from here: a stop after this says "sent, outcome unknown", never "nothing was sent".
    sent(planned)
    const result = await this.refunds.send(planned, 'refund create', signal)
    return {...result, settled_earlier}
  }
}

/** An earlier refund of the order that still cannot be settled: exit 5, nothing sent. */
function stillUnknown(planned: PlannedRefund, why: string): GwError {
  const amount = formatAmount(planned.refund_fee, planned.fee_type)
  return new GwError(
    'unknown',
    `Refund ${planned.mch_refund_no} of ${amount} on order ${planned.mch_order_no} was sent earlier and its outcome is still not known (${why}). Nothing new was sent.`,
    {
      advice: `Run the same command again later: ${howSettled(planned)}.`,
      details: {mch_refund_no: planned.mch_refund_no},
    },
  )
}

/** The command that sends an earlier refund on purpose, under its own number (the gateway takes a number once). */
const sendUnderItsNumber = (planned: PlannedRefund, profile: SuggestedFor) =>
  gwCommand(
    profile,
    'refund',
    'create',
    planned.mch_order_no,
    '--amount',
    decimalOf(planned.refund_fee, planned.fee_type)!,
    '--mch-refund-no',
    planned.mch_refund_no,
  )

/**
 * An earlier refund of the order, sent without a known outcome, on a channel with no refund
 * query, that is not the refund this command asks for: gw never sends it unasked (exit 5). What
 * settles it is the merchant platform, or sending it on purpose under its own number.
 */
function cannotLookUp(planned: PlannedRefund, entry: RefundEntry, profile: SuggestedFor): GwError {
  const amount = formatAmount(planned.refund_fee, planned.fee_type)
  const sendIt = sendUnderItsNumber(planned, profile)
  return new GwError(
    'unknown',
    `Refund ${planned.mch_refund_no} of ${amount} on order ${planned.mch_order_no} was sent ${entry.source && entry.source !== 'refund create' ? `by ${entry.source} ` : ''}at ${isoTime(new Date(entry.at))} and its outcome is not known; the gateway has no refund query for ${planned.channel} to look it up. Nothing was sent: gw does not send a refund this command did not ask for.`,
    {
      advice: `Check refund ${planned.mch_refund_no} on the merchant platform. To send it after all (the gateway takes its number once, so it is never made twice): ${sendIt}`,
      details: {mch_refund_no: planned.mch_refund_no},
    },
  )
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
