/**
 * An order's page: what `gw order timeline` tells (its numbers, its state in words and as of when,
 * paid, refunded and left, each line of its story), the QR code of an order not paid yet, and the
 * refund form, whose amount is checked against the balance shown.
 */
import {
  CHANNELS_BY_OPERATION,
  PAID_ORDER_STATES,
  UNSETTLED_ORDER_STATES,
  describeOrderState,
} from '../../gateway/protocol/index.js'
import {NUMBER_WORDS} from '../../orders/any-number.js'
import {entryWords} from '../../render/timeline.js'
import {Html, html} from '../html.js'
import type {Timeline, Totals} from '../refunding.js'
import {type PageContext, money, orderHref, page, problem, shownTime, tokenField} from './layout.js'

/** The refund form as it was filled in, and what was wrong with it. */
export interface RefundForm {
  amount: string
  reason: string
  problem?: string
}

/** What the page shows beside the story: why the gateway was not asked, and the QR code drawn. */
export interface OrderExtras {
  /** The gateway could not be asked now: the page shows what this machine knows, and says why. */
  notAsked?: string
  /** The order's QR code as SVG markup gw drew (never outside text), for an order not paid yet. */
  qrSvg?: string
  form?: RefundForm
}

function moneyBlock(totals: Totals | undefined): Html {
  if (!totals) return html`<p>No money was taken: the order was not paid.</p>`
  const tile = (label: string, value: string) =>
    html`<li><span class="label">${label}</span><span class="value">${value}</span></li>`
  if (totals.refunds_not_known)
    return html`<ul class="money">
        ${tile('Paid', money(totals.paid_fee, totals.fee_type))}${tile('Refunded', 'not known here')}
      </ul>
      <p>${totals.refunds_not_known}.</p>`
  const unproven = totals.unproven?.length
    ? html`<p class="notice">
        Not proven either way, so not counted:
        ${totals.unproven.map(
          (r, i) =>
            html`${i ? ', ' : ''}<span class="number">${r.mch_refund_no}</span> of
              ${money(r.refund_fee, totals.fee_type)} (${r.status})`,
        )}.
        If made, ${money((totals.left_fee ?? 0) - (totals.unproven_fee ?? 0), totals.fee_type)} is left.
      </p>`
    : ''
  return html`<ul class="money">
      ${tile('Paid', money(totals.paid_fee, totals.fee_type))}
      ${tile('Refunded', money(totals.refunded_fee, totals.fee_type))}
      ${tile('Left', money(totals.left_fee, totals.fee_type))}
    </ul>
    ${unproven}`
}

/** Why the order cannot be refunded here, or undefined when it can. */
function notRefundable(timeline: Timeline): string | undefined {
  const {state, channel} = timeline
  if (!state || !PAID_ORDER_STATES.includes(state))
    return `Only a paid order can be refunded: this one is ${state ?? 'in a state not known here'}.`
  if (channel && !CHANNELS_BY_OPERATION.order_refund.includes(channel))
    return `Orders on ${channel} cannot be refunded through the gateway's API: refund it on the merchant platform.`
  if (timeline.total_fee === undefined || !timeline.fee_type || !channel)
    return 'The order total and channel are not known here: refresh the page to ask the gateway.'
  return undefined
}

function refundSection(ctx: PageContext, timeline: Timeline, form: RefundForm | undefined): Html {
  const why = notRefundable(timeline)
  if (why) return html`<p>${why}</p>`
  const {totals} = timeline
  const left =
    totals?.left_fee !== undefined
      ? `Up to ${money(totals.left_fee, timeline.fee_type)} is left to refund (as the gateway showed its refunds).`
      : 'The balance is not known here; the gateway refuses a refund above it.'
  return html`${form?.problem ? problem(form.problem, 'Nothing was sent.') : ''}
    <form method="post" action="/refund/new" aria-label="Refund this order">
      ${tokenField(ctx, '/refund/new')}
      <input type="hidden" name="n" value="${timeline.mch_order_no}" />
      <div class="field">
        <label for="amount">Amount to refund, in ${timeline.fee_type}</label>
        <p class="help" id="amount-help">${left}</p>
        <input
          id="amount"
          name="amount"
          type="text"
          inputmode="decimal"
          autocomplete="off"
          required
          aria-describedby="amount-help"
          value="${form?.amount ?? ''}"
        />
      </div>
      <div class="field">
        <label for="reason">Reason</label>
        <p class="help" id="reason-help">
          What the customer is refunded for, in a few words: shown on the next page and in this desk's summary.
        </p>
        <input
          id="reason"
          name="reason"
          type="text"
          maxlength="120"
          autocomplete="off"
          aria-describedby="reason-help"
          value="${form?.reason ?? ''}"
        />
      </div>
      <button type="submit">Review the refund</button>
    </form>`
}

