/**
 * The gateway's rules: what each operation does to the ledger and what it answers. Request
 * shape (lengths, required fields, channel per operation) is checked before this, by the
 * shared protocol tables; here are the business checks of sections 2-8.
 */
import {randomBytes} from 'node:crypto'

import QRCode from 'qrcode'

import {
  CHANNELS_BY_OPERATION,
  ORDER_NUMBER_FIELDS,
  type Operation,
  QR_LIFETIME,
  type OrderChannel,
  THB_ONLY_CHANNELS,
  compactTimestamp,
  displayTime,
  exponentOf,
} from '../lib/gateway/protocol/index.js'
import {newNonce} from '../lib/gateway/signing.js'
import type {Ledger, SandboxOrder, SandboxRefund} from './ledger.js'
import type {Merchant} from './merchants.js'
import {promptPayPayload} from './promptpay.js'

export type Outcome =
  {ok: true; data: Record<string, unknown>} | {ok: false; code: string; msg: string; result?: 'FAIL' | 'NOTSURE'}

const refuse = (code: string, msg: string): Outcome => ({ok: false, code, msg})

/** Numbers a channel would make up: digits only. */
const randomDigits = (count: number) => [...randomBytes(count)].map((b) => String(b % 10)).join('')

/** Exchange rates to CNY, for cash_fee of Chinese wallets. */
const RATE_TO_CNY: Record<string, string> = {THB: '0.2101', MYR: '1.5500', JPY: '0.0480', AED: '1.9400'}
const CNY_CHANNELS = ['wechat', 'alipay']
const REFUND_DELAY_SECONDS = 20 * 60

export interface GatewayOptions {
  ledger: Ledger
  merchants: Map<string, Merchant>
  /** Divides every delay and lifetime. */
  timeScale: number
  /** Called when an order becomes paid (notifications). */
  onPaid: (order: SandboxOrder) => void
}

export class GatewayRules {
  constructor(private readonly options: GatewayOptions) {}

