/** A payment notification's `data` as section 6 of the API document requires it, with `changes` over it. */
export function paymentNotification(
  mchOrderNo: string,
  changes: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    appid: 'mch1',
    nonce_str: 'Eicw3wUVe2kTQ0lX7yRtbPN6mJ8Hz4Aq',
    openid: 'o-payer-1',
    channel_order_no: `4200${mchOrderNo}`.slice(0, 32),
    cash_fee_type: 'CNY',
    gw_order_no: `900${mchOrderNo}`.slice(0, 32),
    time_end: '2026-11-24 19:42:59',
    fee_type: 'THB',
    attach: '',
    rate: 0.2,
    result: 'SUCCESS',
    total_fee: 1234,
    operation: 'NATIVE-PAY',
    cash_fee: 250,
    mch_order_no: mchOrderNo,
    order_no: mchOrderNo,
    channel: 'wechat',
    ...changes,
  }
}
