import {GwCommand} from '../../lib/cli/base-command.js'
import {listFlags, networkFlags, usage} from '../../lib/cli/flags.js'
import {ORDER_STATES} from '../../lib/gateway/protocol/index.js'

export default class OrderList extends GwCommand<typeof OrderList> {
  static override summary = 'list the orders made on this machine, newest first'
  static override description =
    "The gateway has no list of orders: gw lists the orders it made for the profile's appid, from its local history, with the state it last learned (when it made, queried or closed them) and the payer a query or notification showed (openid, whole in --json and --out). --refresh asks the gateway for the state of each listed order first. A long list shows its first 1000 on stdout with how many there are: --out FILE or --json gives all of them."
  static override examples = [
    '<%= config.bin %> order list --since today',
    '<%= config.bin %> order list --since 24h --state NOTPAY --refresh',
    '<%= config.bin %> order list --amount 150.50 --payer u_51de94b0',
    '<%= config.bin %> order list --since 2026-11-01 --until 2026-12-01 --channel promptpay --out november.xlsx',
  ]

  static override usage = usage.list
  static override flags = {...listFlags(Object.keys(ORDER_STATES), 'only orders of this total'), ...networkFlags}

  async run(): Promise<void> {
    const [{listOrders, orderListRow, ORDER_LIST_COLUMNS}, {orderListView}, {history, orders}] = await Promise.all([
      import('../../lib/orders/list.js'),
      import('../../lib/render/orders.js'),
      this.services({signs: Boolean(this.flags.refresh)}),
    ])
    const appid = this.profile.appid
    await this.showList(
      {
        what: 'orders',
        file: {columns: ORDER_LIST_COLUMNS, row: orderListRow, sheet: 'orders'},
        view: (shown, counted, form) => orderListView(shown, appid, counted, form),
      },
      (emit, filter) => listOrders(history, orders, filter, emit),
    )
  }
}
