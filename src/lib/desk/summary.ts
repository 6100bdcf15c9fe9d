/** What `gw desk` says when it stops: what was done through it, and what is left to settle. */
import {type SuggestedFor, gwCommand} from '../errors.js'
import {plural} from '../plural.js'
import {quoted} from '../untrusted.js'
import type {DeskSummary} from './desk.js'
import type {Refusal} from './server.js'

const OUTCOME_WORDS = {refunded: 'refunded', not_refunded: 'not refunded', not_known: 'not known yet'} as const

const REFUSAL_WORDS: Record<Refusal, string> = {
  host: 'naming another host (DNS rebinding)',
  cross_site: 'made by another site or page',
  secret: "with a secret that is not this run's",
  no_session: 'without a session',
  origin: 'posted from another origin',
  token: "posted without the page's token",
  method: 'of another method than GET or POST',
}

export function deskSummaryLines(summary: DeskSummary, profile: SuggestedFor): string[] {
  const lines = [
    `gw desk stopped: ${plural(summary.orders, 'order')} looked up, ${plural(summary.refunds.length, 'refund')}.`,
  ]
  for (const refund of summary.refunds) {
    const outcome = OUTCOME_WORDS[refund.outcome as keyof typeof OUTCOME_WORDS] ?? refund.outcome
    const number = refund.mch_refund_no
      ? ` (refund ${refund.mch_refund_no}${refund.gw_refund_no ? `, gateway refund ${refund.gw_refund_no}` : ''})`
      : ''
    const reason = refund.reason ? `, reason ${quoted(refund.reason, 80)}` : ''
    lines.push(`  ${refund.mch_order_no}: ${refund.amount} ${outcome}${number}${reason}`)
    if (refund.outcome === 'not_known' && refund.mch_refund_no)
      lines.push(
        `    settle it (gw looks it up first, never refunds twice): ${gwCommand(profile, 'refund', 'create', refund.mch_order_no, '--amount', refund.amount.split(' ')[0]!, '--mch-refund-no', refund.mch_refund_no)}`,
      )
  }
  const refused = Object.entries(summary.refused).filter(([, n]) => n > 0)
  if (refused.length)
    lines.push(
      `Refused: ${refused.map(([why, n]) => `${plural(n, 'request')} ${REFUSAL_WORDS[why as Refusal]}`).join(', ')}; nothing was sent for them.`,
    )
  return lines
}
