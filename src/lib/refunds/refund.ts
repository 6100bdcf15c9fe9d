/**
 * The refund, as every part of gw speaks of it: what is asked, what is planned, what a send ends
 * as, and what a refund query shows of a number; one set of words for what is known of a refund
 * (its state), and that state as each record and view writes it: the history, a bulk journal, a
 * row of a bulk run, a report or a view, and how a run ends. Types and pure mappings only, at the
 * bottom of refunds/: every other module of refunds/ speaks of a refund in these words, and the
 * decisions between states are decisions.ts's.
 */
import {type Outcome, type StopSignal, EXIT_CODES, outcomeOfSignal} from '../errors.js'
import {type Amount, type RefundOrder, isoTime, normalizeRefundState} from '../gateway/protocol/index.js'
import type {OrderReference} from '../orders/reference.js'
import type {Recorded} from '../store/durability.js'
import type {RefundEntryStatus} from '../store/records.js'

/**
 * What is known of one refund (a number, with an amount, of an order), in one set of words:
 * - `refunded`: the gateway showed that number, with that amount, succeeded;
 * - `processing`: the channel answers later (PROCESSING; TRADE_STATE_ERROR when it was sent);
 * - `failed`: not made under that number: refused, failed at the channel, or held for another amount;
 * - `absent`: the gateway has no refund of that number: it never arrived, nothing was refunded under it;
 * - `not_confirmable`: sent, and the gateway holds its number, but no refund query can show its
 *   amount and state (alipay): never said refunded, and its number is never sent again;
 * - `unknown`: sent, or it may have been, and nothing has settled it yet (the next run looks it up).
 */
export type RefundState = 'refunded' | 'processing' | 'failed' | 'absent' | 'not_confirmable' | 'unknown'

/** How a send ends: a refund that did not arrive is sent again or failed, never left absent. */
export type SentState = Exclude<RefundState, 'absent'>

/** The currency and total the caller expects the order to have, when given, and the amount asked. */
export interface RefundAsk {
  amount: Amount
  feeType?: string
  totalFee?: number
}

/** A refund asked for: the order, as the user named it, and the refund. */
export interface RefundRequest extends RefundAsk {
  ref: OrderReference
  mchRefundNo?: string
  channel?: string
}

/** A refund refused before it is sent, as a typed fact (its words are balance.ts's). */
export type RefundProblem =
  | {kind: 'channel_not_refundable'; channel: string; channels: readonly string[]}
  | {kind: 'currency_mismatch'; currency: string; given: string}
  | {kind: 'total_mismatch'; total: number; given: number; currency: string}
  | {kind: 'not_paid'; state: string}
  | {kind: 'bad_amount'; form: 'decimal' | 'minor'; reason: string}
  | {kind: 'above_total'; refundFee: number; total: number; currency: string}
  | {kind: 'above_balance'; refundFee: number; balance: number; total: number; currency: string}
  /** The refund number was sent from this machine before, for another order or amount: never sent with another. */
  | {kind: 'number_reused'; mchRefundNo: string; order: string; refundFee: number; currency: string; at: string}

/** A refund checked against its order, ready to be sent. */
export interface PlannedRefund {
  ref: OrderReference
  mch_order_no: string
  gw_order_no?: string
  channel: string
  total_fee: number
  fee_type: string
  refund_fee: number
  mch_refund_no: string
  /** What was left of the order before this refund, when it is known. */
  balance_fee?: number
  /**
   * The refund number was given (a flag, a file's column) and this machine never sent it for
   * this order: the gateway refusing it as a duplicate may mean another order's refund.
   */
  number_given?: boolean
}

/**
 * How a refund's outcome was learned: the refund's answer, a refund query, the same number sent
 * again, or this machine's history (the gateway showed it to an earlier run; nothing was sent).
 */
export type SettledBy = 'answer' | 'refund_query' | 'resend' | 'history'

