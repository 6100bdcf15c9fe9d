/**
 * The history's records, as they are kept in history.jsonl (where a record goes when the
 * database cannot take it now, and what earlier versions kept) and given to callers: an order
 * made here, a refund sent (or about to be) and what became of it, a line of an order's story.
 * Each line is checked with zod: a line that is not a record (cut short, edited, longer than
 * any record) is skipped and named. Lines of this version carry the gateway they belong to;
 * lines of earlier versions only the appid.
 */
import * as z from 'zod/mini'

const text = z.string()
const amount = z.int().check(z.nonnegative())
const time = z.iso.datetime({offset: true})

const gateway = z.object({appid: text, base_url: text, key: text})

/** What every record names: its gateway (missing in earlier versions' lines), its merchant and its order. */
const ofOrder = {gateway: z.optional(gateway), appid: text, mch_order_no: text}

const orderEntry = z.object({
  type: z.literal('order'),
  ...ofOrder,
  gw_order_no: z.optional(text),
  channel: text,
  total_fee: amount,
  fee_type: text,
  /** When the order was made (a later record of the order keeps it). */
  at: time,
  /** The state gw last learned (NOTPAY when made), and when; missing in histories of earlier versions. */
  state: z.optional(text),
  state_at: z.optional(time),
  /** The payer, as a query or a notification showed it (openid). */
  openid: z.optional(text),
  /** The channel's number of the order (a wallet's receipt shows it), as a query or a notification showed it. */
  channel_order_no: z.optional(text),
})
export type OrderEntry = z.infer<typeof orderEntry>

/**
 * `intent`: about to be sent; then what became of it (`absent`: the gateway has no such refund;
 * `not_confirmable`: the gateway holds the number, and has no refund query to show its amount and state).
 */
const refundStatus = z.enum(['intent', 'refunded', 'processing', 'failed', 'unknown', 'absent', 'not_confirmable'])
export type RefundEntryStatus = z.infer<typeof refundStatus>

const refundEntry = z.object({
  type: z.literal('refund'),
  ...ofOrder,
  gw_order_no: z.optional(text),
  channel: z.optional(text),
  mch_refund_no: text,
  refund_fee: amount,
  fee_type: z.optional(text),
  /** Missing in histories of earlier versions, which recorded only refunds made. */
  status: z.optional(refundStatus),
  gw_refund_no: z.optional(text),
  /** Where it was made: `refund create`, or the file of a bulk run. */
  source: z.optional(text),
  at: time,
  /** The total of its order, in the same currency, where it is known (the refund's answer, or the order made here). */
  total_fee: z.optional(amount),
})
export type RefundEntry = z.infer<typeof refundEntry>

/**
 * Something that happened to an order, for its story (`gw order timeline`): made (by which profile
 * and command), its QR shown or saved, queried (the state shown), notified (verified or rejected,
 * by which listener), closed. What a kind carries is in `detail`.
 */
const eventEntry = z.object({
  type: z.literal('event'),
  ...ofOrder,
  kind: z.enum(['made', 'qr', 'queried', 'notified', 'closed']),
  at: time,
  detail: z.record(z.string(), z.unknown()),
})
export type EventEntry = z.infer<typeof eventEntry>

const entry = z.discriminatedUnion('type', [orderEntry, refundEntry, eventEntry])
export type Entry = z.infer<typeof entry>

/** A line of history.jsonl as a record, or undefined when it is not one. */
export function entryOf(line: string): Entry | undefined {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  const parsed = entry.safeParse(value)
  return parsed.success ? parsed.data : undefined
}

/** Refunds whose outcome is not known yet: sent (or about to be), without an answer that settles them. */
export const isUnsettled = (entry: RefundEntry) => entry.status === 'intent' || entry.status === 'unknown'

/** Refunds that took (or are taking) money from the order. */
export const isMade = (entry: RefundEntry) =>
  !entry.status || entry.status === 'refunded' || entry.status === 'processing' || entry.status === 'not_confirmable'

/**
 * How far an order's state goes, for ordering what gw learns by what it proves, never by when it
 * learned it: made, then scanned, then an end (paid, failed, closed), and a refund last. A state
 * gw does not know, or one that says the gateway has not decided (PENDING, NOTSURE), proves nothing.
 */
export const STATE_RANK: Readonly<Record<string, number>> = {
  NOTPAY: 1,
  USERPAYING: 2,
  PAYERROR: 3,
  CLOSED: 3,
  SUCCESS: 4,
  REFUND: 5,
}

/** Whether a state shown now moves the one known: it goes further (or is the same, learned again). */
export const movesState = (known: string | null | undefined, shown: string): boolean =>
  !known || known === shown || (STATE_RANK[shown] ?? 0) > (STATE_RANK[known] ?? 0)