/** The whole page of an order. */
export function orderPage(ctx: PageContext, timeline: Timeline, extras: OrderExtras): string {
  const t = timeline
  const state = t.state
    ? html`<strong>${t.state}</strong>: ${describeOrderState(t.state)}`
    : html`<strong>state not known here</strong>`
  const asOf = t.state_at
    ? html`, as of ${shownTime(t.state_at, ctx.zone)}
      ${t.refreshed ? '(the gateway, asked now)' : '(as this machine last learned it)'}`
    : ''
  const facts: [string, Html | string | undefined][] = [
    ["Gateway's order number", t.gw_order_no && html`<span class="number">${t.gw_order_no}</span>`],
    ["Channel's order number", t.channel_order_no && html`<span class="number">${t.channel_order_no}</span>`],
    ['Channel', t.channel],
    ['Amount', t.total_fee === undefined ? undefined : money(t.total_fee, t.fee_type)],
    ['Payer', t.openid && html`<span class="number">${t.openid}</span>`],
    ['Made', t.made_here ? 'on this machine' : 'elsewhere: this machine did not make it'],
  ]
  const story = t.entries.map((entry) => {
    const [kind, words] = entryWords(entry)
    return html`<li>${shownTime(entry.at, ctx.zone)}<span class="kind">${kind}</span>${words}</li>`
  })
  const unpaid = t.state && UNSETTLED_ORDER_STATES.includes(t.state)
  const qr = extras.qrSvg
    ? html`<section aria-labelledby="qr">
        <h2 id="qr">QR code</h2>
        <p>Not paid yet: the payer can scan it.</p>
        <div class="qr" role="img" aria-label="QR code of order ${t.mch_order_no}">${new Html(extras.qrSvg)}</div>
      </section>`
    : unpaid
      ? html`<section aria-labelledby="qr">
          <h2 id="qr">QR code</h2>
          <p>Not paid yet. Its QR code is known only where the order was made.</p>
        </section>`
      : ''
  const body = html`<h1>Order <span class="number">${t.mch_order_no}</span></h1>
    ${t.found_by ? html`<p role="status">Found by its ${NUMBER_WORDS[t.found_by]}.</p>` : ''}
    ${extras.notAsked ? html`<p class="notice" role="status">The gateway could not be asked now (${extras.notAsked}): this is what this machine knows.</p>` : ''}
    <p>${state}${asOf}.</p>
    <p class="actions">
      <a class="button secondary" href="${orderHref(t.mch_order_no)}">Refresh: ask the gateway now</a>
    </p>
    <dl class="facts">
      ${facts
        .filter(([, v]) => v)
        .map(
          ([k, v]) =>
            html`<dt>${k}</dt>
              <dd>${v}</dd>`,
        )}
    </dl>
    <section aria-labelledby="money">
      <h2 id="money">Paid, refunded and left</h2>
      ${moneyBlock(t.totals)}
    </section>
    ${qr}
    <section aria-labelledby="refund">
      <h2 id="refund">Refund</h2>
      ${refundSection(ctx, t, extras.form)}
    </section>
    <section aria-labelledby="story">
      <h2 id="story">Story, oldest first</h2>
      ${
        story.length
          ? html`<ol class="story">
              ${story}
            </ol>`
          : html`<p>Nothing more is known of this order here.</p>`
      }
    </section>`
  return page(ctx, `Order ${t.mch_order_no}`, body)
}
