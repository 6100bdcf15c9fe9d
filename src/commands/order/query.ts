import {GwCommand} from '../../lib/cli/base-command.js'
import {networkFlags, orderArgs, orderFlags, orderReference, usage} from '../../lib/cli/flags.js'
import type {FoundOrder} from '../../lib/orders/service.js'
import {orderView} from '../../lib/render/orders.js'

export default class OrderQuery extends GwCommand<typeof OrderQuery> {
  static override summary = 'show an order: state in words, amounts, channel, when it was paid'
  static override description =
    'Name the order by any of its three numbers. Without --channel, gw uses the local history of orders it created, else asks each channel in turn and says which one answered.'
  static override examples = [
    '<%= config.bin %> order query INV-1001',
    '<%= config.bin %> order query --gw-order-no 90020261121093015000001 --channel promptpay',
    '<%= config.bin %> order query INV-1001 --json',
  ]

  static override usage = usage.order()
  static override args = orderArgs
  static override flags = {...orderFlags, ...networkFlags}

  async run(): Promise<FoundOrder> {
    const found = await (
      await this.services()
    ).orders.find(orderReference(this.args.mch_order_no, this.flags), this.flags.channel)
    if (found.channel_source === 'discovered') this.note(`found on channel ${found.channel}`)
    this.log(orderView(found))
    return found
  }
}
