/**
 * What each of the desk's addresses does, behind the server's guard: the find page, an order's
 * page found by any of its numbers (asking the gateway; what this machine knows when it cannot be
 * asked), the lists, and a refund from its draft to its outcome. Lookups go through the same
 * services as the commands (orders/any-number, the list commands' readers and filters), refunds
 * through refunding.ts alone.
 */
import QRCode from 'qrcode'

import {listFilterOf} from '../cli/flags.js'
import {GwError} from '../errors.js'
import {ALL_CHANNELS, ORDER_STATES, minorUnitsOf, readAmountText, toDecimal} from '../gateway/protocol/index.js'
import {type ListFilter, type ListedOrder, listOrders} from '../orders/list.js'
import type {OrderService} from '../orders/service.js'
import type {GatewayHistory} from '../store/history.js'
import {type Draft, Drafts} from './drafts.js'
import type {PageContext} from './pages/layout.js'
import {type ListAsk, findPage, listPage} from './pages/lists.js'
import {type OrderExtras, orderPage} from './pages/order.js'
import {confirmationPage, draftHref, outcomePage} from './pages/refund.js'
import {
  type DeskRefunds,
  type ListedRefund,
  REFUND_STATES,
  type Timeline,
  listedRefunds,
  refundFromDesk,
  storyOf,
} from './refunding.js'
import type {Answer, Asked} from './server.js'

/** What the desk works with: the profile's services, and the zone its times are shown on. */
export interface DeskServices {
  orders: OrderService
  refunds: DeskRefunds
  /** The history of the profile's gateway: what the lists read. */
  history: GatewayHistory
}

export interface DeskProfile {
  name: string
  appid: string
  baseUrl: string
  live: boolean
}

const LIST_PAGE = 25
const RECENT = 10

const ok = (html: string, status = 200): Answer => ({status, html})

/** A GwError's words for a page: its message, and its advice. */
const wordsOf = (error: GwError) => ({message: error.message, advice: error.advice})

export class DeskRoutes {
  readonly drafts = new Drafts()
  /** The orders whose page was shown, for the summary. */
  readonly looked = new Set<string>()

  constructor(
    readonly services: DeskServices,
    readonly profile: DeskProfile,
    readonly zone: string,
    readonly stop: AbortSignal,
  ) {}

  route(asked: Asked): Promise<Answer> {
    const ctx: PageContext = {
      profile: this.profile,
      zone: this.zone,
      token: (action) => asked.session.tokenFor(action),
    }
    const {method, path, query, form} = asked
    if (method === 'GET' && path === '/') return this.#find(ctx)
    if (method === 'GET' && path === '/find') {
      const number = (query.get('number') ?? '').trim()
      if (!number) return this.#find(ctx, {number, message: 'Type a number of the order, or of one of its refunds.'})
      return Promise.resolve({redirect: `/order?n=${encodeURIComponent(number)}`})
    }
    if (method === 'GET' && path === '/order') return this.#order(ctx, (query.get('n') ?? '').trim())
    if (method === 'GET' && (path === '/orders' || path === '/refunds'))
      return this.#list(ctx, path === '/orders' ? 'orders' : 'refunds', query)
    if (method === 'POST' && path === '/refund/new') return this.#draft(ctx, form)
    const draftPath = /^\/refund\/([\w-]+)(\/send|\/settle)?$/.exec(path)
    const draft = draftPath && this.drafts.get(draftPath[1]!)
    if (draft && method === 'GET' && !draftPath[2])
      return Promise.resolve(ok(draft.state === 'asking' ? confirmationPage(ctx, draft) : outcomePage(ctx, draft)))
    if (draft && method === 'POST' && draftPath[2]) return this.#send(ctx, draft, form, draftPath[2] === '/settle')
    return this.#find(ctx, {number: '', message: 'There is no such page on this desk.'}, 404)
  }