  get #ledger(): Ledger {
    return this.options.ledger
  }

  #scaled(seconds: number): number {
    return (seconds * 1000) / this.options.timeScale
  }

  /** Gateway numbers: a prefix (900 orders, 910 refunds), the time, a sequence. */
  #number(prefix: string): string {
    return `${prefix}${compactTimestamp()}${String(this.#ledger.nextSequence()).padStart(6, '0')}`
  }

  /** An order past its QR lifetime is closed the moment anyone looks at it. */
  #settle(order: SandboxOrder): SandboxOrder {
    const now = Date.now()
    let changed = false
    if (
      (order.state === 'NOTPAY' || order.state === 'USERPAYING') &&
      order.expires_at !== null &&
      now >= order.expires_at
    ) {
      order.state = 'CLOSED'
      order.closed_at = order.expires_at
      changed = true
    }
    for (const refund of order.refunds) {
      if (refund.state === 'PROCESSING' && refund.settles_at !== undefined && now >= refund.settles_at) {
        refund.state = 'SUCCESS'
        order.state = 'REFUND'
        changed = true
      }
    }
    if (changed) this.#ledger.save(order)
    return order
  }

  /** The order named by any of the three numbers; all numbers given must name the same order. */
  #find(merchant: Merchant, p: Record<string, string>): SandboxOrder | undefined {
    const found = [
      p.mch_order_no ? (this.#ledger.byMchOrderNo(merchant.appid, p.mch_order_no) ?? null) : undefined,
      p.gw_order_no ? (this.#ledger.byGwOrderNo(merchant.appid, p.gw_order_no) ?? null) : undefined,
      p.channel_order_no ? (this.#ledger.byChannelOrderNo(merchant.appid, p.channel_order_no) ?? null) : undefined,
    ].filter((o) => o !== undefined)
    const [first] = found
    if (!first || found.some((o) => o !== first)) return undefined
    if (p.channel && p.channel !== first.channel) return undefined
    return this.#settle(first)
  }

  #notFound(p: Record<string, string>): Outcome {
    const named = ORDER_NUMBER_FIELDS.filter((k) => p[k])
      .map((k) => `${k} ${p[k]}`)
      .join(', ')
    return refuse('GW_INVALID_ORDER_NO', `order not found: ${named}${p.channel ? ` on channel ${p.channel}` : ''}`)
  }

  #cash(order: SandboxOrder): {cash_fee: number; cash_fee_type: string; rate: string} {
    const rate = RATE_TO_CNY[order.fee_type] ?? '1'
    if (!CNY_CHANNELS.includes(order.channel)) return {cash_fee: order.total_fee, cash_fee_type: order.fee_type, rate}
    const major = order.total_fee / 10 ** (exponentOf(order.fee_type) ?? 2)
    return {cash_fee: Math.round(major * Number(rate) * 100), cash_fee_type: 'CNY', rate}
  }

  /** `origin` is where the payer page lives; `refundProcessing` delays a refund (a fault). */
  execute(
    operation: Operation,
    merchant: Merchant,
    p: Record<string, string>,
    context: {origin: string; refundProcessing: boolean},
  ): Promise<Outcome> | Outcome {
    switch (operation) {
      case 'native_pay':
        return this.createOrder(merchant, p, context.origin)
      case 'order_query':
        return this.queryOrder(merchant, p)
      case 'order_refund':
        return this.refund(merchant, p, context.refundProcessing)
      case 'refund_query':
        return this.queryRefund(merchant, p)
      case 'order_close':
        return this.closeOrder(merchant, p)
    }
  }

  async createOrder(merchant: Merchant, p: Record<string, string>, origin: string): Promise<Outcome> {
    const channel = p.channel as OrderChannel
    if (!merchant.channels.includes(channel))
      return refuse(
        'CHANNEL_LIST_ERROR',
        `merchant ${merchant.appid} has no ${channel} service; it has ${merchant.channels.join(', ')}`,
      )
    if (!(merchant.currencies as string[]).includes(p.fee_type!))
      return refuse(
        'GW_FEETYPE_NOT_MATCH',
        `fee_type ${p.fee_type} is not registered for ${merchant.appid}; registered: ${merchant.currencies.join(', ')}`,
      )
    if (THB_ONLY_CHANNELS.includes(channel) && p.fee_type !== 'THB')
      return refuse('GW_FEETYPE_NOT_MATCH', `${channel} is Thailand only and takes THB`)
    const total = Number(p.total_fee)
    if (total < merchant.min_amount || total === 0)
      return refuse(
        'GW_AMOUNT_IS_TOO_SMALL',
        `total_fee ${total} is below the minimum ${Math.max(1, merchant.min_amount)}`,
      )
    if (total > merchant.amount_limit)
      return refuse('GW_EXCEED_AMOUNT_LIMIT', `total_fee ${total} exceeds the limit ${merchant.amount_limit}`)
    const lifetime = QR_LIFETIME[channel]
    for (const parameter of ['tmn_expire_time', 'expire_time'] as const) {
      if (p[parameter] !== undefined && lifetime.parameter !== parameter)
        return refuse(
          'GW_INVALID_PARAM',
          `${parameter} applies to ${parameter === 'tmn_expire_time' ? 'truemoney' : 'scb_qrcard'} only`,
        )
    }
    const requested =
      lifetime.parameter && p[lifetime.parameter] !== undefined ? Number(p[lifetime.parameter]) : undefined
    if (requested !== undefined && lifetime.maxSeconds !== undefined && requested > lifetime.maxSeconds) {
      return refuse('GW_INVALID_PARAM', `${lifetime.parameter} must be at most ${lifetime.maxSeconds} seconds`)
    }
    if (this.#ledger.byMchOrderNo(merchant.appid, p.mch_order_no!))
      return refuse('GW_DUPLICATED_ORDERNO', `mch_order_no ${p.mch_order_no} was already used`)

    const seconds = requested ?? lifetime.defaultSeconds
    const now = Date.now()
    const order: SandboxOrder = {
      appid: merchant.appid,
      mch_order_no: p.mch_order_no!,
      gw_order_no: this.#number('900'),
      channel_order_no: '',
      channel,
      total_fee: total,
      fee_type: p.fee_type!,
      state: 'NOTPAY',
      created_at: now,
      expires_at: seconds === undefined ? null : now + this.#scaled(seconds),
      paid_at: null,
      closed_at: null,
      notify_url: p.notify_url ?? '',
      attach: p.attach ?? '',
      product: p.product ?? '',
      device_id: p.device_id ?? '',
      operator_id: p.operator_id ?? '',
      img_type: p.img_type ?? 'png',
      openid: '',
      refunds: [],
      notify: p.notify_url ? 'pending' : 'none',
      notifications: [],
    }
    const payerPage = `${origin}/pay/${order.gw_order_no}`
    let codeUrl = payerPage
    const extra: Record<string, unknown> = {}
    if (channel === 'promptpay') {
      const stall = `900${merchant.number}`
      codeUrl = promptPayPayload({
        billerId: `0105${merchant.number.padStart(11, '0')}`.slice(0, 15),
        reference1: order.gw_order_no.slice(3),
        reference2: stall,
        amount: total,
      })
      Object.assign(extra, {
        fee_type: order.fee_type,
        total_fee: total,
        PaymentID: order.gw_order_no,
        PaymentCode: codeUrl,
        stalls_name: stall,
      })
    } else if (channel === 'airpay') {
      codeUrl = `${origin}/qr/${order.gw_order_no}.png`
    }
    // airpay's imgdat is "not supported; scanning it shows an error": it encodes no payable link.
    const qrText = channel === 'airpay' ? 'AIRPAY: use code_url as the image source' : codeUrl
    const imgdat =
      order.img_type === 'svg'
        ? `data:image/svg+xml;base64,${Buffer.from(await QRCode.toString(qrText, {type: 'svg', margin: 2})).toString('base64')}`
        : await QRCode.toDataURL(qrText, {margin: 2})
    this.#ledger.save(order)
    return {
      ok: true,
      data: {
        result: 'SUCCESS',
        appid: merchant.appid,
        device_id: order.device_id,
        nonce_str: newNonce(),
        mch_order_no: order.mch_order_no,
        gw_order_no: order.gw_order_no,
        code_url: codeUrl,
        imgdat,
        trade_type: 'NATIVE',
        ...extra,
      },
    }
  }

  #orderRecord(order: SandboxOrder): Record<string, unknown> {
    return {
      appid: order.appid,
      attach: order.attach,
      ...this.#cash(order),
      channel: order.channel,
      channel_order_no: order.channel_order_no,
      consumer_remark: '',
      device_id: order.device_id,
      fee_type: order.fee_type,
      mch_order_no: order.mch_order_no,
      gw_order_no: order.gw_order_no,
      merchant_remark: '',
      nonce_str: newNonce(),
      openid: order.openid,
      operation: 'ORDER-QUERY',
      operator_id: order.operator_id,
      raw_total_fee: order.total_fee,
      time_end: order.paid_at ? displayTime(new Date(order.paid_at)) : '',
      total_fee: order.total_fee,
      result: order.state,
    }
  }

  queryOrder(merchant: Merchant, p: Record<string, string>): Outcome {
    const order = this.#find(merchant, p)
    return order ? {ok: true, data: this.#orderRecord(order)} : this.#notFound(p)
  }

  closeOrder(merchant: Merchant, p: Record<string, string>): Outcome {
    const order = this.#find(merchant, p)
    if (!order) return this.#notFound(p)
    if (order.state === 'CLOSED') return refuse('ORDER_ALREADY_CANCEL', `order ${order.mch_order_no} is already closed`)
    if (order.state === 'SUCCESS' || order.state === 'REFUND')
      return refuse('CANCEL_ERROR', `order ${order.mch_order_no} is paid and cannot be closed; refund it instead`)
    order.state = 'CLOSED'
    order.closed_at = Date.now()
    this.#ledger.save(order)
    return {
      ok: true,
      data: {appid: merchant.appid, mch_order_no: order.mch_order_no, nonce_str: newNonce(), result: 'SUCCESS'},
    }
  }

  #balance(order: SandboxOrder): number {
    return order.total_fee - order.refunds.filter((r) => r.state !== 'FAIL').reduce((sum, r) => sum + r.refund_fee, 0)
  }

  refund(merchant: Merchant, p: Record<string, string>, processing = false): Outcome {
    const order = this.#find(merchant, p)
    if (!order) return this.#notFound(p)
    if (!CHANNELS_BY_OPERATION.order_refund.includes(order.channel))
      return refuse('NOAUTH', `refunds are not supported for channel ${order.channel}`)
    if (order.state === 'CLOSED') return refuse('ORDER_ALREADY_CANCEL', `order ${order.mch_order_no} is closed`)
    if (order.state !== 'SUCCESS' && order.state !== 'REFUND')
      return refuse('ORDER_NOT_PAY', `order ${order.mch_order_no} is ${order.state}, not paid`)
    if (this.#ledger.refundNumberUsed(merchant.appid, p.mch_refund_no!))
      return refuse('GW_DUPLICATED_REFUND_ORDERNO', `mch_refund_no ${p.mch_refund_no} was already used`)
    const fee = Number(p.refund_fee)
    if (p.fee_type !== order.fee_type || Number(p.total_fee) !== order.total_fee) {
      return refuse(
        'GW_INVALID_REFUND_FEE_OR_TYPE',
        `the order is ${order.total_fee} ${order.fee_type}; the request says ${p.total_fee} ${p.fee_type}`,
      )
    }
    if (fee <= 0) return refuse('GW_INVALID_REFUND_FEE_OR_TYPE', 'refund_fee must be above zero')
    if (order.paid_at !== null && Date.now() > order.paid_at + this.#scaled(merchant.refund_window_days * 86_400)) {
      return refuse('GW_REFUND_EXPIRE', `the refund window of ${merchant.refund_window_days} days has passed`)
    }
    if (fee > order.total_fee)
      return refuse('GW_INVALID_REFUND_FEE', `refund_fee ${fee} is above the order total ${order.total_fee}`)
    if (!merchant.partial_refund && fee !== order.total_fee)
      return refuse(
        'GW_INVALID_REFUND_AMOUNT',
        `partial refunds are not allowed for ${merchant.appid}; refund ${order.total_fee}`,
      )
    const balance = this.#balance(order)
    if (fee > balance) return refuse('GW_INVALID_REFUND_BALANCE', `refund_fee ${fee} is above the balance ${balance}`)

    const now = Date.now()
    const refund: SandboxRefund = {
      mch_refund_no: p.mch_refund_no!,
      gw_refund_no: this.#number('910'),
      channel_refund_no: processing ? '' : `5020${randomDigits(24)}`,
      refund_fee: fee,
      state: processing ? 'PROCESSING' : 'SUCCESS',
      created_at: now,
      ...(processing ? {settles_at: now + this.#scaled(REFUND_DELAY_SECONDS)} : {}),
      attach: p.attach ?? '',
      device_id: p.device_id ?? '',
      operator_id: p.operator_id ?? '',
    }
    order.refunds.push(refund)
    if (!processing) order.state = 'REFUND'
    this.#ledger.save(order)
    if (processing) return refuse('TRADE_STATE_ERROR', 'the refund result is delayed; query it later')
    return {
      ok: true,
      data: {
        result: 'SUCCESS',
        appid: merchant.appid,
        attach: refund.attach,
        cash_refund_fee: Math.round((this.#cash(order).cash_fee * fee) / order.total_fee),
        channel: order.channel,
        channel_order_no: order.channel_order_no,
        channel_refund_no: refund.channel_refund_no,
        device_id: refund.device_id,
        fee_type: order.fee_type,
        gw_order_no: order.gw_order_no,
        gw_refund_no: refund.gw_refund_no,
        mch_order_no: order.mch_order_no,
        mch_refund_no: refund.mch_refund_no,
        nonce_str: newNonce(),
        operator_id: refund.operator_id,
        refund_fee: fee,
        refund_time: displayTime(new Date(now)),
        total_fee: order.total_fee,
      },
    }
  }

  queryRefund(merchant: Merchant, p: Record<string, string>): Outcome {
    const order = this.#find(merchant, p)
    if (!order) return this.#notFound(p)
    if (!CHANNELS_BY_OPERATION.refund_query.includes(order.channel))
      return refuse('NOAUTH', `refund query is not supported for channel ${order.channel}`)
    if (!order.refunds.some((r) => r.mch_refund_no === p.mch_refund_no))
      return refuse('GW_INVALID_ORDER_NO', `order ${order.mch_order_no} has no refund ${p.mch_refund_no}`)
    const succeeded = order.refunds.filter((r) => r.state === 'SUCCESS')
    const cash = this.#cash(order)
    return {
      ok: true,
      data: {
        appid: order.appid,
        cash_fee: cash.cash_fee,
        cash_fee_type: cash.cash_fee_type,
        channel_order_no: order.channel_order_no,
        channel_state: 'SUCCESS',
        fee_type: order.fee_type,
        gw_order_no: order.gw_order_no,
        mch_order_no: order.mch_order_no,
        nonce_str: newNonce(),
        refund_count: order.refunds.length,
        refund_fee: succeeded.reduce((sum, r) => sum + r.refund_fee, 0),
        refund_orders: order.refunds.map((r) => ({
          channel_refund_no: r.channel_refund_no,
          gw_refund_no: r.gw_refund_no,
          mch_refund_fee: r.refund_fee,
          mch_refund_no: r.mch_refund_no,
          refund_state: r.state,
          refund_time: displayTime(new Date(r.created_at)),
        })),
        result: 'SUCCESS',
        time_end: order.paid_at ? displayTime(new Date(order.paid_at)) : '',
        total_fee: order.total_fee,
      },
    }
  }

  /** The payer opened the payment page: the order is being paid. */
  scanned(order: SandboxOrder): SandboxOrder {
    this.#settle(order)
    if (order.state === 'NOTPAY') {
      order.state = 'USERPAYING'
      this.#ledger.save(order)
    }
    return order
  }

  /** The payer confirmed (or declined). Returns a reason when the order cannot be paid. */
  pay(order: SandboxOrder, fail = false): string | undefined {
    this.#settle(order)
    if (order.state === 'CLOSED')
      return `order ${order.mch_order_no} is closed${order.expires_at !== null && order.closed_at === order.expires_at ? ' (its QR code expired)' : ''}`
    if (order.state === 'PAYERROR') return `order ${order.mch_order_no} already failed`
    if (order.state !== 'NOTPAY' && order.state !== 'USERPAYING') return `order ${order.mch_order_no} is already paid`
    if (fail) {
      order.state = 'PAYERROR'
      this.#ledger.save(order)
      return undefined
    }
    const now = Date.now()
    order.state = 'SUCCESS'
    order.paid_at = now
    order.channel_order_no = `4200${compactTimestamp().slice(0, 8)}${randomDigits(16)}`
    order.openid = `u_${randomBytes(4).toString('hex')}`
    this.#ledger.save(order)
    this.options.onPaid(order)
    return undefined
  }

  /** The data object of the payment notification (section 6). */
  notificationData(order: SandboxOrder): Record<string, unknown> {
    const cash = this.#cash(order)
    return {
      appid: order.appid,
      nonce_str: newNonce(),
      openid: order.openid,
      channel_order_no: order.channel_order_no,
      operator_id: order.operator_id,
      cash_fee_type: cash.cash_fee_type,
      gw_order_no: order.gw_order_no,
      time_end: displayTime(new Date(order.paid_at ?? Date.now())),
      fee_type: order.fee_type,
      attach: order.attach,
      rate: Number(cash.rate),
      result: 'SUCCESS',
      total_fee: order.total_fee,
      operation: 'NATIVE-PAY',
      device_id: order.device_id,
      cash_fee: cash.cash_fee,
      mch_order_no: order.mch_order_no,
      order_no: order.mch_order_no,
      channel: order.channel,
    }
  }
}
