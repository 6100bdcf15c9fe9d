import {Args, Flags} from '@oclif/core'

import {amountOf} from '../../lib/cli/amount-input.js'
import {GwCommand} from '../../lib/cli/base-command.js'
import {bulkRefundFlags} from '../../lib/cli/file-flags.js'
import * as shared from '../../lib/cli/flags.js'
import {type Ended, usageError} from '../../lib/errors.js'
import type {BulkResult} from '../../lib/refunds/bulk/bulk-result.js'
import type {RefundDocument} from '../../lib/render/refunds.js'

type BulkRun = BulkResult & {profile: string; appid: string; live: boolean; resume_command: string | null} & Ended

export default class RefundCreate extends GwCommand<typeof RefundCreate> {
  static override summary = 'refund a paid order, fully or in part, or every row of a CSV'
  static override description = `One refund: the order's total, currency and channel come from an order query when not given, and a refund above the order's balance is refused before anything is sent. The refund number is generated when not given and printed: keep it. If an answer is lost, gw looks the refund number up instead of sending again, so a refund is never made twice. A delayed refund (TRADE_STATE_ERROR) ends as processing, exit 5.

With --from-csv: the whole file is checked first (every problem with its line), every order is queried once, a journal beside the file records each refund before it is sent, and running the same command again resumes a run that was stopped or killed. A report lists every row. Exit 0 when every row is refunded, 1 when any failed or was skipped, 5 when any is still processing, unknown or held, even beside failed rows (run the command it prints again later), 6 when refunds were sent but the channel cannot confirm them (alipay): confirm them on the merchant platform by the refund numbers it lists.`

  static override examples = [
    '<%= config.bin %> refund create INV-1001 --amount 50.00',
    '<%= config.bin %> refund create INV-1001 --refund-fee 5000 --mch-refund-no INV-1001-R1',
    '<%= config.bin %> refund create --gw-order-no 90020261121093015000001 --amount 10 --channel wechat --json',
    '<%= config.bin %> refund create --from-csv refunds.csv --dry-run',
    '<%= config.bin %> refund create --from-csv refunds.csv --yes --concurrency 8 --rate 20',
  ]

  static override usage = [
    ...shared.usage.order(' (--amount D | --refund-fee N)'),
    '<%= command.id %> --from-csv FILE [--dry-run] [--yes] [FLAGS]',
  ]
  static override args = {
    mch_order_no: Args.string({ignoreStdin: true, description: 'merchant order number of the paid order'}),
  }
  static override flags = {
    ...shared.refundFlags,
    zone: shared.zoneFlag,
    ...bulkRefundFlags,
    ...shared.orderFlags,
    // A bulk run asks on any profile (a single refund on a --live one): --yes answers both, and a script needs it.
    yes: Flags.boolean({
      char: 'y',
      description:
        'do not ask for confirmation: before a bulk run sends (asked on any profile; needed without a terminal), and on a --live profile',
    }),
    ...shared.networkFlags,
  }

  async run(): Promise<(RefundDocument & Ended) | BulkRun> {
    const {flags} = this
    if (flags['from-csv']) {
      if (this.args.mch_order_no) throw usageError('Give an order number or --from-csv, not both.')
      return this.#bulk(flags['from-csv'])
    }
    const ref = shared.orderReference(this.args.mch_order_no, flags)
    const names = {decimal: '--amount', minor: '--refund-fee'}
    const amount = amountOf(flags.amount, flags['refund-fee'], names, flags['fee-type'])
    const [{refunds}, {refundAndSay}] = await Promise.all([this.services(), import('./create.run.js')])
    const {channel, 'mch-refund-no': mchRefundNo, 'total-fee': totalFee} = flags
    // An amount that names its currency (฿5.00) says the order's, as --fee-type does.
    const feeType = flags['fee-type'] ?? ('currency' in amount ? amount.currency : undefined)
    const request = {ref, amount, mchRefundNo, channel, feeType, totalFee}
    return refundAndSay(request, names, refunds, {...this.showing, ...this.asking, profile: this.profile})
  }

  async #bulk(csv: string): Promise<BulkRun> {
    const {runBulk} = await import('./create.bulk.run.js')
    const {refunds} = await this.services()
    const command = {...this.showing, ...this.asking, profile: this.profile, refunds, version: this.config.version}
    // The command as given, every flag kept: resuming it repeats every flag that shaped the run.
    const {view, document} = await runBulk(csv, this.flags, {...command, again: this.sameCommand('--yes')})
    this.present(view)
    return document
  }
}
