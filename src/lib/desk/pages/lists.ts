/**
 * The find page (one box for any number, and the newest orders and refunds below it) and the
 * lists of orders and refunds, with the list commands' filters (time range, state, channel,
 * amount), a page at a time, each row a link to its order's story.
 */
import {ALL_CHANNELS, describeOrderState} from '../../gateway/protocol/index.js'
import type {ListedOrder} from '../../orders/list.js'
import {type Html, type Value, html} from '../html.js'
import type {ListedRefund} from '../refunding.js'
import {type PageContext, money, orderHref, page, problem, shownTime} from './layout.js'

/** What a list page was asked for: the filters as typed (shown back in the form), and the page. */
export interface ListAsk {
  since: string
  until: string
  state: string
  channel: string
  amount: string
  page: number
}

/** A page of a list: its rows, how many there are in all, and the page's size. */
interface ListPage<T> {
  rows: T[]
  total: number
  size: number
}

/** A column of a list: its head (also each cell's label on a narrow screen), its class, and its cell of a row. */
interface Column<T> {
  head: string
  class?: 'amount' | 'number'
  cell: (row: T) => Value
}

/** One table of rows, as both lists draw it. */
function rowsTable<T>(caption: string, columns: readonly Column<T>[], rows: readonly T[]): Html {
  const heads = columns.map(
    (c) => html`<th scope="col" ${c.class === 'amount' ? html` class="amount"` : ''}>${c.head}</th>`,
  )
  const lines = rows.map(
    (row) =>
      html`<tr>
        ${columns.map((c) => html`<td data-label="${c.head}" ${c.class ? html` class="${c.class}"` : ''}>${c.cell(row)}</td>`)}
      </tr>`,
  )
  return html`<div class="table-wrap">
    <table class="rows">
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${heads}
        </tr>
      </thead>
      <tbody>
        ${lines}
      </tbody>
    </table>
  </div>`
}

/** An order's or a refund's order number, a link to the order's story. */
const orderLink = (number: string) => html`<a class="number" href="${orderHref(number)}">${number}</a>`

function ordersTable(ctx: PageContext, orders: readonly ListedOrder[], caption: string): Html {
  return rowsTable(
    caption,
    [
      {head: 'Made', cell: (o) => shownTime(o.made_at, ctx.zone)},
      {head: 'Order', cell: (o) => orderLink(o.mch_order_no)},
      {head: 'Amount', class: 'amount', cell: (o) => money(o.total_fee, o.fee_type)},
      {head: 'Channel', cell: (o) => o.channel},
      {head: 'State', cell: (o) => (o.state ? html`${o.state}: ${describeOrderState(o.state)}` : 'not known here')},
      {head: 'As of', cell: (o) => shownTime(o.state_at, ctx.zone)},
    ],
    orders,
  )
}

function refundsTable(ctx: PageContext, refunds: readonly ListedRefund[], caption: string): Html {
  return rowsTable(
    caption,
    [
      {head: 'Made', cell: (r) => shownTime(r.made_at, ctx.zone)},
      {head: 'Refund', class: 'number', cell: (r) => r.mch_refund_no},
      {head: 'Order', cell: (r) => orderLink(r.mch_order_no)},
      {head: 'Amount', class: 'amount', cell: (r) => money(r.refund_fee, r.fee_type)},
      {head: 'Status', cell: (r) => r.status},
      {head: 'Gateway refund', class: 'number', cell: (r) => r.gw_refund_no ?? ''},
      {head: 'Made by', cell: (r) => (r.source === 'refund create' ? 'gw refund create' : (r.source ?? ''))},
    ],
    refunds,
  )
}

/** The find page: the box (with the number typed and what went wrong, if it did), then the newest orders and refunds. */
export function findPage(
  ctx: PageContext,
  recent: {orders: ListedOrder[]; refunds: ListedRefund[]},
  asked?: {number: string; message: string; advice?: string},
): string {
  const orders = recent.orders.length
    ? ordersTable(ctx, recent.orders, 'The newest orders made on this machine')
    : html`<p>No order made on this machine yet.</p>`
  const refunds = recent.refunds.length
    ? refundsTable(ctx, recent.refunds, 'The newest refunds made on this machine')
    : html`<p>No refund made on this machine yet.</p>`
  const body = html`<h1>Find an order</h1>
    <form method="get" action="/find" role="search" aria-label="Find an order">
      <label for="number">Any number of the order or of a refund</label>
      <p class="help" id="number-help">
        The merchant's order number, the gateway's, the channel's (the customer's wallet receipt shows it), or a refund
        number: gw's or the gateway's.
      </p>
      <div class="find-row">
        <input
          id="number"
          name="number"
          type="search"
          required
          autocomplete="off"
          autocapitalize="off"
          spellcheck="false"
          aria-describedby="number-help"
          value="${asked?.number ?? ''}"
          ${asked ? '' : html` autofocus`}
        />
        <button type="submit">Find</button>
      </div>
    </form>
    ${asked ? problem(asked.message, asked.advice) : ''}
    <section aria-labelledby="recent-orders">
      <h2 id="recent-orders">Newest orders</h2>
      ${orders}
      <p><a href="/orders">All of today's orders</a></p>
    </section>
    <section aria-labelledby="recent-refunds">
      <h2 id="recent-refunds">Newest refunds</h2>
      ${refunds}
      <p><a href="/refunds">All of today's refunds</a></p>
    </section>`
  return page(ctx, asked ? `Not found: ${asked.number}` : 'Find an order', body, 'find')
}

