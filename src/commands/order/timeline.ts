import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {anyNumberArgs, networkFlags, orderFlags, orderReference, usage, zoneFlag, zoneOf} from '../../lib/cli/flags.js'
import type {Timeline} from '../../lib/orders/timeline.js'
import type {FoundOrder} from '../../lib/orders/finding.js'

export default class OrderTimeline extends GwCommand<typeof OrderTimeline> {
  static override summary = "one order's whole story: made, shown, notified, queried, refunded, closed, in time order"
  static override description =
    "Everything this machine knows of one order, oldest first: made (by which profile and command), its QR code drawn or saved (or why not, and its code_url), each notification a gw notify listen verified or rejected, queries (those in a row showing the same state as one line, with how many), each refund (number, amount, outcome, who made it: gw refund create or a bulk file, and the gateway's refund number that proves it), closed; then what it adds up to: paid, refunded (what the gateway showed succeeded) and left, with refunds not proven either way apart. --refresh asks the gateway first: the order's state now, when it was paid and by whom, and its refunds, those made elsewhere (the merchant platform) too, on a desk that did not make the order as well. Name the order by any number support has: the merchant's order number, the gateway's, the channel's (a wallet's receipt shows it), or a refund number of it this machine knows (gw's or the gateway's); with --refresh a number this machine does not know is asked of every channel at once. Times are on this machine's clock, or with --zone gateway on the gateway's (the customer's, as receipts show them)."
  static override examples = [
    '<%= config.bin %> order timeline INV-1001',
    '<%= config.bin %> order timeline --gw-order-no 90020261121093015000001 --refresh',
    '<%= config.bin %> order timeline RF20261121093015A1B2C3',
    '<%= config.bin %> order timeline --channel-order-no 4200002025112109301512345678 --refresh --zone gateway',
    '<%= config.bin %> order timeline INV-1001 --refresh --json',
  ]

  static override usage = usage.anyNumber(' [--refresh]')
  static override args = anyNumberArgs
  static override flags = {
    ...orderFlags,
    refresh: Flags.boolean({description: 'ask the gateway first: the order now, and its refunds'}),
    zone: zoneFlag,
    ...networkFlags,
  }

  async run(): Promise<Timeline> {
    const {flags} = this
    const [{orderTimeline}, {timelineView}, {history, orders, refunds}] = await Promise.all([
      import('../../lib/orders/timeline.js'),
      import('../../lib/render/timeline.js'),
      this.services({signs: flags.refresh}),
    ])
    const ref = orderReference(this.args.number, flags, 'NUMBER')
    const zone = zoneOf(flags.zone, this.profile.gatewayZone)
    const sources = {history, orders, profile: this.profile, refundsOf: (found: FoundOrder) => refunds.refundsOf(found)}
    const timeline = await orderTimeline(sources, ref, {refresh: flags.refresh, channel: flags.channel, zone})
    this.log(timelineView(timeline))
    return timeline
  }
}
