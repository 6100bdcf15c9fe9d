/**
 * The desk's one door to gw's refunds: every use the desk makes of src/lib/refunds (one refund
 * through the same service and rules as `gw refund create`, an order's story, the refund list) is
 * here and nowhere else in the desk, and what comes back is put in the desk's own words: refunded,
 * not refunded, or not known yet, and what to do. The refund model beneath may change shape; only
 * this module follows it.
 */
import {GwError} from '../errors.js'
import {formatAmount} from '../gateway/protocol/index.js'
import type {ListFilter} from '../orders/list.js'
import type {OrderReference} from '../orders/reference.js'
import type {OrderService} from '../orders/service.js'
import {describeRefundProblem} from '../refunds/balance.js'
import {type ListedRefund, REFUND_LIST_STATES, listRefunds} from '../refunds/list.js'
import {type RefundedElsewhere, describeRefundedElsewhere} from '../refunds/elsewhere.js'
import {howSettled} from '../refunds/decisions.js'
import type {RefundService} from '../refunds/service.js'
import type {EarlierRefund, MadeRefund, OneRefund, RefusedRefund} from '../refunds/refund.js'
import {SingleRefunds, describeMadeRefund} from '../refunds/single.js'
import {type Timeline, orderTimeline} from '../orders/timeline.js'
import {earlierSentence} from '../render/refunds.js'
import type {GatewayHistory} from '../store/history.js'

export type {ListedRefund, Timeline}

/** The refund service the desk is given (the command's, built by its factory): used only through this module. */
export type DeskRefunds = RefundService
export type {Totals} from '../orders/timeline-totals.js'

/** The states a refund list can select. */
export const REFUND_STATES: readonly string[] = REFUND_LIST_STATES

/** One order's story, as `gw order timeline` tells it (with `refresh`: the gateway asked first). */
export const storyOf = (
  {refunds, history, orders}: {refunds: RefundService; history: GatewayHistory; orders: OrderService},
  ref: OrderReference,
  options: {refresh: boolean; zone: string},
) =>
  orderTimeline(
    {history, orders, profile: refunds.profile, refundsOf: (found) => refunds.refundsOf(found)},
    ref,
    options,
  )

/** The refunds of a list, as `gw refund list` reads them. */
export const listedRefunds = (
  refunds: RefundService,
  filter: ListFilter,
  emit: (refund: ListedRefund) => Promise<void>,
): Promise<{stopped: boolean; total: number}> => listRefunds(refunds, filter, emit)

/** A refund the desk asks for: of the order as the confirmation showed it, which the gateway's order must still be. */
interface DeskRefundRequest {
  mch_order_no: string
  channel: string
  total_fee: number
  fee_type: string
  /** The amount, a decimal in the order's currency. */
  amount: string
  /** Asked again after the again-check (an identical refund made recently): the user said yes. */
  again: boolean
}

/**
 * What became of a refund asked for on the desk, in words: `refunded` only when the gateway showed
 * it succeeded; `not_refunded` when it was refused or never sent; `not_known` when it was sent and
 * its outcome is not proven either way; `ask_again` when an identical refund was made recently
 * and nothing was sent: the user is asked whether another is meant.
 */
export interface DeskOutcome {
  kind: 'refunded' | 'not_refunded' | 'not_known' | 'ask_again'
  /** What happened, a sentence each: earlier refunds of the order settled first, then this one. */
  said: string[]
  /** What to do now, when anything is to be done. */
  next?: string
  mch_refund_no?: string
  gw_refund_no?: string
  refund_fee?: number
  fee_type?: string
}

/** The again-check's question (a refund of the same amount made recently, or the order refunded elsewhere), raised through the hook to end the refund before anything is sent. */
class AskAgain extends Error {
  constructor(
    readonly sentence: string,
    readonly next: string,
  ) {
    super(sentence)
  }
}

/**
 * One refund, through the same service and rules as `gw refund create`: the order's claim, its
 * earlier refunds settled first, the again-check, the balance, the intent synced before the
 * request and the proof before "refunded". The confirmation was the desk's page (and, on a live
 * profile, the typed order number): the service's own question is already answered. `signal`
 * (the desk stopping) ends it as Ctrl-C ends the command.
 */
