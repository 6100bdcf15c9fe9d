/**
 * The history as JSON lines (`history.jsonl`): what earlier versions kept, and where this version
 * writes a record the database cannot take now (held by another program, a full disk), so that
 * the fact a refund was made is kept where no other program can hold it; the history merges the
 * file the next time it opens. Each line is checked with zod (lines of earlier versions lack an
 * order's state or a refund's status); lines that are not a record (cut short by a killed write,
 * edited by hand, longer than any record) are skipped and named by their number. Read in chunks,
 * with a bound on a line's length, so neither a file of a million lines nor one line of a
 * gigabyte sits in memory.
 */
import {closeSync, fstatSync, fsyncSync, openSync, readSync} from 'node:fs'
import {StringDecoder} from 'node:string_decoder'

import * as z from 'zod/mini'

import {writeFully} from '../io/private-file.js'

const text = z.string()
const amount = z.int().check(z.nonnegative())
const time = z.iso.datetime({offset: true})

const orderEntry = z.object({
  type: z.literal('order'),
  appid: text,
  mch_order_no: text,
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
  appid: text,
  mch_order_no: text,
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
})
export type RefundEntry = z.infer<typeof refundEntry>

/**
 * Something that happened to an order, for its story (`gw order timeline`): made (by which profile
 * and command), its QR shown or saved, queried (the state shown), notified (verified or rejected,
 * by which listener), closed. What a kind carries is in `detail`.
 */
const eventEntry = z.object({
  type: z.literal('event'),
  appid: text,
  mch_order_no: text,
  kind: z.enum(['made', 'qr', 'queried', 'notified', 'closed']),
  at: time,
  detail: z.record(z.string(), z.unknown()),
})
export type EventEntry = z.infer<typeof eventEntry>

const entry = z.discriminatedUnion('type', [orderEntry, refundEntry, eventEntry])
export type Entry = z.infer<typeof entry>

/** A line of the file as a record, or undefined when it is not one. */
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

/** A record is under 1 KiB: a line longer than this is not one, and is never held whole. */
const MAX_LINE_BYTES = 64 * 1024

/**
 * Each line of a file with its number (from 1), read in chunks; a line longer than
 * MAX_LINE_BYTES is given as undefined (its bytes skipped, never held). `progress` is told the
 * bytes read so far.
 */
export function forEachLine(
  path: string,
  onLine: (line: string | undefined, number: number) => void,
  progress: (bytesRead: number, size: number) => void = () => {},
): void {
  const fd = openSync(path, 'r')
  try {
    const {size} = fstatSync(fd)
    const chunk = Buffer.alloc(1 << 20)
    const decoder = new StringDecoder('utf8')
    let rest = ''
    /** The line being read is too long: its bytes are skipped up to its end. */
    let tooLong = false
    let number = 0
    let read = 0
    for (let got; (got = readSync(fd, chunk, 0, chunk.length, null)) > 0;) {
      read += got
      const lines = (rest + decoder.write(chunk.subarray(0, got))).split('\n')
      rest = lines.pop()!
      for (const line of lines) {
        onLine(tooLong || line.length > MAX_LINE_BYTES ? undefined : line, ++number)
        tooLong = false
      }
      if (rest.length > MAX_LINE_BYTES) {
        tooLong = true
        rest = ''
      }
      progress(read, size)
    }
    rest += decoder.end()
    if (rest || tooLong) onLine(tooLong || rest.length > MAX_LINE_BYTES ? undefined : rest, ++number)
  } finally {
    closeSync(fd)
  }
}

/**
 * Appends records to the file, whole and synced before this returns: one write (O_APPEND), so
 * lines of two processes never interleave. Throws what the system says (a full disk).
 */
export function appendEntries(path: string, entries: readonly Entry[]): void {
  const fd = openSync(path, 'a+', 0o600)
  try {
    // After a write cut short (a full disk), the next record starts on a line of its own.
    const {size} = fstatSync(fd)
    const last = Buffer.alloc(1)
    const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a
    writeFully(fd, `${torn ? '\n' : ''}${entries.map((entry) => `${JSON.stringify(entry)}\n`).join('')}`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** The sentence for lines that are not a record: their numbers (the first five). */
export function unreadableLines(file: string, numbers: number[]): string {
  const one = numbers.length === 1
  const lines = numbers.length > 5 ? `${numbers.slice(0, 5).join(', ')}, …` : numbers.join(', ')
  return (
    `${file}: ${one ? 'line' : 'lines'} ${lines} ${one ? 'is' : 'are'} ` +
    `not a record of an order or refund (cut short, edited, or longer than ${MAX_LINE_BYTES / 1024} KiB) and were skipped; what they held is not known to gw.`
  )
}
