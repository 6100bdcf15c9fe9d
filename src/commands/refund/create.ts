import {Args, Flags} from '@oclif/core'

import {GwCommand, liveFlags, networkFlags} from '../../lib/cli/base-command.js'
import type {RefundRow, SummaryLine} from '../../lib/refunds/bulk/bulk-refund.js'
import {ExitCode, GwError, usageError} from '../../lib/errors.js'
import {orderFlags, orderReference} from '../../lib/cli/order-flags.js'
import {CURRENCIES, formatAmount} from '../../lib/gateway/protocol/index.js'
import type {RefundResult} from '../../lib/refunds/service.js'
import {refundResultView} from '../../lib/render/views.js'

interface BulkResult {
  csv: string
  report: string | null
  journal: string
  profile: string
  appid: string
  live: boolean
  resumed: boolean
  dry_run: boolean
  interrupted: boolean
  problems: {line: number; message: string}[]
  summary: SummaryLine[]
  rows: {
    line: number
    status: string
    mch_refund_no: string
    mch_order_no?: string
    refund_fee?: number
    fee_type?: string
    gw_refund_no?: string
    err_code?: string
    err_msg?: string
  }[]
}

export default class RefundCreate extends GwCommand<typeof RefundCreate> {
  static override summary = 'refund a paid order, fully or in part, or every row of a CSV'
  static override description = `One refund: the order's total, currency and channel come from an order query when not given, and a refund above the order's balance is refused before anything is sent. The refund number is generated when not given and printed: keep it. If an answer is lost, gw looks the refund number up instead of sending again, so a refund is never made twice. A delayed refund (TRADE_STATE_ERROR) ends as processing, exit 5.

With --from-csv: the whole file is checked first (every problem with its line), every order is queried once, a journal beside the file records each refund before it is sent, and running the same command again resumes a run that was stopped or killed. A report lists every row. Exit 0 when every row is refunded, 1 when any failed or was skipped, 5 when any is still processing.`

  static override examples = [
    '<%= config.bin %> refund create INV-1001 --amount 50.00',
    '<%= config.bin %> refund create INV-1001 --refund-fee 5000 --mch-refund-no INV-1001-R1',
    '<%= config.bin %> refund create --gw-order-no 90020261121093015000001 --amount 10 --channel wechat --json',
    '<%= config.bin %> refund create --from-csv refunds.csv --dry-run',
    '<%= config.bin %> refund create --from-csv refunds.csv --yes --concurrency 8 --rate 20',
  ]

  static override args = {mch_order_no: Args.string({description: 'merchant order number of the paid order'})}
  static override flags = {
    amount: Flags.string({
      description: 'refund amount as a decimal in the order currency, e.g. 50.00',
      exclusive: ['refund-fee'],
    }),
    'refund-fee': Flags.integer({description: 'refund amount in minor units, e.g. 5000', exclusive: ['amount']}),
    'mch-refund-no': Flags.string({description: 'merchant refund number (default: generated); each may be used once'}),
    'fee-type': Flags.string({
      description: 'currency of the order (checked against the order query)',
      options: [...CURRENCIES],
    }),
    'total-fee': Flags.integer({description: 'order total in minor units (checked against the order query)'}),
    'from-csv': Flags.string({
      description: 'refund every row of this CSV file',
      helpGroup: 'BULK',
      exclusive: ['amount', 'refund-fee', 'mch-refund-no', 'gw-order-no', 'channel-order-no'],
    }),
    'dry-run': Flags.boolean({
      description: 'check the file and the orders, show the plan, send nothing',
      helpGroup: 'BULK',
      dependsOn: ['from-csv'],
    }),
    'skip-invalid': Flags.boolean({
      description: 'send the valid rows and report the others as skipped_invalid',
      helpGroup: 'BULK',
      dependsOn: ['from-csv'],
    }),
    concurrency: Flags.integer({
      description: 'refunds in flight at once',
      default: 4,
      min: 1,
      max: 64,
      helpGroup: 'BULK',
    }),
    rate: Flags.integer({description: 'refunds started per second at most', min: 1, helpGroup: 'BULK'}),
    out: Flags.string({
      description: 'report file (default: beside the CSV, NAME.report.csv)',
      helpGroup: 'BULK',
      dependsOn: ['from-csv'],
    }),
    journal: Flags.string({
      description: 'journal file (default: beside the CSV, NAME.journal.jsonl)',
      helpGroup: 'BULK',
      dependsOn: ['from-csv'],
    }),
    ...orderFlags,
    ...liveFlags,
    ...networkFlags,
  }

