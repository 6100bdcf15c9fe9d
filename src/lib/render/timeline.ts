/**
 * `gw order timeline` for people: the order in one line, then its story, a line each, oldest
 * first, then what it adds up to (paid, refunded, left).
 */
import {describeOrderState, formatAmount} from '../gateway/protocol/index.js'
import {NUMBER_WORDS} from '../orders/any-number.js'
import type {Timeline} from '../orders/timeline.js'
import type {TimelineEntry} from '../orders/timeline-entry.js'
import type {Totals} from '../orders/timeline-totals.js'
import {plural} from '../plural.js'
import {fileShown, shown} from '../untrusted.js'

/** A time as the story gives it (in the one form, in the zone asked for); text that is not one (a record's), shown safely. */
const when = (at: string) => shown(at, 30)

/** A line of the story in words: its kind (made, paid, refund...) and what it says (the desk shows the same). */
export function entryWords(entry: TimelineEntry): [string, string] {
  switch (entry.kind) {
    case 'made': {
      const by = entry.command ? ` (${shown(entry.command, 40)})` : ''
      const profile = entry.profile ? `by profile ${shown(entry.profile, 40)}${by}` : `on this machine${by}`
      return ['made', `${profile}${entry.live ? ', LIVE' : ''}`]
    }
    case 'qr': {
      const drawn = entry.drawn ? `drawn (${shown(entry.drawn, 20)})` : `not drawn (${shown(entry.not_drawn, 80)})`
      const file = entry.file ? `, saved to ${fileShown(entry.file)}` : ''
      const code = entry.code_url ? `; code_url ${shown(entry.code_url, 200)}` : ''
      return ['QR code', `${drawn}${file}${code}`]
    }
    case 'queried': {
      const again = entry.count ? ` (${entry.count} times, the last at ${when(entry.last_at ?? '')})` : ''
      return ['queried', `${shown(entry.state, 20)}: ${describeOrderState(entry.state)}${again}`]
    }
    case 'paid':
      return [
        'paid',
        `the gateway's time_end, as ${entry.shown_by.map((by) => `a ${by}`).join(' and ')} showed it${entry.openid ? `; payer ${shown(entry.openid, 64)}` : ''}`,
      ]
    case 'notified': {
      const retry = entry.retry ? `, repeat ${entry.retry}` : ''
      const by = entry.listener ? ` by the listener at ${shown(entry.listener, 80)}` : ''
      return [
        'notified',
        entry.verdict === 'verified'
          ? `verified${retry}${by}`
          : `REJECTED${retry}${by}: ${shown(entry.reason ?? 'not verified', 120)}`,
      ]
    }
    case 'refund': {
      const amount = formatAmount(entry.refund_fee, entry.fee_type)
      const proof = entry.gw_refund_no ? ` (gateway refund ${shown(entry.gw_refund_no, 40)})` : ''
      const by =
        entry.made_by === 'elsewhere'
          ? 'made elsewhere, as the gateway shows it'
          : `by ${entry.made_by === 'refund create' ? 'gw refund create' : fileShown(entry.made_by)}`
      const now =
        entry.gateway_state === 'absent'
          ? '; the gateway has no refund of this number (absent): nothing was refunded under it'
          : entry.gateway_state && entry.made_by !== 'elsewhere'
            ? `; the gateway shows ${shown(entry.gateway_state, 20)} now`
            : ''
      const status = shown(entry.status, 20)
      const unattributed = entry.unattributed
        ? ' [recorded by an earlier gw, which did not record the gateway: maybe another profile of this appid]'
        : ''
      return ['refund', `${shown(entry.mch_refund_no, 40)} of ${amount}: ${status}${proof}, ${by}${now}${unattributed}`]
    }
    case 'closed':
      return ['closed', entry.already_closed ? 'closed (it was closed already)' : 'closed by gw order close']
  }
}

export function timelineView(timeline: Timeline): string {
  const amount = formatAmount(timeline.total_fee, timeline.fee_type)
  const numbers = [
    timeline.gw_order_no && `gateway ${shown(timeline.gw_order_no, 40)}`,
    timeline.channel_order_no && `channel order ${shown(timeline.channel_order_no, 40)}`,
    timeline.channel,
    timeline.total_fee !== undefined && amount,
  ].filter(Boolean)
  const state = timeline.state
    ? `${shown(timeline.state, 20)}: ${describeOrderState(timeline.state)}${timeline.state_at ? `, as of ${when(timeline.state_at)}` : ''}${timeline.refreshed ? ' (asked now)' : ' (as this machine last learned it)'}`
    : 'state not known here'
  const head = `Order ${shown(timeline.mch_order_no, 64)} (${numbers.join(', ')}): ${state}`
  const lines = timeline.entries.map((entry) => {
    const [kind, text] = entryWords(entry)
    return `  ${when(entry.at).padEnd(25)}  ${kind.padEnd(9)}  ${text}`
  })
  const more = timeline.refreshed
    ? []
    : [
        '',
        `This machine's knowledge; add --refresh to ask the gateway now (the order, its refunds, those made elsewhere).`,
      ]
  const elsewhere = timeline.made_here ? [] : ['', 'This order was not made on this machine.']
  const foundBy = timeline.found_by ? ['', `Found by its ${NUMBER_WORDS[timeline.found_by]}.`] : []
  const totals = timeline.totals ? ['', ...totalsView(timeline.totals)] : []
  return [head, ...lines, ...totals, ...foundBy, ...elsewhere, ...more].join('\n')
}

/** "Paid 150.50 THB, refunded 75.25 THB, left 75.25 THB.", and the refunds not proven either way, apart. */
function totalsView(totals: Totals): string[] {
  const money = (fee: number | undefined) => formatAmount(fee, totals.fee_type)
  const paid = `Paid ${money(totals.paid_fee)}`
  if (totals.refunds_not_known) return [`${paid}; refunded: not known here: ${totals.refunds_not_known}.`]
  const {unproven = []} = totals
  const proven = unproven.length ? ' as the gateway showed it' : ''
  const lines = [`${paid}, refunded ${money(totals.refunded_fee)}${proven}, left ${money(totals.left_fee)}.`]
  if (unproven.length) {
    const each = unproven.map(
      (refund) =>
        `${shown(refund.mch_refund_no, 40)} of ${money(refund.refund_fee)} (${shown(refund.status, 20)}${refund.unattributed ? ", recorded by an earlier gw: maybe another gateway's" : ''})`,
    )
    const ifMade = (totals.left_fee ?? 0) - (totals.unproven_fee ?? 0)
    lines.push(
      `Not proven either way, so not counted: ${plural(unproven.length, 'refund')}, ${each.join(', ')}; if made, ${money(ifMade)} is left.`,
    )
  }
  return lines
}
