/** What `gw notify listen` prints per notification: one line, verdict first. Every field of a notification is untrusted. */
import {NOTIFICATION_ACK, formatAmount} from '../gateway/protocol/index.js'
import type {NotificationEvent} from '../notify/listener.js'
import type {Replayed} from '../notify/replay.js'
import type {ListenTally} from '../notify/tally.js'
import {plural} from '../plural.js'
import {green, red} from './style.js'
import {shown} from '../untrusted.js'

/**
 * An endpoint's answer to a notification (forwarded, replayed, or delivered by the sandbox), in
 * words: "acknowledged (HTTP 200)", "not acknowledged (HTTP 500: app down); acknowledge with …", "not delivered
 * (nothing is listening...)". Its body is the endpoint's text, shown safely, never quoted JSON in quotes.
 */
export function endpointAnswer(answer: {
  status?: number | null
  body?: string | null
  error?: string
  acknowledged: boolean
}): string {
  if (answer.status === undefined || answer.status === null)
    return `${red('not delivered')} (${shown(answer.error ?? 'no answer')})`
  if (answer.acknowledged) return `${green('acknowledged')} (HTTP ${answer.status})`
  const body = answer.body ? `: ${shown(answer.body, 80)}` : ''
  // What the endpoint should have said, exactly: a developer's first answer is often "ok" or "success".
  return `${red('not acknowledged')} (HTTP ${answer.status}${body}); acknowledge with HTTP 200 and the body ${NOTIFICATION_ACK}`
}

export function eventLine(event: NotificationEvent): string {
  const time = event.at
  const verdict = event.verdict === 'verified' ? green('verified') : red('REJECTED')
  const amount =
    event.total_fee === undefined ? '' : formatAmount(event.total_fee, event.fee_type && shown(event.fee_type, 8))
  const fields = [event.mch_order_no ?? '-', event.gw_order_no ?? '-', amount, event.channel ?? ''].map((f) =>
    shown(f, 64),
  )
  const parts = [time, verdict, ...fields]
  if (event.retry > 0) parts.push(`retry ${event.retry}`)
  if (event.reason) parts.push(`(${shown(event.reason)})`)
  if (event.forwarded) parts.push(`forwarded: ${endpointAnswer(event.forwarded)}`)
  return parts.filter(Boolean).join('  ')
}

/** How a listener ended: payments and deliveries, and with a forward target what the endpoint acknowledged. */
export function listenSummary(tally: ListenTally, forwardTo: string | undefined): string {
  const seen = `${plural(tally.payments, 'payment')} notified (${plural(tally.deliveries, 'verified delivery', 'verified deliveries')}), ${tally.rejected} rejected.`
  if (!forwardTo) return seen
  const failed = tally.forwardsFailed ? ` (${plural(tally.forwardsFailed, 'forward')} not acknowledged)` : ''
  return `${seen} ${forwardTo} acknowledged ${tally.acknowledged} of ${plural(tally.payments, 'payment')}${failed}.`
}

/** `gw notify replay`: one line per notification sent again, with the endpoint's answer. */
export function replayedLine(result: Replayed): string {
  const order = shown(result.mch_order_no ?? result.gw_order_no ?? `line ${result.line}`, 64)
  return `${order}  ${endpointAnswer({...result, body: result.answer})}`
}

/** Said on stderr for each rejected notification. */
export function rejectedWarning(event: NotificationEvent, profile: string): string {
  const advice = event.reason?.startsWith('signature')
    ? `; check the gateway public key of profile "${profile}" if this repeats`
    : ''
  return `rejected a notification: ${shown(event.reason)}. It was answered as a failure, so the gateway will retry${advice}.`
}
