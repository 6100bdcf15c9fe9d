import {GwCommand} from '../../lib/cli/base-command.js'
import {anyNumberArgs, networkFlags, orderFlags, orderReference, usage, zoneFlag} from '../../lib/cli/flags.js'
import {type FoundByNumber, findNamed} from '../../lib/orders/any-number.js'
import {foundByNote, orderView} from '../../lib/render/orders.js'

export default class OrderQuery extends GwCommand<typeof OrderQuery> {
  static override summary = 'show an order: state in words, amounts, channel, when it was paid'
  static override description =
    "Name the order by any number support has: the merchant's order number, the gateway's, the channel's (a wallet's receipt shows it), or a refund number of it this machine knows (gw's or the gateway's). A number this machine does not know is asked of every channel at once, as each of the order's numbers, and gw says which one answered."
  static override examples = [
    '<%= config.bin %> order query INV-1001',
    '<%= config.bin %> order query 4200002025112109301512345678',
    '<%= config.bin %> order query --gw-order-no 90020261121093015000001 --channel promptpay',
    '<%= config.bin %> order query INV-1001 --json',
  ]

  static override usage = usage.anyNumber()
  static override args = anyNumberArgs
  static override flags = {...orderFlags, zone: zoneFlag, ...networkFlags}

  async run(): Promise<FoundByNumber> {
    const {orders} = await this.services()
    const {number} = this.args
    const found = await findNamed(orders, orderReference(number, this.flags, 'NUMBER'), this.flags.channel)
    if (found.channel_source === 'discovered') this.note(`found on channel ${found.channel}`)
    const note = foundByNote(number, found)
    if (note) this.note(note)
    this.log(orderView(found))
    return found
  }
}