export async function refundFromDesk(
  refunds: RefundService,
  asked: DeskRefundRequest,
  signal: AbortSignal,
): Promise<DeskOutcome> {
  const request = {
    ref: {mch_order_no: asked.mch_order_no},
    channel: asked.channel,
    amount: {decimal: asked.amount},
    feeType: asked.fee_type,
    totalFee: asked.total_fee,
  }
  const hooks = {
    identical: async (made: MadeRefund) => {
      if (!asked.again)
        throw new AskAgain(
          describeMadeRefund(made),
          'Send another refund of the same amount only if the customer is owed it twice.',
        )
    },
    elsewhere: async (found: RefundedElsewhere) => {
      if (!asked.again)
        throw new AskAgain(
          describeRefundedElsewhere(found),
          'Check the refund made elsewhere on the merchant platform; send this one only if the customer is owed it as well.',
        )
    },
    sending: async () => undefined,
  }
  try {
    return outcomeOf(await new SingleRefunds(refunds).refund(request, hooks, signal), asked.mch_order_no)
  } catch (error) {
    return endedWith(error)
  }
}

/** A refund's result in the desk's words. */
function outcomeOf(result: OneRefund | RefusedRefund, order: string): DeskOutcome {
  const earlier = result.settled_earlier?.map(earlierSentence) ?? []
  if ('kind' in result) {
    const why = describeRefundProblem(result, order, {decimal: 'The amount', minor: 'The amount'})
    return {kind: 'not_refunded', said: [...earlier, `${why} Nothing was sent.`]}
  }
  const {planned: p} = result
  const amount = formatAmount(p.refund_fee, p.fee_type)
  const facts = {mch_refund_no: p.mch_refund_no, gw_refund_no: result.gw_refund_no, refund_fee: p.refund_fee}
  const refund = {...facts, fee_type: p.fee_type}
  const about = result.explanation ? [result.explanation] : []
  if (result.status === 'refunded') {
    const proof = result.gw_refund_no ? ` (gateway refund ${result.gw_refund_no})` : ''
    const made = result.completed_earlier
      ? ' It was sent by an earlier run whose outcome was not known: nothing new was sent.'
      : ''
    const notKept = result.not_recorded
      ? [`This machine could not record it yet (${result.not_recorded.why}); the next refund of the order looks it up.`]
      : []
    const said = [...earlier, `The gateway shows refund ${p.mch_refund_no} of ${amount} succeeded${proof}.${made}`]
    return {kind: 'refunded', said: [...said, ...notKept], ...refund}
  }
  if (result.status === 'failed')
    return {
      kind: 'not_refunded',
      said: [...earlier, `Refund ${p.mch_refund_no} of ${amount} failed: the gateway refused it.`, ...about],
      next: 'Nothing was refunded by it. Check the amount and the order, then ask again if a refund is still due.',
      ...refund,
    }
  const sentence = {
    processing: `Refund ${p.mch_refund_no} of ${amount} is processing: the channel answers later.`,
    unknown: `Refund ${p.mch_refund_no} of ${amount} was sent, and its outcome is not known yet.`,
    not_confirmable: `Refund ${p.mch_refund_no} of ${amount} was sent; the gateway holds its number but cannot show whether it succeeded.`,
  }[result.status]
  return {
    kind: 'not_known',
    said: [...earlier, sentence, ...about],
    next:
      result.status === 'not_confirmable'
        ? `Confirm refund ${p.mch_refund_no} on the merchant platform before refunding this order again.`
        : `Settle it below when you are ready: ${howSettled(p)}, never sends a second refund.`,
    ...refund,
  }
}

/** A refund that ended with an error, in the desk's words: by what the error says of the money. */
function endedWith(error: unknown): DeskOutcome {
  if (error instanceof AskAgain)
    return {
      kind: 'ask_again',
      said: [`Nothing was sent: ${error.sentence}.`],
      next: error.next,
    }
  if (!(error instanceof GwError))
    return {
      kind: 'not_known',
      said: [
        `The desk failed while refunding (${(error as Error).message}): the refund may or may not have been sent.`,
      ],
      next: 'Open the order again: its story shows what the gateway has; gw looks an unsettled refund up before any other is sent.',
    }
  const settled = (error.details?.settled_earlier as EarlierRefund[] | undefined) ?? []
  const said = [...settled.map(earlierSentence), error.message]
  const next = error.advice
  // An error of these kinds ends a refund before any request of it reached the gateway.
  if (['usage', 'refused', 'transport'].includes(error.kind))
    return {kind: 'not_refunded', said: [...said, 'No refund was made by this attempt.'], next}
  return {kind: 'not_known', said, next}
}
