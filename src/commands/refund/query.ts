import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {networkFlags, orderFlags, orderReference} from '../../lib/cli/flags.js'
import type {FoundOrder} from '../../lib/orders/service.js'
import type {RefundRecord} from '../../lib/gateway/protocol/index.js'
import {refundRecordView} from '../../lib/render/refunds.js'

export default class RefundQuery extends GwCommand<typeof RefundQuery> {
  static override summary = 'list the refunds of an order, with their states'
  static override description =
    'The gateway answers for the whole order (every refund, and the total refunded) but needs one refund number of it: --mch-refund-no, else the last refund gw made of this order on this machine.'
  static override examples = [
    '<%= config.bin %> refund query INV-1001',
    '<%= config.bin %> refund query INV-1001 --mch-refund-no INV-1001-R1 --json',
  ]
  static override args = {mch_order_no: Args.string({description: 'merchant order number'})}
  static override flags = {
    'mch-refund-no': Flags.string({description: 'a refund number of the order'}),
    ...orderFlags,
    ...networkFlags,
  }

  async run(): Promise<{order: FoundOrder['record']; channel: string; mch_refund_no: string; refund: RefundRecord}> {
    const {queries} = (await this.services()).refunds
    const ref = orderReference(this.args.mch_order_no, this.flags)
    const {found, refund, mch_refund_no} = await queries.query(ref, this.flags['mch-refund-no'], this.flags.channel)
    this.log(refundRecordView(found.record.mch_order_no ?? '', refund))
    return {order: found.record, channel: found.channel, mch_refund_no, refund}
  }
}
