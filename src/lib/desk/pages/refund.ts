/**
 * A refund's pages: the confirmation, which shows exactly what will be sent (the order, the amount
 * and its currency, the gateway, test or live) and on a live profile asks for the order number to
 * be typed; the again-check's question when it asks; then the outcome in words: refunded, not
 * refunded, or not known yet, and what to do.
 */
import type {Draft} from '../drafts.js'
import {html} from '../html.js'
import {type PageContext, money, orderHref, page, problem, tokenField} from './layout.js'

const HEADLINES = {
  refunded: 'Refunded',
  not_refunded: 'Not refunded',
  not_known: 'Not known yet',
  ask_again: 'Refunded recently: another?',
} as const

/** The address of a draft's page, and of what its forms post to. */
export const draftHref = (draft: Draft, action = '') => `/refund/${draft.id}${action}`

/** The confirmation of a draft (with the again-check's question once it asked, and what was wrong with a try). */
export function confirmationPage(ctx: PageContext, draft: Draft, wrong?: string): string {
  const {order} = draft
  const amount = money(draft.refund_fee, order.fee_type)
  const {profile} = ctx
  const asked = draft.outcome?.kind === 'ask_again' ? draft.outcome : undefined
  const send = draftHref(draft, '/send')
  const typed = profile.live
    ? html`<div class="field">
        <label for="typed">Type the order number to send this refund</label>
        <p class="help" id="typed-help">
          A live refund moves real money: type <span class="number">${order.mch_order_no}</span> as it is shown.
        </p>
        <input
          id="typed"
          name="typed"
          type="text"
          required
          autocomplete="off"
          autocapitalize="off"
          spellcheck="false"
          aria-describedby="typed-help"
        />
      </div>`
    : ''
  const again = asked
    ? html`<div class="outcome ask_again" role="alert">
          ${asked.said.map((s) => html`<p>${s}</p>`)}
          <p>${asked.next}</p>
        </div>
        <div class="field check">
          <input type="checkbox" id="again" name="again" value="yes" required />
          <label for="again">Yes: the customer is owed another refund of ${amount}</label>
        </div>`
    : ''
  const body = html`<h1>Check the refund, then send it</h1>
    <p>Nothing has been sent yet. This is exactly what will be sent:</p>
    <dl class="facts">
      <dt>Order</dt>
      <dd class="number">${order.mch_order_no}</dd>
      <dt>Amount</dt>
      <dd>${amount}</dd>
      <dt>Currency</dt>
      <dd>${order.fee_type}</dd>
      <dt>Order total</dt>
      <dd>${money(order.total_fee, order.fee_type)}</dd>
      <dt>Channel</dt>
      <dd>${order.channel}</dd>
      <dt>Reason</dt>
      <dd>${draft.reason || 'none given'}</dd>
      <dt>Gateway</dt>
      <dd>${profile.baseUrl} (appid ${profile.appid})</dd>
      <dt>Account</dt>
      <dd>
        ${profile.live ? html`<strong>LIVE</strong>: profile ${profile.name}, real money` : html`test: profile ${profile.name}`}
      </dd>
    </dl>
    ${wrong ? problem(wrong, 'Nothing was sent.') : ''} ${again}
    <form method="post" action="${send}" aria-label="Send the refund">
      ${tokenField(ctx, send)} ${typed}
      <div class="actions">
        <button type="submit" id="send" ${profile.live ? html` class="danger"` : ''}>
          Send the refund of ${amount}
        </button>
        <a href="${orderHref(order.mch_order_no)}">Cancel: back to the order</a>
      </div>
    </form>`
  return page(ctx, `Refund ${amount} of ${order.mch_order_no}`, body)
}

/** A draft's outcome (or, while it is being sent, that it is). */
export function outcomePage(ctx: PageContext, draft: Draft): string {
  const {order} = draft
  const amount = money(draft.refund_fee, order.fee_type)
  if (draft.state === 'sending' || !draft.outcome) {
    const body = html`<h1>Sending the refund of ${amount}</h1>
      <p role="status">
        The refund of order <span class="number">${order.mch_order_no}</span> is being sent. Reload this page in a
        moment to see its outcome; nothing is sent twice.
      </p>`
    return page(ctx, `Sending ${amount}`, body)
  }
  const outcome = draft.outcome
  const settle = draftHref(draft, '/settle')
  const settleForm =
    outcome.kind === 'not_known'
      ? html`<form method="post" action="${settle}" aria-label="Settle the refund">
          ${tokenField(ctx, settle)}
          <button type="submit">Look the refund up again</button>
        </form>`
      : ''
  const body = html`<h1>
      ${HEADLINES[outcome.kind]}: ${amount} of order <span class="number">${order.mch_order_no}</span>
    </h1>
    <div class="outcome ${outcome.kind}" role="status">${outcome.said.map((sentence) => html`<p>${sentence}</p>`)}</div>
    ${outcome.next ? html`<p><strong>What to do:</strong> ${outcome.next}</p>` : ''}
    ${draft.reason ? html`<p>Reason: ${draft.reason}</p>` : ''}
    <div class="actions">${settleForm}<a href="${orderHref(order.mch_order_no)}">Back to the order's story</a></div>`
  return page(ctx, `${HEADLINES[outcome.kind]}: ${amount} of ${order.mch_order_no}`, body)
}
