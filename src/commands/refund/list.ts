import {GwCommand} from '../../lib/cli/base-command.js'
import {listFlags, networkFlags, usage} from '../../lib/cli/flags.js'
import {REFUND_LIST_STATES} from '../../lib/refunds/list.js'

export default class RefundList extends GwCommand<typeof RefundList> {
  static override summary = 'list the refunds made on this machine, newest first'
  static override description =
    "Lists the refunds gw made for the profile's appid (one at a time or from files), from its local history, with their status as gw last knew it: refunded, processing, failed, unknown (sent, outcome not known yet), intent (about to be sent when gw stopped), absent (the gateway has no such refund), and the total of each refund's order where gw knows it: --amount finds a refund by its own amount or by its order's total (the customer paid 150.50). --refresh asks the gateway for each order's refunds first. Settling an unknown refund is refund create's work: run it again for that order. A long list shows its first 1000 on stdout with how many there are: --out FILE or --json gives all of them."
  static override examples = [
    '<%= config.bin %> refund list --since today',
    '<%= config.bin %> refund list --since 7d --state processing --refresh',
    '<%= config.bin %> refund list --amount 150.50',
    '<%= config.bin %> refund list --since yesterday --until yesterday --out refunds-yesterday.csv',
  ]

  static override usage = usage.list
  static override flags = {
    ...listFlags(REFUND_LIST_STATES, 'only refunds of this amount, and every refund of an order of this total'),
    ...networkFlags,
  }

  async run(): Promise<void> {
    const [{listRefunds, refundListRow, REFUND_LIST_COLUMNS}, {refundListView}, {refunds}] = await Promise.all([
      import('../../lib/refunds/list.js'),
      import('../../lib/render/refunds.js'),
      this.services({signs: Boolean(this.flags.refresh)}),
    ])
    const appid = this.profile.appid
    await this.showList(
      {
        what: 'refunds',
        file: {columns: REFUND_LIST_COLUMNS, row: refundListRow, sheet: 'refunds'},
        view: (shown, counted, form) => refundListView(shown, appid, counted, form),
      },
      (emit, filter) => listRefunds(refunds, filter, emit),
    )
  }
}
