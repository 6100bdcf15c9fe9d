/** What `gw notify listen` prints per notification: one line, verdict first. */
import {formatAmount} from '../gateway/protocol/index.js'
import type {NotificationEvent} from '../notify/listener.js'
import {green, red} from './style.js'

export function eventLine(event: NotificationEvent): string {
  const time = event.at.replace('T', ' ').slice(0, 19)
  const verdict = event.verdict === 'verified' ? green('verified') : red('REJECTED')
  const amount = event.total_fee === undefined ? '' : formatAmount(event.total_fee, event.fee_type)
  const parts = [time, verdict, event.mch_order_no ?? '-', event.gw_order_no ?? '-', amount, event.channel ?? '']
  if (event.retry > 0) parts.push(`retry ${event.retry}`)
  if (event.reason) parts.push(`(${event.reason})`)
  const forwarded = event.forwarded
  if (forwarded?.status === undefined && forwarded) parts.push(`forward failed: ${forwarded.error}`)
  else if (forwarded)
    parts.push(`forwarded: HTTP ${forwarded.status} ${JSON.stringify(forwarded.body?.slice(0, 80) ?? '')}`)
  return parts.filter(Boolean).join('  ')
}

/** Said on stderr for each rejected notification. */
export function rejectedWarning(event: NotificationEvent, profile: string): string {
  return `rejected a notification: ${event.reason}. It was answered as a failure, so the gateway will retry; check the gateway public key of profile "${profile}" if this repeats.`
}