/** What one send of a refund ended as, and how that was learned. */
export interface RefundResult {
  status: SentState
  planned: PlannedRefund
  gw_refund_no?: string
  refund_time?: string
  err_code?: string
  err_msg?: string
  /** Meaning and advice for people, for failed, processing and unknown refunds. */
  explanation?: string
  resolved_by: SettledBy
  /** The refund number was already taken before this send, for this same refund. */
  already_existed?: boolean
  /** The answers failed verification (bad signature, or about another request): nothing in them was used (exit 4). */
  unverified?: boolean
  /**
   * Sent, and this machine could not record what became of it (the history held by another
   * program, a full disk): where it went instead (history.jsonl, merged next time) or that it
   * went nowhere (the next run looks it up). Exit 5: the local record is behind the money.
   */
  not_recorded?: Exclude<Recorded, {where: 'history'}>
}

/** What the gateway's refund query shows of one refund number (`lookupOf`, decisions.ts). */
export type Lookup =
  | {state: 'SUCCESS' | 'PROCESSING' | 'FAIL'; gw_refund_no?: string; refund_time?: string; refund_fee?: number}
  | {state: 'absent'}
  /** The gateway holds the refund number with another amount: not the refund asked about. */
  | {state: 'other_amount'; gw_refund_no?: string; refund_fee?: number}
  | {state: 'unknown'; why: string}

/** A refund already made of the same order and amount (the "again?" of a single refund, a bulk row's repeat). */
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

/**
 * A refund an earlier run sent without learning its outcome, as a command settled it by looking it
 * up: made (refunded, processing), failed, or absent (it never reached the gateway).
 */
export interface EarlierRefund {
  mch_refund_no: string
  refund_fee: number
  refund_amount?: string
  fee_type: string
  status: Exclude<RefundState, 'not_confirmable' | 'unknown'>
  gw_refund_no?: string
  refund_time?: string
  /** Where it was sent from: `refund create`, or a bulk run's file. */
  source?: string
}

/** A refund refused before it was sent, with the earlier refunds of the order settled first (looked up, nothing sent). */
export type RefusedRefund = RefundProblem & {settled_earlier?: readonly EarlierRefund[]}

/** What `gw refund create ORDER` ends with, when it sent (or settled) the refund asked for. */
export type OneRefund = RefundResult & {
  /** The refund asked for is the one an earlier run left unsettled, shown made by the gateway: nothing new was sent. */
  completed_earlier?: boolean
  /** The refund asked for is the one an earlier run left unsettled: sent again under its number, which the gateway takes once. */
  sent_again?: boolean
  /** Earlier refunds of the order whose outcome was not known, settled by this command by looking them up. */
  settled_earlier?: readonly EarlierRefund[]
  /** A signal stopped the command while the refund was in flight: sent, outcome unknown. */
  interrupted?: StopSignal
}

/** The state a refund query's word gives a refund (`other_amount`: that number is another refund's, not this one). */
export const STATE_OF_LOOKUP: Readonly<Record<Lookup['state'], RefundState>> = {
  SUCCESS: 'refunded',
  PROCESSING: 'processing',
  FAIL: 'failed',
  other_amount: 'failed',
  absent: 'absent',
  unknown: 'unknown',
}

/** Refunds that count against an order's balance, as a refund query lists them: SUCCESS and PROCESSING. */
export function refundedTotal(refunds: readonly RefundOrder[]): number {
  return refunds
    .filter((r) => ['SUCCESS', 'PROCESSING'].includes(normalizeRefundState(r.refund_state)))
    .reduce((sum, r) => sum + (r.mch_refund_fee ?? 0), 0)
}

/**
 * How `gw refund create ORDER` ends: refused before sending (usage), failed as the gateway said
 * (refused), interrupted, refunded and recorded (done), an answer that failed verification
 * (signature), else money that may have moved unproven (unknown: processing, unknown, not
 * confirmable, or an outcome this machine could not record).
 */
export function outcomeOfRefund(result: OneRefund | RefusedRefund): Outcome {
  if ('kind' in result) return 'usage'
  if (result.status === 'failed') return 'refused'
  if (result.interrupted) return outcomeOfSignal(result.interrupted)
  if (result.status === 'refunded' && !result.not_recorded) return 'done'
  return result.unverified ? 'signature' : 'unknown'
}

// A refund as a row of a bulk run.

/** What a row's settled outcome tells of its refund, beside its state. */
export interface SettledFacts {
  readonly gw_refund_no?: string
  readonly refund_time?: string
  readonly settled_by?: SettledBy
  /** Where an earlier refund of this number was made, when this machine's history knows (a file's name). */
  readonly made_by?: string
  /** refunded_earlier: when the earlier run of this file sent it. */
  readonly earlier_run_at?: string
}

