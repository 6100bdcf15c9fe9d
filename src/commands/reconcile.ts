import {Args, Flags} from '@oclif/core'

import {GwCommand, networkFlags} from '../lib/cli/base-command.js'
import {ExitCode} from '../lib/errors.js'
import {ALL_CHANNELS, formatAmount} from '../lib/gateway/protocol/index.js'
import type {ReconciledRow, SummaryCell} from '../lib/reconcile/reconcile.js'
import {table} from '../lib/render/table.js'

interface ReconcileResult {
  file: string
  out: string
  rows: number
  written: number
  summary: SummaryCell[]
  mismatches: number
  results: Omit<ReconciledRow, 'values'>[]
}

export default class Reconcile extends GwCommand<typeof Reconcile> {
  static override summary = 'check your order records against the gateway, row by row'
  static override description = `Reads a CSV with an order number column (mch_order_no, gw_order_no or channel_order_no) and optional channel, total_fee or amount, fee_type and status (paid, unpaid, refunded, closed, or a gateway state), queries every order, and classifies each row: match, amount_mismatch, currency_mismatch, status_mismatch, missing_at_gateway, query_failed or invalid_row. The output CSV is every row with the gateway's state, amounts, channel, time paid, the classification and the detail. The file streams: memory does not grow with its size (except under --json, which holds the rows it prints). Exit 0 when every row matches, 1 when any does not, 2 for an unusable file.`

  static override examples = [
    '<%= config.bin %> reconcile orders-2026-11-20.csv',
    '<%= config.bin %> reconcile export.csv --channel promptpay --only-mismatches --out to-check.csv',
    '<%= config.bin %> reconcile export.csv --concurrency 16 --rate 50 --with-refunds --json',
  ]

  static override args = {file: Args.string({description: 'CSV file of orders', required: true})}
  static override flags = {
    out: Flags.string({description: 'output CSV (default: beside the input, NAME.reconciled.csv)'}),
    'only-mismatches': Flags.boolean({description: 'leave matching rows out of the output'}),
    concurrency: Flags.integer({description: 'queries in flight at once', default: 8, min: 1, max: 64}),
    rate: Flags.integer({description: 'queries started per second at most', min: 1}),
    channel: Flags.string({
      description: 'channel for rows without one (else the local history, else each channel in turn)',
      options: [...ALL_CHANNELS],
    }),
    'with-refunds': Flags.boolean({description: 'also query the refunds of refunded orders for the refunded total'}),
    ...networkFlags,
  }

  async run(): Promise<ReconcileResult> {
    const {flags, args} = this
    const {Reconciler, defaultReconcileOut} = await import('../lib/reconcile/reconcile.js')
    const {startProgress} = await import('../lib/cli/progress.js')
    const out = flags.out ?? defaultReconcileOut(args.file)
    const results: ReconcileResult['results'] = []
    const progress = await startProgress(
      'reconcile',
      undefined,
      process.stderr.isTTY || !this.jsonEnabled(),
      'to look at',
    )
    const reconciler = new Reconciler(this.orders, this.refunds)
    let outcome
    try {
      outcome = await reconciler.run(args.file, {
        concurrency: flags.concurrency,
        rate: flags.rate,
        channel: flags.channel,
        withRefunds: flags['with-refunds'],
        onlyMismatches: flags['only-mismatches'],
        out,
        progress,
        onRow: this.jsonEnabled() ? ({values: _values, ...row}) => results.push(row) : undefined,
      })
    } finally {
      progress.stop()
    }
    const mismatches = outcome.summary.filter((c) => c.classification !== 'match').reduce((n, c) => n + c.rows, 0)
    this.log(
      table(
        ['classification', 'currency', 'rows', 'amount'],
        outcome.summary.map((c) => [
          c.classification,
          c.currency,
          c.rows,
          c.currency === '?' ? '-' : formatAmount(c.amount, c.currency),
        ]),
      ),
    )
    this.log(`${outcome.rows} rows, ${mismatches} need a look; written to ${out}`)
    if (mismatches > 0) this.setExitCode(ExitCode.Refused)
    return {
      file: args.file,
      out,
      rows: outcome.rows,
      written: outcome.written,
      summary: outcome.summary,
      mismatches,
      results,
    }
  }
}
