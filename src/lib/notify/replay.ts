/**
 * `gw notify replay`: the notifications a listener logged (--log, JSON lines), sent again to an
 * endpoint verbatim (the raw body and content type the gateway sent), one at a time, each
 * with the endpoint's answer and whether it acknowledges (a JSON object with result SUCCESS
 * and msg OK, as the gateway requires). Rejected deliveries are not replayed (they were never
 * the gateway's), and a payment whose notification was delivered several times is sent once,
 * as first delivered.
 */
import {readFileSync} from 'node:fs'

import {usageError} from '../errors.js'
import {isAcknowledgement} from '../gateway/protocol/index.js'
import {post} from '../io/http.js'

interface LoggedDelivery {
  at?: string
  verdict?: string
  mch_order_no?: string
  gw_order_no?: string
  headers?: Record<string, string | string[] | undefined>
  body?: string
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

/** The verified deliveries of a log, each body once, optionally only those of one order; unreadable lines are counted. */
export function readLog(
  path: string,
  only?: string,
): {deliveries: (LoggedDelivery & {line: number})[]; unreadable: number[]} {
  let text
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw usageError(
      code === 'ENOENT' ? `The log ${path} does not exist.` : `The log ${path} cannot be read (${code}).`,
    )
  }
  const deliveries: (LoggedDelivery & {line: number})[] = []
  const unreadable: number[] = []
  const sent = new Set<string>()
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return
    let entry: LoggedDelivery
    try {
      entry = JSON.parse(raw) as LoggedDelivery
    } catch {
      return unreadable.push(i + 1)
    }
    if (typeof entry.body !== 'string' || entry.verdict !== 'verified') return
    if (only && entry.mch_order_no !== only && entry.gw_order_no !== only) return
    // The gateway's retries of one payment are new deliveries (a new nonce and time): one per order.
    const key = entry.gw_order_no ?? entry.mch_order_no ?? entry.body
    if (sent.has(key)) return
    sent.add(key)
    deliveries.push({...entry, line: i + 1})
  })
  return {deliveries, unreadable}
}

export async function replay(
  deliveries: readonly (LoggedDelivery & {line: number})[],
  to: string,
  onReplayed: (replayed: Replayed) => void,
): Promise<Replayed[]> {
  const results: Replayed[] = []
  for (const delivery of deliveries) {
    const type = [delivery.headers?.['content-type']].flat()[0] ?? 'text/plain;charset=utf-8'
    const answer = await post(to, delivery.body!, type, {limit: 64 * 1024, timeoutMs: 10_000})
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
            acknowledged: answer.status >= 200 && answer.status < 300 && isAcknowledgement(answer.body),
          }
    results.push(result)
    onReplayed(result)
  }
  return results
}