/** The filters' form of a list, as the list commands take them. */
function filtersForm(action: string, ask: ListAsk, states: readonly string[]): Html {
  const option = (value: string, chosen: string, words = value) =>
    html`<option value="${value}" ${value === chosen ? html` selected` : ''}>${words}</option>`
  return html`<p class="help" id="time-help">
      Times: a date (2026-11-20), a date and time, today, yesterday, or back from now: 30m, 24h, 7d.
    </p>
    <p class="help" id="amount-help">An amount as the customer says it: 150.50, or ฿150.50 for one currency.</p>
    <form method="get" action="${action}" class="filters" aria-label="Filters">
      <div class="field">
        <label for="since">From</label
        ><input id="since" name="since" type="text" value="${ask.since}" aria-describedby="time-help" />
      </div>
      <div class="field">
        <label for="until">Before</label
        ><input id="until" name="until" type="text" value="${ask.until}" aria-describedby="time-help" />
      </div>
      <div class="field">
        <label for="state">State</label
        ><select id="state" name="state">
          ${option('', ask.state, 'any')}${states.map((s) => option(s, ask.state))}
        </select>
      </div>
      <div class="field">
        <label for="channel">Channel</label
        ><select id="channel" name="channel">
          ${option('', ask.channel, 'any')}${ALL_CHANNELS.map((c) => option(c, ask.channel))}
        </select>
      </div>
      <div class="field">
        <label for="amount">Amount</label
        ><input
          id="amount"
          name="amount"
          type="text"
          inputmode="decimal"
          value="${ask.amount}"
          aria-describedby="amount-help"
        />
      </div>
      <div class="field"><button type="submit">Show</button></div>
    </form> `
}

/** The links to the pages before and after, keeping the filters. */
function pager(action: string, ask: ListAsk, list: ListPage<unknown>, what: string): Html {
  const pages = Math.max(1, Math.ceil(list.total / list.size))
  const query = (n: number) => {
    const params = new URLSearchParams({...ask, page: String(n)} as unknown as Record<string, string>)
    return `${action}?${params.toString()}`
  }
  const before = ask.page > 1 ? html`<a href="${query(ask.page - 1)}" rel="prev">Previous page</a>` : ''
  const after = ask.page < pages ? html`<a href="${query(ask.page + 1)}" rel="next">Next page</a>` : ''
  return html`<nav class="pages" aria-label="Pages of ${what}">
    <span>Page ${ask.page} of ${pages} (${list.total} ${what})</span>${before}${after}
  </nav>`
}

/** A list page of orders or refunds: its filters, the rows of this page, the pager; or the problem with a filter. */
export function listPage(
  ctx: PageContext,
  what: 'orders' | 'refunds',
  ask: ListAsk,
  states: readonly string[],
  list: ListPage<ListedOrder> | ListPage<ListedRefund> | {problem: string; advice?: string},
): string {
  const action = `/${what}`
  const title = what === 'orders' ? 'Orders' : 'Refunds'
  const caption = `${title} made on this machine, newest first`
  let shown: Html
  if ('problem' in list) shown = problem(list.problem, list.advice)
  else if (!list.rows.length) shown = html`<p role="status">No ${what} made on this machine match.</p>`
  else
    shown = html`${
      what === 'orders'
        ? ordersTable(ctx, list.rows as ListedOrder[], caption)
        : refundsTable(ctx, list.rows as ListedRefund[], caption)
    }${pager(action, ask, list, what)}`
  const body = html`<h1>${title}</h1>
    <p>
      The ${what} gw made for this profile on this machine (the gateway keeps no list of its own). Each links to its
      order's story.
    </p>
    ${filtersForm(action, ask, states)} ${shown}`
  return page(ctx, title, body, what)
}