  async run(): Promise<RefundResult | BulkResult> {
    const {flags} = this
    if (flags['from-csv']) {
      if (this.args.mch_order_no) throw usageError('Give an order number or --from-csv, not both.')
      return this.#bulk(flags['from-csv'])
    }
    const ref = orderReference(this.args.mch_order_no, flags)
    if (flags.amount === undefined && flags['refund-fee'] === undefined)
      throw usageError('Give the refund amount: --amount 50.00 or --refund-fee 5000.')
    const planned = await this.refunds.plan({
      ref,
      amount: flags.amount,
      refundFee: flags['refund-fee'],
      mchRefundNo: flags['mch-refund-no'],
      channel: flags.channel,
      feeType: flags['fee-type'],
      totalFee: flags['total-fee'],
    })
    await this.confirmLive(
      `refund ${formatAmount(planned.refund_fee, planned.fee_type)} of order ${planned.mch_order_no}`,
    )
    this.note(`refund number ${planned.mch_refund_no}`)
    const result = await this.refunds.send(planned)
    if (result.status === 'failed') {
      throw new GwError(
        'refused',
        `Refund ${planned.mch_refund_no} of ${formatAmount(planned.refund_fee, planned.fee_type)} failed: ${result.explanation}`,
        {details: {err_code: result.err_code, err_msg: result.err_msg, mch_refund_no: planned.mch_refund_no}},
      )
    }
    this.log(refundResultView(result))
    if (result.status === 'processing') {
      this.note(`Check it later: gw refund query ${planned.mch_order_no} --mch-refund-no ${planned.mch_refund_no}`)
      this.setExitCode(ExitCode.Unknown)
    }
    if (result.status === 'unknown') this.setExitCode(ExitCode.Unknown)
    return result
  }

