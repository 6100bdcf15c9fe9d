import {GwCommand} from '../../lib/cli/base-command.js'
import {listFilterOf, listFlags, networkFlags} from '../../lib/cli/flags.js'
import {ORDER_STATES} from '../../lib/gateway/protocol/index.js'
import type {ListedOrder} from '../../lib/orders/list.js'

export default class OrderList extends GwCommand<typeof OrderList> {
  static override summary = 'list the orders made on this machine, newest first'
  static override description =
    "The gateway has no list of orders: gw lists the orders it made for the profile's appid, from its local history, with the state it last learned (when it made, queried or closed them). --refresh asks the gateway for the state of each listed order first."
  static override examples = [
    '<%= config.bin %> order list --since today',
    '<%= config.bin %> order list --since 24h --state NOTPAY --refresh',
    '<%= config.bin %> order list --since 2026-11-01 --until 2026-12-01 --channel promptpay --out november.xlsx',
  ]

  static override flags = {...listFlags(Object.keys(ORDER_STATES)), ...networkFlags}

  async run(): Promise<{orders: ListedOrder[]}> {
    const [{listOrders, listedOrders, orderListRow, ORDER_LIST_COLUMNS}, {orderListView}, {history, orders: service}] =
      await Promise.all([
        import('../../lib/orders/list.js'),
        import('../../lib/render/orders.js'),
        this.services({signs: Boolean(this.flags.refresh)}),
      ])
    const filter = listFilterOf(this.flags)
    const file = {columns: ORDER_LIST_COLUMNS, row: orderListRow, sheet: 'orders'}
    const appid = this.profile.appid
    const view = (shown: ListedOrder[], total: number) => orderListView(shown, appid, total)
    if (await this.streamList(this.flags, listedOrders(history, appid, filter), file, view)) return {orders: []}
    const orders = await listOrders(history, service, filter)
    this.log(orderListView(orders, appid))
    await this.writeList(this.flags, ORDER_LIST_COLUMNS, orders.map(orderListRow), 'orders')
    this.refreshFailures(orders, 'orders')
    return {orders}
  }
}
