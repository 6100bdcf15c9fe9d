import {Args, Flags} from '@oclif/core'

import {GwCommand, liveFlags, networkFlags} from '../../lib/base-command.js'
import {ExitCode, GwError, usageError} from '../../lib/errors.js'
import {orderFlags, orderReference} from '../../lib/order-flags.js'
import {CURRENCIES, formatAmount} from '../../lib/protocol/index.js'
import type {RefundResult} from '../../lib/refunds.js'
import {refundResultView} from '../../lib/render/views.js'

export default class RefundCreate extends GwCommand<typeof RefundCreate> {
  static override summary = 'refund a paid order, fully or in part'
  static override description = `The order's total, currency and channel come from an order query when not given, and a refund above the order's balance is refused before anything is sent. The refund number is generated when not given and printed: keep it. If an answer is lost, gw looks the refund number up instead of sending again, so a refund is never made twice. A delayed refund (TRADE_STATE_ERROR) ends as processing, exit 5.`
  static override examples = [
    '<%= config.bin %> refund create INV-1001 --amount 50.00',
    '<%= config.bin %> refund create INV-1001 --refund-fee 5000 --mch-refund-no INV-1001-R1',
    '<%= config.bin %> refund create --gw-order-no 90020261121093015000001 --amount 10 --channel wechat --json',
  ]

  static override args = {mch_order_no: Args.string({description: 'merchant order number of the paid order'})}
  static override flags = {
    amount: Flags.string({description: 'refund amount as a decimal in the order currency, e.g. 50.00', exclusive: ['refund-fee']}),
    'refund-fee': Flags.integer({description: 'refund amount in minor units, e.g. 5000', exclusive: ['amount']}),
    'mch-refund-no': Flags.string({description: 'merchant refund number (default: generated); each may be used once'}),
    'fee-type': Flags.string({description: 'currency of the order (checked against the order query)', options: [...CURRENCIES]}),
    'total-fee': Flags.integer({description: 'order total in minor units (checked against the order query)'}),
    ...orderFlags,
    ...liveFlags,
    ...networkFlags,
  }

  async run(): Promise<RefundResult> {
    const {flags} = this
    const ref = orderReference(this.args.mch_order_no, flags)
    if (flags.amount === undefined && flags['refund-fee'] === undefined) throw usageError('Give the refund amount: --amount 50.00 or --refund-fee 5000.')
    const planned = await this.refunds.plan({
      ref,
      amount: flags.amount,
      refundFee: flags['refund-fee'],
      mchRefundNo: flags['mch-refund-no'],
      channel: flags.channel,
      feeType: flags['fee-type'],
      totalFee: flags['total-fee'],
    })
    await this.confirmLive(`refund ${formatAmount(planned.refund_fee, planned.fee_type)} of order ${planned.mch_order_no}`)
    this.note(`refund number ${planned.mch_refund_no}`)
    const result = await this.refunds.send(planned)
    if (result.status === 'failed') {
      throw new GwError('refused', `Refund ${planned.mch_refund_no} of ${formatAmount(planned.refund_fee, planned.fee_type)} failed: ${result.explanation}`, {details: {err_code: result.err_code, err_msg: result.err_msg, mch_refund_no: planned.mch_refund_no}})
    }
    this.log(refundResultView(result))
    if (result.status === 'processing') {
      this.note(`Check it later: gw refund query ${planned.mch_order_no} --mch-refund-no ${planned.mch_refund_no}`)
      this.setExitCode(ExitCode.Unknown)
    }
    if (result.status === 'unknown') this.setExitCode(ExitCode.Unknown)
    return result
  }
}