  async #bulk(csv: string): Promise<BulkResult> {
    const {flags} = this
    const {BulkRefunds, defaultPaths, summarize, writeReport} = await import('../../lib/refunds/bulk/bulk-refund.js')
    const {problemLines, summaryTable, toSendTotals} = await import('../../lib/render/bulk.js')
    const paths = defaultPaths(csv, flags.journal, flags.out)
    const profile = this.profile
    const bulk = new BulkRefunds(this.refunds, this.orders, flags.concurrency)
    const run = await bulk.prepare(paths, {skipInvalid: flags['skip-invalid']})
    const result = (report: string | null, interrupted = false): BulkResult => ({
      csv: paths.csv,
      report,
      journal: paths.journal,
      profile: profile.name,
      appid: profile.appid,
      live: profile.live,
      resumed: run.resumed,
      dry_run: flags['dry-run'],
      interrupted,
      problems: run.problems,
      summary: summarize(run.rows),
      rows: run.rows.map(rowView),
    })
    if (run.resumed)
      this.note(`resuming: ${run.found.done} done, ${run.found.uncertain} uncertain, ${run.found.toGo} to go`)
    const settled = Object.entries(run.settled).map(
      ([status, n]) => `${n} ${status === 'pending' ? 'not found, to send again' : status}`,
    )
    if (settled.length) this.note(`the uncertain rows, asked of the gateway: ${settled.join(', ')}`)
    const toGo = run.rows.filter((r) => r.status === 'pending' || r.status === 'unknown').length
    if (run.problems.length)
      this.note(
        `${run.problems.length} problem${run.problems.length === 1 ? '' : 's'} in ${csv}:\n${problemLines(run.problems)}`,
      )
    const blocked = run.problems.length > 0 && (!flags['skip-invalid'] || !run.journalHeader)
    if (flags['dry-run']) {
      this.log(`Plan for ${csv} (profile "${profile.name}", ${profile.appid}, ${profile.live ? 'LIVE' : 'test'}):`)
      this.log(
        `  ${run.rows.length} rows, ${new Set(run.rows.map((r) => r.orderKey).filter(Boolean)).size} orders; to send: ${toSendTotals(run)}`,
      )
      this.log(summaryTable(summarize(run.rows)))
      this.log(
        blocked
          ? 'Fix the problems above (or add --skip-invalid), then run without --dry-run.'
          : 'Nothing was sent. Run again without --dry-run to send.',
      )
      if (blocked) this.setExitCode(ExitCode.Usage)
      return result(null)
    }
    if (blocked) {
      throw new GwError(
        'usage',
        `${csv} has ${run.problems.length} problem${run.problems.length === 1 ? '' : 's'} (listed above); nothing was sent.`,
        {
          advice: 'Fix them and run again, or add --skip-invalid to send the valid rows and report the rest.',
          details: {problems: run.problems},
        },
      )
    }
    if (toGo > 0) await this.#confirmBulk(`send ${toSendTotals(run)} of refunds from ${csv}`, profile.live)
    const {startProgress} = await import('../../lib/cli/progress.js')
    const progress = await startProgress('refunds', toGo, toGo > 0)
    const stop = new AbortController()
    const onSignal = () => {
      if (stop.signal.aborted) process.exit(ExitCode.Interrupted)
      this.note(
        '\nstopping: waiting for the refunds in flight (Ctrl-C again to quit at once; the journal is safe either way)',
      )
      stop.abort()
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    let sent
    try {
      sent = await bulk.send(run, {rate: flags.rate, signal: stop.signal, progress})
    } finally {
      progress.stop()
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
    await writeReport(run)
    this.log(summaryTable(summarize(run.rows)))
    this.log(`report: ${paths.report}`)
    const count = (status: string) => run.rows.filter((r) => r.status === status).length
    if (sent.stopped) {
      this.note(
        `Interrupted: ${count('pending')} rows not sent. Resume with the same command: gw refund create --from-csv ${csv}${flags.journal ? ` --journal ${flags.journal}` : ''} --yes`,
      )
      this.setExitCode(ExitCode.Interrupted)
    } else if (count('failed') + count('skipped_invalid') > 0) {
      this.setExitCode(ExitCode.Refused)
    } else if (count('processing') + count('unknown') > 0) {
      this.note('Some refunds are still processing or unknown: run the same command again later to settle them.')
      this.setExitCode(ExitCode.Unknown)
    }
    return result(paths.report, sent.stopped)
  }

  /** A terminal asks; without one, --yes is required. */
  async #confirmBulk(action: string, live: boolean): Promise<void> {
    if (this.flags.yes) return
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      throw usageError(
        `Not confirmed: this would ${action}.`,
        'Add --yes to confirm (no terminal to ask on), or --dry-run to see the plan.',
      )
    }
    const {confirm} = await import('@inquirer/prompts')
    const ok = await confirm(
      {
        message: `${live ? 'LIVE: ' : ''}${action} (profile "${this.profile.name}", ${this.profile.appid})?`,
        default: false,
      },
      {output: process.stderr},
    )
    if (!ok) throw usageError('Cancelled; nothing was sent.')
  }
}

function rowView(row: RefundRow): BulkResult['rows'][number] {
  return {
    line: row.line,
    status: row.status,
    mch_refund_no: row.mchRefundNo,
    mch_order_no: row.planned?.mch_order_no ?? row.ref.mch_order_no,
    refund_fee: row.planned?.refund_fee ?? row.refundFee,
    fee_type: row.planned?.fee_type ?? row.feeType,
    gw_refund_no: row.gw_refund_no,
    err_code: row.err_code,
    err_msg: row.err_msg,
  }
}
