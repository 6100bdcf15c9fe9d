import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {networkFlags, orderArgs, orderFlags, orderReference, usage} from '../../lib/cli/flags.js'
import type {Timeline} from '../../lib/orders/timeline.js'

export default class OrderTimeline extends GwCommand<typeof OrderTimeline> {
  static override summary = "one order's whole story: made, shown, notified, queried, refunded, closed, in time order"
  static override description =
    "Everything this machine knows of one order, oldest first: made (by which profile and command), its QR code drawn or saved, each notification a gw notify listen verified or rejected, each query's state, each refund (number, amount, outcome, who made it: gw refund create or a bulk file, and the gateway's refund number that proves it), closed. --refresh asks the gateway first: the order's state now and its refunds, those made elsewhere (the merchant platform) too. Name the order by any of its numbers."
  static override examples = [
    '<%= config.bin %> order timeline INV-1001',
    '<%= config.bin %> order timeline --gw-order-no 90020261121093015000001 --refresh',
    '<%= config.bin %> order timeline INV-1001 --refresh --json',
  ]

  static override usage = usage.order(' [--refresh]')
  static override args = orderArgs
  static override flags = {
    ...orderFlags,
    refresh: Flags.boolean({description: 'ask the gateway first: the order now, and its refunds'}),
    ...networkFlags,
  }

  async run(): Promise<Timeline> {
    const {flags} = this
    const [{orderTimeline}, {timelineView}, {refunds}] = await Promise.all([
      import('../../lib/orders/timeline.js'),
      import('../../lib/render/timeline.js'),
      this.services({signs: flags.refresh}),
    ])
    const ref = orderReference(this.args.mch_order_no, flags)
    const timeline = await orderTimeline(refunds, ref, {refresh: flags.refresh, channel: flags.channel})
    this.log(timelineView(timeline))
    return timeline
  }
}