  /** The find page, with the newest orders and refunds; `asked`: a number not found, and why. */
  async #find(ctx: PageContext, asked?: {number: string; message: string; advice?: string}, status = 200) {
    const filter = this.#filter({}, RECENT)
    const orders: ListedOrder[] = []
    const refunds: ListedRefund[] = []
    await listOrders(this.services.history, this.services.orders, filter, async (o) => void orders.push(o))
    await listedRefunds(this.services.refunds, filter, async (r) => void refunds.push(r))
    return ok(findPage(ctx, {orders, refunds}, asked), asked ? (status === 200 ? 404 : status) : status)
  }

  /**
   * An order's page, found by any number support has: the gateway asked (its state now, its
   * refunds); when it cannot be asked, what this machine knows, and why the gateway was not.
   */
  async #order(ctx: PageContext, number: string, extras: OrderExtras = {}, status = 200): Promise<Answer> {
    if (!number) return this.#find(ctx, {number, message: 'Type a number of the order, or of one of its refunds.'})
    let timeline: Timeline
    try {
      timeline = await storyOf(this.services, {mch_order_no: number}, {refresh: true, zone: this.zone})
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      if (error.kind !== 'transport' && error.kind !== 'signature' && error.kind !== 'unknown')
        return this.#find(ctx, {number, ...wordsOf(error)})
      try {
        timeline = await storyOf(this.services, {mch_order_no: number}, {refresh: false, zone: this.zone})
      } catch {
        return this.#find(ctx, {number, ...wordsOf(error)}, 503)
      }
      extras = {...extras, notAsked: error.message}
    }
    this.looked.add(timeline.mch_order_no)
    return ok(orderPage(ctx, timeline, {...extras, qrSvg: await qrOf(timeline)}), status)
  }

  /** A draft of the refund the form asks for, checked against the order as the gateway shows it now. */
  async #draft(ctx: PageContext, form: URLSearchParams): Promise<Answer> {
    const number = (form.get('n') ?? '').trim()
    const amountText = (form.get('amount') ?? '').trim()
    const reason = (form.get('reason') ?? '').trim().slice(0, 120)
    let timeline: Timeline
    try {
      timeline = await storyOf(this.services, {mch_order_no: number}, {refresh: true, zone: this.zone})
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      return this.#find(ctx, {number, ...wordsOf(error)})
    }
    const {mch_order_no, channel, total_fee, fee_type, gw_order_no, totals} = timeline
    const wrong = (problem: string) =>
      this.#order(ctx, mch_order_no, {form: {amount: amountText, reason, problem}}, 422)
    if (!channel || total_fee === undefined || !fee_type)
      return wrong('The order total is not known: nothing can be refunded here.')
    let refundFee: number
    try {
      const read = readAmountText(amountText, undefined, {mark: 'point', by: 'on the desk'})
      if (read.negative) return wrong('A refund is an amount above zero.')
      if (read.currency && read.currency !== fee_type)
        return wrong(`The order is in ${fee_type}, not ${read.currency}.`)
      refundFee = minorUnitsOf({decimal: read.decimal}, fee_type)
    } catch (error) {
      return wrong(`The amount: ${(error as Error).message}.`)
    }
    if (totals?.left_fee !== undefined && refundFee > totals.left_fee)
      return wrong(
        `${toDecimal(refundFee, fee_type)} ${fee_type} is more than what is left of the order: ${toDecimal(totals.left_fee, fee_type)} ${fee_type}.`,
      )
    const order = {mch_order_no, gw_order_no, channel, total_fee, fee_type}
    const draft = this.drafts.create(order, {refund_fee: refundFee, amount: toDecimal(refundFee, fee_type), reason})
    return {redirect: draftHref(draft)}
  }

  /** Sends a draft's refund (once), or settles one whose outcome was not known; the outcome's page follows. */
  async #send(ctx: PageContext, draft: Draft, form: URLSearchParams, settle: boolean) {
    if (!settle && draft.state === 'asking') {
      if (this.profile.live && (form.get('typed') ?? '').trim() !== draft.order.mch_order_no)
        return ok(confirmationPage(ctx, draft, 'The order number typed is not this order’s.'), 422)
      if (draft.outcome?.kind === 'ask_again') {
        if (form.get('again') !== 'yes')
          return ok(confirmationPage(ctx, draft, 'Say whether the customer is owed another refund.'), 422)
        draft.again = true
      }
    }
    const run = () =>
      refundFromDesk(this.services.refunds, {...draft.order, amount: draft.amount, again: draft.again}, this.stop)
    await this.drafts.send(draft, run, settle)
    return {redirect: draftHref(draft)}
  }

  /** A list page, with the list commands' filters: checked as they are, then the page's rows. */
  async #list(ctx: PageContext, what: 'orders' | 'refunds', query: URLSearchParams): Promise<Answer> {
    const text = (name: string) => (query.get(name) ?? '').trim()
    const page = Math.max(1, Math.min(100_000, Number.parseInt(text('page') || '1', 10) || 1))
    const ask: ListAsk = {
      since: query.has('since') ? text('since') : 'today',
      until: text('until'),
      state: text('state'),
      channel: text('channel'),
      amount: text('amount'),
      page,
    }
    const states = what === 'orders' ? Object.keys(ORDER_STATES) : REFUND_STATES
    const refuse = (problem: string, advice?: string) => ok(listPage(ctx, what, ask, states, {problem, advice}), 400)
    if (ask.state && !states.includes(ask.state)) return refuse(`No ${what} are in state ${ask.state}.`)
    if (ask.channel && !(ALL_CHANNELS as readonly string[]).includes(ask.channel))
      return refuse(`There is no channel ${ask.channel}.`)
    let filter: ListFilter
    try {
      filter = this.#filter(ask, page * LIST_PAGE)
    } catch (error) {
      if (!(error instanceof GwError)) throw error
      // The flags' words are the form's fields here.
      const fields = (text = '') => text.replaceAll('--since', '“From”').replaceAll('--until', '“Before”')
      return refuse(fields(error.message), fields(error.advice) || undefined)
    }
    // This page's items: those after the pages before it.
    const pageOf = <T>(rows: T[]) => {
      let seen = 0
      return async (item: T) => {
        if (seen++ >= (page - 1) * LIST_PAGE) rows.push(item)
      }
    }
    if (what === 'orders') {
      const rows: ListedOrder[] = []
      const {total} = await listOrders(this.services.history, this.services.orders, filter, pageOf(rows))
      return ok(listPage(ctx, what, ask, states, {rows, total, size: LIST_PAGE}))
    }
    const rows: ListedRefund[] = []
    const {total} = await listedRefunds(this.services.refunds, filter, pageOf(rows))
    return ok(listPage(ctx, what, ask, states, {rows, total, size: LIST_PAGE}))
  }

  /** A list's filter, read as the list commands read their flags; the first `first` items. */
  #filter(ask: Partial<ListAsk>, first: number): ListFilter {
    const given = (value: string | undefined) => value || undefined
    const filter = listFilterOf({
      since: given(ask.since),
      until: given(ask.until),
      state: given(ask.state),
      channel: given(ask.channel),
      amount: given(ask.amount),
      refresh: false,
      concurrency: 1,
    })
    return {...filter, first}
  }
}

/** The QR code of an order not paid yet, drawn from the code_url its story recorded (airpay's is an image: not drawn). */
async function qrOf(timeline: Timeline): Promise<string | undefined> {
  if (timeline.state !== 'NOTPAY' && timeline.state !== 'USERPAYING') return undefined
  const codeUrl = timeline.entries.findLast((entry) => entry.kind === 'qr' && entry.code_url)
  if (!codeUrl || codeUrl.kind !== 'qr' || !codeUrl.code_url || timeline.channel === 'airpay') return undefined
  return QRCode.toString(codeUrl.code_url, {type: 'svg', margin: 2, errorCorrectionLevel: 'M'})
}
