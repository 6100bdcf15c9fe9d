/**
 * The JSON-lines history of earlier versions (`history.jsonl`), read once into the database: each
 * line checked with zod (lines of earlier versions lack an order's state or a refund's status),
 * lines that are not a record (cut short by a killed write, edited by hand) skipped and named by
 * their number. Read in chunks, so a file of a million lines never sits whole in memory.
 */
import {closeSync, fstatSync, openSync, readSync} from 'node:fs'
import {StringDecoder} from 'node:string_decoder'

import * as z from 'zod/mini'

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

const entry = z.discriminatedUnion('type', [orderEntry, refundEntry])
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

/** Each line of a file with its number (from 1), read in chunks; `progress` is told the bytes read so far. */
export function forEachLine(
  path: string,
  onLine: (line: string, number: number) => void,
  progress: (bytesRead: number, size: number) => void = () => {},
): void {
  const fd = openSync(path, 'r')
  try {
    const {size} = fstatSync(fd)
    const chunk = Buffer.alloc(1 << 20)
    const decoder = new StringDecoder('utf8')
    let rest = ''
    let number = 0
    let read = 0
    for (let got; (got = readSync(fd, chunk, 0, chunk.length, null)) > 0;) {
      read += got
      const lines = (rest + decoder.write(chunk.subarray(0, got))).split('\n')
      rest = lines.pop()!
      for (const line of lines) onLine(line, ++number)
      progress(read, size)
    }
    rest += decoder.end()
    if (rest) onLine(rest, ++number)
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
    'not a record of an order or refund (cut short, or edited) and were skipped; what they held is not known to gw.'
  )
}
