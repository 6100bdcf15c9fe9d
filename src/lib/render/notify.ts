/** What `gw notify listen` prints per notification: one line, verdict first. Every field of a notification is untrusted. */
import {formatAmount} from '../gateway/protocol/index.js'
import type {NotificationEvent} from '../notify/listener.js'
import type {Replayed} from '../notify/replay.js'
import {green, red} from './style.js'
import {shown} from '../untrusted.js'

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
  const forwarded = event.forwarded
  if (forwarded?.status === undefined && forwarded) parts.push(`forward failed: ${shown(forwarded.error)}`)
  else if (forwarded) parts.push(`forwarded: HTTP ${forwarded.status} "${shown(forwarded.body ?? '', 80)}"`)
  return parts.filter(Boolean).join('  ')
}

/** `gw notify replay`: one line per notification sent again, with the endpoint's answer. */
export function replayedLine(result: Replayed): string {
  const order = shown(result.mch_order_no ?? result.gw_order_no ?? `line ${result.line}`, 64)
  if (result.error) return `${order}  ${red('not delivered')}: ${shown(result.error)}`
  const said = `HTTP ${result.status} "${shown(result.answer ?? '', 80)}"`
  return `${order}  ${result.acknowledged ? green('acknowledged') : red('not acknowledged')}: ${said}`
}

/** Said on stderr for each rejected notification. */
export function rejectedWarning(event: NotificationEvent, profile: string): string {
  const advice = event.reason?.startsWith('signature')
    ? `; check the gateway public key of profile "${profile}" if this repeats`
    : ''
  return `rejected a notification: ${shown(event.reason)}. It was answered as a failure, so the gateway will retry${advice}.`
}
