/**
 * Text views of orders for people: states in words, amounts with their currency, times in
 * ISO 8601 with their offset. --json output does not go through here.
 */
import {type SuggestedFor, gwCommand} from '../errors.js'
import {PAID_ORDER_STATES, describeOrderState, formatAmount} from '../gateway/protocol/index.js'
import type {OutputForm} from '../io/streams.js'
import {type FoundByNumber, NUMBER_WORDS} from '../orders/any-number.js'
import type {ListedOrder} from '../orders/list.js'
import type {FoundOrder} from '../orders/finding.js'
import type {CreatedOrder} from '../orders/service.js'
import {shown} from '../untrusted.js'
import {fields} from './fields.js'
import {listed} from './table.js'
import {type ListCounted, type ListView, listCount, listedState, noneListed, unattributedNote} from './words.js'

export function createdView(created: CreatedOrder): string {
  const {order} = created
  return fields(
    [
      ['order', order.mch_order_no],
      ['gateway order', order.gw_order_no],
      ['amount', formatAmount(created.total_fee, created.fee_type)],
      ['channel', created.channel],
      ['QR expires', created.expires_at ?? 'never'],
      ['code_url', created.channel === 'airpay' ? `${order.code_url} (an image to show, not QR text)` : order.code_url],
    ],
    {boldFirst: true},
  )
}

export function orderView(found: FoundOrder): string {
  const r = found.record
  const channelNote =
    found.channel_source === 'discovered'
      ? ' (found by trying channels)'
      : found.channel_source === 'history'
        ? ' (from local history)'
        : ''
  // What the payer paid, and when, mean something only once the order took money.
  const paid = PAID_ORDER_STATES.includes(r.result)
  return fields(
    [
      ['order', r.mch_order_no ?? '-'],
      ['gateway order', r.gw_order_no],
      ['channel order', r.channel_order_no],
      ['state', `${r.result}: ${describeOrderState(r.result)}`],
      ['amount', formatAmount(r.total_fee, r.fee_type)],
      [
        'paid by payer',
        paid && r.cash_fee !== undefined && r.cash_fee_type && r.cash_fee_type !== r.fee_type
          ? formatAmount(r.cash_fee, r.cash_fee_type)
          : undefined,
      ],
      ['channel', `${found.channel}${channelNote}`],
      ['paid at', paid ? r.time_end : undefined],
      ['payer', r.openid],
      ['device', r.device_id],
      ['operator', r.operator_id],
      ['attach', r.attach],
    ],
    {boldFirst: true},
  )
}

/** What the number an order was found by is of it, when not its merchant number: "RF1 is a refund number of order INV-1". */
export function foundByNote(number: string | undefined, found: FoundByNumber): string | undefined {
  if (!number || found.number_is === 'mch_order_no') return undefined
  const order = shown(found.record.mch_order_no ?? found.record.gw_order_no ?? '', 64)
  const article = found.number_is === 'mch_refund_no' ? 'a' : 'the'
  return `${shown(number, 64)} is ${article} ${NUMBER_WORDS[found.number_is]} of order ${order}.`
}

/** Why no QR is drawn for a created order, when that is so: the answer carrying it was lost, or airpay's is an image (`saved`: it is being saved). */
export function qrNote(created: CreatedOrder, saved: boolean): string | undefined {
  if (created.qr_lost) {
    return 'warning: the order was created, but the answer carrying its QR code was lost. Close it (gw order close) and create a new one to show a QR code.'
  }
  if (created.channel === 'airpay') {
    return `airpay: code_url is an image URL to show as is, not text to encode${saved ? '' : '; open it or save it with --qr-out'}.`
  }
  return undefined
}

const SPINNER = ['|', '/', '-', '\\']

/** "| waiting for payment: NOTPAY, 4m59s left" */
export function waitingLine(state: string, deadline: number): string {
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000))
  return `${SPINNER[left % 4]} waiting for payment: ${state}, ${Math.floor(left / 60)}m${String(left % 60).padStart(2, '0')}s left`
}

/** How a wait for payment ended, for people: the order as it stands, and a note. */
export function waitView(
  created: CreatedOrder,
  found: FoundOrder | undefined,
  profile: SuggestedFor,
): {text?: string; notes?: string[]} {
  if (!found) {
    const query = gwCommand(profile, 'order', 'query', created.order.mch_order_no, '--channel', created.channel)
    return {notes: [`Not paid before the wait ended. Check later: ${query}`]}
  }
  const state = found.record.result
  if (state === 'SUCCESS') return {text: orderView(found)}
  return {text: orderView(found), notes: [`The order ended ${state}: ${describeOrderState(state)}.`]}
}

/** `gw order list`: a table of the orders, newest first, and how many. */
export function orderListView(
  orders: readonly ListedOrder[],
  appid: string,
  counted: ListCounted,
  form: OutputForm,
): ListView {
  if (!orders.length)
    return noneListed(
      `No orders made on this machine for ${appid} match. (gw lists the orders it made: the gateway has no list of its own.)`,
      form,
    )
  const rows = orders.map((o) => [
    o.made_at,
    o.mch_order_no,
    formatAmount(o.total_fee, o.fee_type),
    o.channel,
    listedState(o.state ?? '?', o),
    // The state is what gw last learned, and when: a made order is NOTPAY until a query or the listener says more.
    o.state_at ?? '',
    o.gw_order_no ?? '',
    // Piped, nothing is left out: the whole openid, as --payer takes it.
    o.openid === undefined ? '' : form.terminal ? payerShown(o.openid).text : o.openid,
  ])
  const head = ['made', 'order', 'amount', 'channel', 'state', 'as of', 'gateway order', 'payer']
  // Of the payer column: not said where a narrow terminal leaves the column out.
  const shortened =
    form.terminal && orders.some((o) => o.openid !== undefined && payerShown(o.openid).shortened)
      ? {
          note: `payer: openids longer than ${PAYER_WHOLE} characters show their first ${PAYER_HEAD} and last ${PAYER_TAIL} (whole in --json and --out, for --payer).`,
          of: 'payer',
        }
      : undefined
  // Narrower than the table, a terminal shows it without the columns least needed to tell orders apart.
  const fit = {drop: ['payer', 'gateway order', 'as of', 'channel'], whole: '--json and --out', unwrapped: ['order']}
  return listed(head, rows, fit, form, [
    listCount(orders.length, 'order', counted, form),
    unattributedNote(orders),
    shortened,
  ])
}

const PAYER_WHOLE = 16
const PAYER_HEAD = 8
const PAYER_TAIL = 4

/**
 * A payer's openid in a list's column: shown safely (the gateway's text: no control reaches the
 * terminal), and when long (a WeChat openid is 28 characters) its first and last characters,
 * enough to tell payers apart at a glance; --payer takes it whole, from --json or --out.
 */
function payerShown(openid: string): {text: string; shortened: boolean} {
  // The protocol bounds an openid at 128 characters: shown whole, then cut.
  const characters = [...shown(openid, 1000)]
  if (characters.length <= PAYER_WHOLE) return {text: characters.join(''), shortened: false}
  return {
    text: `${characters.slice(0, PAYER_HEAD).join('')}…${characters.slice(-PAYER_TAIL).join('')}`,
    shortened: true,
  }
}