/**
 * A row's refund in a bulk run: its state, with who made it for `refunded` (this run; an earlier
 * run of this file, by its journal's intent; or elsewhere, never claimed as this file's), and the
 * states only a row has (`pending`: not sent yet; `skipped_invalid`, `held`, `left_out`: not sent).
 */
export type RowOutcome =
  | {readonly status: 'pending'}
  /** `unverified`: the gateway's answers failed verification (a bad signature, or about another refund). */
  | {readonly status: 'unknown'; readonly advice?: string; readonly unverified?: boolean}
  | ({readonly status: 'refunded' | 'refunded_earlier' | 'already_refunded'} & SettledFacts)
  | ({readonly status: 'not_confirmable'; readonly advice?: string} & SettledFacts)
  | ({readonly status: 'processing'; readonly advice?: string} & SettledFacts)
  | ({
      readonly status: 'failed'
      readonly err_code?: string
      readonly err_msg?: string
      readonly advice?: string
    } & SettledFacts)
  | {readonly status: 'skipped_invalid'; readonly err_msg: string}
  /**
   * Not sent: another run is refunding its order (it holds the order's claim), or the order has a
   * refund sent earlier outside the file (a single refund, another file's row) whose outcome no
   * lookup could give. A new refund of an order waits for them; a rerun tries again.
   */
  | {readonly status: 'held'; readonly err_msg: string; readonly advice?: string}
  /** Usable, and not sent on purpose: a row gw's own earlier report says failed or was not sent, run again without --retry-failed. */
  | {readonly status: 'left_out'; readonly err_msg: string}

export type RowStatus = RowOutcome['status']

/** Statuses in the order summaries list them. */
const ROW_STATUSES: readonly RowStatus[] = [
  'refunded',
  'refunded_earlier',
  'already_refunded',
  'processing',
  'not_confirmable',
  'failed',
  'unknown',
  'held',
  'pending',
  'skipped_invalid',
  'left_out',
]

/** The row statuses a run never needs to ask about again: a refund that is not confirmable stays so. */
const FINAL = ['refunded', 'refunded_earlier', 'already_refunded', 'failed', 'not_confirmable'] as const
export type FinalStatus = (typeof FINAL)[number]

export const isFinal = (outcome: {readonly status: string}): boolean =>
  (FINAL as readonly string[]).includes(outcome.status)

/** Who made a refund a row finds refunded: this run, an earlier run of this file (its journal's intent), or elsewhere. */
export type MadeBy = 'this_run' | 'earlier_run' | 'elsewhere'

/** A refund found refunded, as a row says it: by its maker, `earlier` the time that run sent it (ISO). */
export function refundedRow(by: MadeBy, facts: SettledFacts, earlier?: string): RowOutcome {
  if (by === 'this_run') return {status: 'refunded', ...facts}
  if (by === 'elsewhere') return {status: 'already_refunded', ...facts}
  const when = earlier ? new Date(earlier) : undefined
  const at = when && !Number.isNaN(when.getTime()) ? isoTime(when) : earlier
  return {status: 'refunded_earlier', ...facts, earlier_run_at: facts.earlier_run_at ?? at}
}

/** What a send ended as, as a row's outcome: a number held before this send is an earlier run's or made elsewhere. */
export function rowOfResult(sent: RefundResult, before: Exclude<MadeBy, 'this_run'>, sentAt?: string): RowOutcome {
  const {gw_refund_no, refund_time, err_code, err_msg, resolved_by: settled_by} = sent
  switch (sent.status) {
    case 'refunded': {
      const facts = {gw_refund_no, refund_time, settled_by}
      return refundedRow(sent.already_existed ? before : 'this_run', facts, sentAt)
    }
    case 'processing':
      return {status: 'processing', gw_refund_no, refund_time, settled_by, advice: sent.explanation}
    case 'failed':
      return {status: 'failed', gw_refund_no, err_code, err_msg, advice: sent.explanation, settled_by}
    case 'not_confirmable':
      return {status: 'not_confirmable', settled_by, advice: sent.explanation}
    case 'unknown':
      return {status: 'unknown', advice: sent.explanation, unverified: sent.unverified}
  }
}

