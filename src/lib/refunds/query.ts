/** The refund query's parameters, built from what is known of the order (an order query's, or a planned refund's). */

/** What a refund query needs to know of the order. */
export interface RefundQueryOrder {
  mch_order_no?: string
  gw_order_no?: string
  channel: string
  total_fee?: number
  fee_type?: string
}

export function refundQuery(order: RefundQueryOrder, mchRefundNo: string, refundFee: number | undefined) {
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
