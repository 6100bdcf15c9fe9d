import {GwCommand} from '../../lib/cli/base-command.js'
import {liveFlags, networkFlags, orderArgs, orderFlags, orderReference, usage} from '../../lib/cli/flags.js'
import {describeReference} from '../../lib/orders/reference.js'
import type {ClosedOrder} from '../../lib/orders/service.js'
import {orderView} from '../../lib/render/orders.js'

export default class OrderClose extends GwCommand<typeof OrderClose> {
  static override summary = 'close an unpaid order so its QR code can no longer be paid'
  static override description = 'A paid order cannot be closed (CANCEL_ERROR): refund it instead.'
  static override examples = [
    '<%= config.bin %> order close INV-1001',
    '<%= config.bin %> order close --gw-order-no 90020261121093015000001 --channel wechat',
  ]
  static override usage = usage.order(' [--yes]')
  static override args = orderArgs
  static override flags = {...orderFlags, ...liveFlags, ...networkFlags}

  async run(): Promise<ClosedOrder> {
    const ref = orderReference(this.args.mch_order_no, this.flags)
    await this.confirm(`close order ${describeReference(ref)}`)
    const closed = await (await this.services()).orders.close(ref, this.flags.channel)
    this.log(`Order ${describeReference(ref)} ${closed.already_closed ? 'was already closed' : 'is closed'}.`)
    this.log(orderView(closed))
    return closed
  }
}
