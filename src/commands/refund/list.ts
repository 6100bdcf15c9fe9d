import {GwCommand} from '../../lib/cli/base-command.js'
import {listFilterOf, listFlags, networkFlags} from '../../lib/cli/flags.js'
import {type ListedRefund, REFUND_LIST_STATES} from '../../lib/refunds/list.js'

export default class RefundList extends GwCommand<typeof RefundList> {
  static override summary = 'list the refunds made on this machine, newest first'
  static override description =
    "Lists the refunds gw made for the profile's appid (one at a time or from files), from its local history, with their status as gw last knew it: refunded, processing, failed, unknown (sent, outcome not known yet), intent (about to be sent when gw stopped), absent (the gateway has no such refund). --refresh asks the gateway for each order's refunds first. Settling an unknown refund is refund create's work: run it again for that order."
  static override examples = [
    '<%= config.bin %> refund list --since today',
    '<%= config.bin %> refund list --since 7d --state processing --refresh',
    '<%= config.bin %> refund list --since yesterday --until today --out refunds-yesterday.csv',
  ]

  static override flags = {...listFlags(REFUND_LIST_STATES), ...networkFlags}

  async run(): Promise<{refunds: ListedRefund[]}> {
    const [{listRefunds, listedRefunds, refundListRow, REFUND_LIST_COLUMNS}, {refundListView}, {refunds: service}] =
      await Promise.all([
        import('../../lib/refunds/list.js'),
        import('../../lib/render/refunds.js'),
        this.services({signs: Boolean(this.flags.refresh)}),
      ])
    const filter = listFilterOf(this.flags)
    const file = {columns: REFUND_LIST_COLUMNS, row: refundListRow, sheet: 'refunds'}
    const appid = this.profile.appid
    const view = (shown: ListedRefund[], total: number) => refundListView(shown, appid, total)
    if (await this.streamList(this.flags, listedRefunds(service.history, appid, filter), file, view))
      return {refunds: []}
    const refunds = await listRefunds(service, filter)
    this.log(refundListView(refunds, appid))
    await this.writeList(this.flags, REFUND_LIST_COLUMNS, refunds.map(refundListRow), 'refunds')
    this.refreshFailures(refunds, 'refunds')
    return {refunds}
  }
}
