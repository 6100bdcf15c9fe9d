/**
 * The gateway's refund query (section 4.4), as gw uses it: it answers for the whole order
 * (every refund, the total refunded) but must name one refund number of it, and it exists
 * only for some channels. Used to learn an order's balance and to show its refunds.
 */
import {GwError, gwCommand} from '../errors.js'
import {refusalError} from '../gateway/answers.js'
import {
  hasRefundQuery,
  ORDER_NOT_FOUND,
  PAID_ORDER_STATES,
  type RefundOrder,
  type RefundRecord,
} from '../gateway/protocol/index.js'
import {type RefundEntry, isMade} from '../store/records.js'
import type {FoundOrder} from '../orders/finding.js'
import type {RefundGateway, RefundQueryParams, RefundRecords} from './ports.js'
import {refundedTotal} from './refund.js'

/** What a refund query needs to know of the order. */
interface RefundQueryOrder {
  mch_order_no?: string
  gw_order_no?: string
  channel: string
  total_fee?: number
  fee_type?: string
}

/** The refund query's parameters, from what is known of the order (an order query's, or a planned refund's). */
export function refundQuery(
  order: RefundQueryOrder,
  mchRefundNo: string,
  refundFee: number | undefined,
): RefundQueryParams {
  return {
    mch_order_no: order.mch_order_no,
    gw_order_no: order.mch_order_no ? undefined : order.gw_order_no,
    channel: order.channel,
    total_fee: order.total_fee,
    fee_type: order.fee_type,
    mch_refund_no: mchRefundNo,
    // The document requires refund_fee here too; when the refund's amount is not known, the order total stands in.
    refund_fee: refundFee ?? order.total_fee,
  }
}

const orderFacts = (found: FoundOrder): RefundQueryOrder => ({...found.record, channel: found.channel})

export class OrderRefunds {
  constructor(
    private readonly gateway: RefundGateway,
    private readonly records: RefundRecords,
  ) {}

  /**
   * Every refund of the order, by a refund query with any refund number known for it: this
   * machine's history first, then `candidates`. Undefined when no number is known to the
   * gateway, or the channel has no refund query.
   */
  async refundsOf(found: FoundOrder, candidates: string[] = []): Promise<RefundOrder[] | undefined> {
    // A paid order no refund succeeded on; one still processing counts only if a number finds it.
    const none = found.record.result === 'SUCCESS' ? [] : undefined
    if (!hasRefundQuery(found.channel)) return none
    const known = this.records.ofOrder(found.record.mch_order_no ?? '')
    const numbers = [...new Set([...known.map((r) => r.mch_refund_no).reverse(), ...candidates])].slice(0, 3)
    for (const number of numbers) {
      let answer
      try {
        const amount = known.find((r) => r.mch_refund_no === number)?.refund_fee
        answer = await this.gateway.lookup(refundQuery(orderFacts(found), number, amount), {})
      } catch (error) {
        // Not known now: the gateway still enforces the balance when the refund is sent.
        if (error instanceof GwError) return undefined
        throw error
      }
      if (answer.status === 'success') return answer.data.refund_orders
      if (answer.status === 'refused' && answer.code === ORDER_NOT_FOUND) continue
      return undefined
    }
    return none
  }

  /**
   * The refunds this machine made of an order whose channel has no refund query (alipay):
   * what gw knows of them, never the gateway's word. Empty when it made none.
   */
  madeHere(found: FoundOrder): RefundEntry[] {
    return this.records.ofOrder(found.record.mch_order_no ?? '').filter(isMade)
  }

  /** Refunded so far (SUCCESS and PROCESSING count against the balance), or undefined when unknowable. */
  async refundedSoFar(found: FoundOrder, candidates: string[] = []): Promise<number | undefined> {
    const refunds = await this.refundsOf(found, candidates)
    return refunds && refundedTotal(refunds)
  }

  /**
   * The refund query of `gw refund query`, of the order found: its refunds, asked with the given
   * number or the last one known. An order never refunded has none (`refund` undefined, `none`
   * says why); one refunded elsewhere needs a number, and the message says where to find one.
   */
  async query(
    found: FoundOrder,
    mchRefundNo?: string,
  ): Promise<{
    refund?: RefundRecord
    mch_refund_no?: string
    none?: string
    /** The channel has no refund query: the refunds this machine made of the order, and so much is said. */
    made_here?: RefundEntry[]
  }> {
    const mchOrderNo = found.record.mch_order_no ?? ''
    if (!hasRefundQuery(found.channel)) {
      const made = this.madeHere(found)
      const wanted = mchRefundNo ? made.filter((r) => r.mch_refund_no === mchRefundNo) : made
      return {
        made_here: wanted,
        none: wanted.length
          ? undefined
          : `${mchRefundNo ? `Refund ${mchRefundNo} of order ${mchOrderNo} was` : `No refund of order ${mchOrderNo} was`} not made on this machine, and the gateway has no refund query for ${found.channel}: the merchant platform shows the order's refunds (the order is ${found.record.result}).`,
      }
    }
    const known = this.records.ofOrder(mchOrderNo)
    const number = mchRefundNo ?? known.at(-1)?.mch_refund_no
    const state = found.record.result
    if (!number && !PAID_ORDER_STATES.includes(state))
      return {none: `Order ${mchOrderNo} has no refunds: it was never paid (${state}).`}
    if (!number && state === 'SUCCESS')
      return {
        none: `No refund of order ${mchOrderNo} has completed: the gateway shows it paid in full. A refund still processing is found only by its number (--mch-refund-no).`,
      }
    if (!number) {
      throw new GwError(
        'usage',
        `Order ${mchOrderNo} has refunds, made elsewhere (gw made none of them on this machine), and the gateway lists an order's refunds only when asked with one of their numbers.`,
        {
          advice: `Find one on the merchant platform (the refund's merchant refund number) or in the report of the bulk run that made it, then, with it for REFUND_NO: ${gwCommand(this.gateway.profile, 'refund', 'query', mchOrderNo, '--mch-refund-no', 'REFUND_NO')}`,
        },
      )
    }
    const amount = known.find((r) => r.mch_refund_no === number)?.refund_fee
    const answer = await this.gateway.lookup(refundQuery(orderFacts(found), number, amount), {})
    if (answer.status === 'refused' && answer.code === ORDER_NOT_FOUND) {
      throw new GwError(
        'refused',
        `No refund ${number} on order ${mchOrderNo}: the gateway knows the order, not this refund number.`,
        {
          advice: 'Check the number: the merchant platform shows each refund with its merchant refund number.',
          details: {err_code: answer.code, err_msg: answer.message},
        },
      )
    }
    if (answer.status === 'refused') throw refusalError(answer, `Refunds of ${mchOrderNo}`)
    if (answer.status === 'uncertain') {
      throw new GwError('unknown', `Refunds of ${mchOrderNo}: the gateway is not sure (${answer.message}).`, {
        advice: 'Query again in a minute.',
      })
    }
    return {refund: answer.data, mch_refund_no: number}
  }
}
