import {Args, Flags} from '@oclif/core'

import {amountOf} from '../../lib/cli/amount-input.js'
import {GwCommand} from '../../lib/cli/base-command.js'
import {onInterrupt} from '../../lib/cli/interrupt.js'
import * as shared from '../../lib/cli/flags.js'
import {usageError} from '../../lib/errors.js'
import {describeReference} from '../../lib/orders/reference.js'
import type {BulkResult} from '../../lib/refunds/bulk/bulk-result.js'
import {type RefundDocument, identicalQuestion, refundAction, refundOutcome} from '../../lib/render/refunds.js'

type BulkRun = BulkResult & {profile: string; appid: string; live: boolean; resume_command: string | null}
const confirmBulk = {always: true, otherwise: 'or --dry-run to see the plan'}

export default class RefundCreate extends GwCommand<typeof RefundCreate> {
  static override summary = 'refund a paid order, fully or in part, or every row of a CSV'
  static override description = `One refund: the order's total, currency and channel come from an order query when not given, and a refund above the order's balance is refused before anything is sent. The refund number is generated when not given and printed: keep it. If an answer is lost, gw looks the refund number up instead of sending again, so a refund is never made twice. A delayed refund (TRADE_STATE_ERROR) ends as processing, exit 5.

With --from-csv: the whole file is checked first (every problem with its line), every order is queried once, a journal beside the file records each refund before it is sent, and running the same command again resumes a run that was stopped or killed. A report lists every row. Exit 0 when every row is refunded, 1 when any failed or was skipped, 5 when any is still processing or unknown (run the command it prints again later), 6 when refunds were sent but the channel cannot confirm them (alipay): confirm them on the merchant platform by the refund numbers it lists.`

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
    ...shared.bulkRefundFlags,
    ...shared.orderFlags,
    // A bulk run asks on any profile (a single refund on a --live one): --yes answers both, and a script needs it.
    yes: Flags.boolean({
      char: 'y',
      description:
        'do not ask for confirmation: before a bulk run sends (asked on any profile; needed without a terminal), and on a --live profile',
    }),
    ...shared.networkFlags,
  }

  async run(): Promise<RefundDocument | BulkRun> {
    const {flags} = this
    if (flags['from-csv']) {
      if (this.args.mch_order_no) throw usageError('Give an order number or --from-csv, not both.')
      return this.#bulk(flags['from-csv'])
    }
    const ref = shared.orderReference(this.args.mch_order_no, flags)
    const names = {decimal: '--amount', minor: '--refund-fee'}
    const amount = amountOf(flags.amount, flags['refund-fee'], names, flags['fee-type'])
    const [{refunds}, {SingleRefunds}] = await Promise.all([this.services(), import('../../lib/refunds/single.js')])
    const {channel, 'mch-refund-no': mchRefundNo, 'fee-type': feeType, 'total-fee': totalFee} = flags
    const interrupt = onInterrupt()
    const result = await new SingleRefunds(refunds)
      .refund(
        {ref, amount, mchRefundNo, channel, feeType, totalFee},
        {
          identical: (made, planned) => {
            const [action, options] = identicalQuestion(made, planned, this.profile)
            return this.confirm(action, {...options, signal: interrupt.signal})
          },
          sending: (planned) => this.confirm(refundAction(planned), {signal: interrupt.signal}),
        },
        interrupt.signal,
      )
      .finally(() => interrupt.dispose())
    const outcome = refundOutcome(result, describeReference(ref), names, this.profile)
    if ('error' in outcome) throw outcome.error
    this.present(outcome)
    return outcome.refund
  }

  async #bulk(csv: string): Promise<BulkRun> {
    const {flags, profile} = this
    const {runBulkRefund, tuneHeapFor} = await import('../../lib/refunds/bulk/bulk-refund.js')
    tuneHeapFor(csv)
    const {STOPPING, CHECKS_STOPPING, bulkResultView, confirmText, planNotes, resumeCommand} =
      await import('../../lib/render/bulk.js')
    const {refunds} = await this.services()
    const named = shared.fieldsOf(flags, ['dry-run', 'skip-invalid', 'allow-repeats', 'retry-failed', 'batch-id'])
    const options = {...flags, ...named, csv, gw_version: this.config.version}
    const result = await runBulkRefund(refunds, options, {
      checking: (label, total) => this.longWork(label, total, CHECKS_STOPPING, 'with a problem'),
      planned: (plan, tookOver, output) => planNotes(plan, csv, tookOver, output).forEach((note) => this.note(note)),
      confirm: (planned) => {
        const {plan, action} = confirmText(planned, profile)
        return this.confirm(action, {...confirmBulk, before: plan})
      },
      // Rows not refunded are counted apart, whatever they ended as (failed, unknown, processing): the summary says which.
      sending: (total) => this.longWork('refunds', total, STOPPING, 'not refunded'),
    })
    // The command as given, every flag kept: resuming it repeats every flag that shaped the run.
    const again = this.sameCommand('--yes')
    this.present({...bulkResultView(result, profile, again), outcome: result.outcome})
    const resume_command = resumeCommand(result, again) ?? null
    return {...result, profile: profile.name, appid: profile.appid, live: profile.live, resume_command}
  }
}