/**
 * What a refund query's answer for a row's number makes of the row: a success is an earlier
 * run's when the journal holds its intent (`before`), else made elsewhere; absent, it is still
 * to send; unknown leaves it as it was (undefined: sending the same number again settles it).
 */
export function rowOfLookup(
  lookup: Lookup,
  before: Exclude<MadeBy, 'this_run'>,
  facts: {mch_refund_no?: string; sentAt?: string} = {},
): RowOutcome | undefined {
  const settled = {
    gw_refund_no: 'gw_refund_no' in lookup ? lookup.gw_refund_no : undefined,
    settled_by: 'refund_query' as const,
  }
  const refund_time = 'refund_time' in lookup ? lookup.refund_time : undefined
  switch (lookup.state) {
    case 'SUCCESS':
      return refundedRow(before, {...settled, refund_time}, facts.sentAt)
    case 'PROCESSING':
      return {status: 'processing', ...settled, refund_time}
    case 'FAIL':
      return {
        status: 'failed',
        ...settled,
        err_code: 'REFUND_FAILED',
        err_msg: 'the channel reports the refund as failed',
      }
    case 'other_amount': {
      const err_msg = `the gateway holds refund number ${facts.mch_refund_no ?? ''} with another amount (${lookup.refund_fee ?? 'not shown'} in minor units)`
      return {status: 'failed', ...settled, err_code: 'GW_INVALID_REFUND_ORDER_NO', err_msg}
    }
    case 'absent':
      return {status: 'pending'}
    case 'unknown':
      return undefined
  }
}

/**
 * The history's word for a row's refund an earlier run of its file made: one that took (or is
 * taking) money. None for a refund made elsewhere, or a failed one (it may never have been sent:
 * gw refused it itself).
 */
export const HISTORY_OF_ROW: Readonly<Partial<Record<RowStatus, RefundEntryStatus>>> = {
  refunded_earlier: 'refunded',
  processing: 'processing',
  not_confirmable: 'not_confirmable',
}

/** A row's status as shown in a report or a view: a dry run's row that would be sent is `would_refund`. */
export type ViewStatus = RowStatus | 'would_refund'

export const VIEW_STATUSES: readonly ViewStatus[] = ['would_refund', ...ROW_STATUSES]

export const viewStatusOf = (outcome: RowOutcome, toSend: boolean, dryRun: boolean): ViewStatus =>
  dryRun && toSend ? 'would_refund' : outcome.status

/** How a bulk run ended beside its rows: stopped by a signal, or with what it could not write. */
export interface RunEnd {
  stopped: boolean
  stoppedBy?: unknown
  writeFailure?: string
  reportFailure?: string
  historyFailure?: string
}

/**
 * How a bulk run ends. Money unproven (processing, unknown, held) outranks rows refused: a rerun
 * settles them. A report, or the history's records, that could not be written is not a success:
 * the refunds are in the journal, and the same command run again writes the report.
 */
export function runOutcome(outcomes: Iterable<RowOutcome>, ended: RunEnd): Outcome {
  const statuses = new Set<RowStatus>()
  let unverified = false
  for (const outcome of outcomes) {
    statuses.add(outcome.status)
    if (outcome.status === 'unknown' && outcome.unverified) unverified = true
  }
  const any = (...these: RowStatus[]) => these.some((status) => statuses.has(status))
  const rows: Outcome = ended.stopped
    ? outcomeOfSignal(ended.stoppedBy)
    : ended.writeFailure
      ? 'unknown'
      : unverified
        ? 'signature'
        : any('processing', 'unknown', 'held')
          ? 'unknown'
          : any('failed', 'skipped_invalid', 'left_out')
            ? 'refused'
            : // Not the "run again later" outcome: a rerun cannot tell more of these; the merchant platform can.
              any('not_confirmable')
              ? 'not_confirmable'
              : 'done'
  const behind = ended.reportFailure || ended.historyFailure
  return behind && ['done', 'refused', 'not_confirmable'].includes(rows) ? 'unknown' : rows
}

/** A run's outcome and its exit code, as the exit-code table gives them. */
export const ending = (outcome: Outcome) => ({outcome, exit_code: EXIT_CODES[outcome]})
