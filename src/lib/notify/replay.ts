/**
 * `gw notify replay`: the notifications a listener logged (--log, JSON lines), sent again to an
 * endpoint verbatim (the raw body and content type the gateway sent), one at a time, each
 * with the endpoint's answer and whether it acknowledges (a JSON object with result SUCCESS
 * and msg OK, as the gateway requires).
 *
 * The log is a file anyone may have edited: its verdicts and order numbers are not believed.
 * Each body is verified again with the profile's gateway key, exactly as the listener does, and
 * what is sent is what verifies, with a content type the gateway uses; the rest is skipped,
 * with the reason. A payment whose notification was delivered several times is sent once, as
 * first delivered.
 */

import * as z from 'zod/mini'

import {usageError} from '../errors.js'
import {isAcknowledgement} from '../gateway/protocol/index.js'
import {post} from '../io/http.js'
import {forEachLine} from '../io/json-lines.js'
import {MAX_NOTIFICATION_BYTES, type Verifier, isGatewayContentType, judgeNotification} from './verification.js'

/** A line of the log as far as replay needs it: the raw body and the headers it came with. */
const loggedSchema = z.looseObject({
  at: z.optional(z.string()),
  verdict: z.optional(z.string()),
  headers: z.optional(z.record(z.string(), z.unknown())),
  body: z.string(),
})
type Logged = z.infer<typeof loggedSchema> & {line: number}

interface Delivery {
  line: number
  at?: string
  body: string
  type: string
  mch_order_no?: string
  gw_order_no?: string
}

export interface Skipped {
  line: number
  reason: string
}

export interface Replayed {
  /** The line of the log it came from. */
  line: number
  mch_order_no?: string
  gw_order_no?: string
  /** When the gateway delivered it. */
  logged_at?: string
  status?: number
  answer?: string
  acknowledged: boolean
  error?: string
}

/**
 * The deliveries of a log to send again: each body verified with `verifier`, each payment
 * once, optionally only those of one order. Lines that are not a logged delivery are counted;
 * deliveries that do not verify (or came with another content type) are skipped, with why.
 */
export function readLog(
  path: string,
  verifier: Verifier,
  only?: string,
): {deliveries: Delivery[]; skipped: Skipped[]; unreadable: number[]} {
  const logged: Logged[] = []
  const unreadable: number[] = []
  const read = (raw: string | undefined, line: number) => {
    if (raw !== undefined && !raw.trim()) return
    let parsed: unknown
    try {
      parsed = JSON.parse(raw ?? '')
    } catch {
      return unreadable.push(line)
    }
    const entry = loggedSchema.safeParse(parsed)
    if (!entry.success) return unreadable.push(line)
    // Deliveries the listener refused were never the gateway's (a body it refused may verify now: it is not sent).
    if (entry.data.verdict === 'verified') logged.push({...entry.data, line})
  }
  try {
    // A logged delivery holds a body of at most MAX_NOTIFICATION_BYTES, escaped: a longer line is none.
    forEachLine(path, read, undefined, 8 * MAX_NOTIFICATION_BYTES)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw usageError(
      code === 'ENOENT' ? `The log ${path} does not exist.` : `The log ${path} cannot be read (${code}).`,
    )
  }
  const deliveries: Delivery[] = []
  const skipped: Skipped[] = []
  const sent = new Set<string>()
  for (const entry of logged) {
    if (Buffer.byteLength(entry.body) > MAX_NOTIFICATION_BYTES) {
      skipped.push({
        line: entry.line,
        reason: `its body is larger than ${MAX_NOTIFICATION_BYTES} bytes, which no listener takes`,
      })
      continue
    }
    const judged = judgeNotification(entry.body, verifier)
    if (!judged.verified) {
      skipped.push({line: entry.line, reason: judged.reason})
      continue
    }
    const {mch_order_no, gw_order_no} = judged.fields
    if (only && mch_order_no !== only && gw_order_no !== only) continue
    const type = [entry.headers?.['content-type']].flat()[0] ?? 'text/plain;charset=utf-8'
    if (!isGatewayContentType(type)) {
      skipped.push({line: entry.line, reason: 'it came with a content type the gateway does not send'})
      continue
    }
    // The gateway's retries of one payment are new deliveries (a new nonce and time): one per order.
    const key = gw_order_no ?? mch_order_no ?? entry.body
    if (sent.has(key)) continue
    sent.add(key)
    deliveries.push({line: entry.line, at: entry.at, body: entry.body, type, mch_order_no, gw_order_no})
  }
  return {deliveries, skipped, unreadable}
}

export async function replay(
  deliveries: readonly Delivery[],
  to: string,
  onReplayed: (replayed: Replayed) => void,
): Promise<Replayed[]> {
  const results: Replayed[] = []
  for (const delivery of deliveries) {
    const answer = await post(to, delivery.body, delivery.type, {limit: 64 * 1024, timeoutMs: 10_000})
    const {line, mch_order_no, gw_order_no, at: logged_at} = delivery
    const result: Replayed =
      'error' in answer
        ? {line, mch_order_no, gw_order_no, logged_at, acknowledged: false, error: answer.error}
        : {
            line,
            mch_order_no,
            gw_order_no,
            logged_at,
            status: answer.status,
            answer: answer.body,
            acknowledged: isAcknowledgement(answer.status, answer.body),
          }
    results.push(result)
    onReplayed(result)
  }
  return results
}
