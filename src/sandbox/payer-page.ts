/**
 * The payer's side of the sandbox: the page a wallet would show after scanning the QR code,
 * with the amount, the merchant, the channel, an expiry countdown and Pay / Decline. Plain
 * HTML forms; the countdown is the only script.
 */
import {formatAmount} from '../lib/gateway/protocol/index.js'
import type {SandboxOrder} from './ledger.js'

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const amount = (order: SandboxOrder) => formatAmount(order.total_fee, order.fee_type)

const STATE_TEXT: Record<string, string> = {
  SUCCESS: 'Paid. Thank you.',
  REFUND: 'Paid (since refunded in part or in full).',
  PAYERROR: 'Payment declined.',
  CLOSED: 'This order is closed; the payment can no longer be made.',
}

export function payerPage(order: SandboxOrder, message?: string): string {
  const open = order.state === 'NOTPAY' || order.state === 'USERPAYING'
  const expires = order.expires_at === null ? '' : new Date(order.expires_at).toISOString()
  const action = `/pay/${encodeURIComponent(order.gw_order_no)}`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay ${escapeHtml(amount(order))} - gw sandbox</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 26rem; margin: 2rem auto; padding: 0 1rem; color: #1d2433; }
  .card { border: 1px solid #d0d5dd; border-radius: 12px; padding: 1.5rem; }
  .amount { font-size: 2.2rem; font-weight: 700; margin: .5rem 0; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .3rem 1rem; margin: 1rem 0; }
  dt { color: #667085; } dd { margin: 0; word-break: break-all; }
  .actions { display: flex; gap: .75rem; margin-top: 1.25rem; }
  button { flex: 1; font-size: 1.1rem; padding: .8rem; border-radius: 8px; border: 0; cursor: pointer; }
  .pay { background: #12b76a; color: white; } .decline { background: #f2f4f7; color: #b42318; }
  .status { font-weight: 600; margin-top: 1rem; }
  .sandbox { color: #b54708; font-size: .85rem; }
</style>
</head>
<body>
<div class="card">
  <div class="sandbox">gw sandbox: no real money moves</div>
  <div>Pay to merchant <strong id="merchant">${escapeHtml(order.appid)}</strong></div>
  <div class="amount" id="amount">${escapeHtml(amount(order))}</div>
  <dl>
    <dt>Channel</dt><dd id="channel">${escapeHtml(order.channel)}</dd>
    <dt>Order</dt><dd id="order">${escapeHtml(order.mch_order_no)}</dd>
    ${order.product ? `<dt>Product</dt><dd>${escapeHtml(order.product)}</dd>` : ''}
    <dt>Expires</dt><dd id="expiry" data-expires="${expires}">${expires ? escapeHtml(expires) : 'never'}</dd>
  </dl>
  ${message ? `<p class="status" id="message">${escapeHtml(message)}</p>` : ''}
  <p class="status" id="state">${escapeHtml(STATE_TEXT[order.state] ?? 'Confirm the payment in your wallet.')}</p>
  ${
    open
      ? `<form method="post" action="${action}" class="actions">
    <button class="pay" name="action" value="pay" id="pay">Pay</button>
    <button class="decline" name="action" value="decline" id="decline">Decline</button>
  </form>`
      : ''
  }
</div>
<script>
  const el = document.getElementById('expiry');
  const at = Date.parse(el.dataset.expires || '');
  function tick() {
    if (!at) return;
    const left = Math.max(0, Math.round((at - Date.now()) / 1000));
    el.textContent = left > 0 ? 'in ' + Math.floor(left / 60) + ' min ' + (left % 60) + ' s' : 'expired';
    if (left > 0) setTimeout(tick, 1000);
  }
  tick();
</script>
</body>
</html>
`
}

export function notFoundPage(): string {
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><p>No such order in this sandbox.</p></body></html>\n'
}
