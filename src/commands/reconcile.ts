import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../lib/cli/base-command.js'
import {batchFlags, fileFlags, statusMapFlag} from '../lib/cli/file-flags.js'
import {networkFlags, zoneFlag} from '../lib/cli/flags.js'
import {type Ended, OUTCOME, outcomeOfSignal} from '../lib/errors.js'
import {ALL_CHANNELS} from '../lib/gateway/protocol/index.js'
import {formOf} from '../lib/io/streams.js'

export default class Reconcile extends GwCommand<typeof Reconcile> {
  static override summary = 'check your order records against the gateway, row by row'
  static override description = `Reads a CSV or .xlsx file with an order number column (mch_order_no, gw_order_no or channel_order_no) and, to compare, an amount (total_fee in minor units or amount as a decimal), a currency (fee_type) and a state (status: paid, unpaid, refunded, refunded_partly, closed, cancelled, the words POS systems write such as Cancelled, Void or Partially refunded and their Thai forms, a gateway state, or your own words with --status-map), and a refund number (mch_refund_no) for orders refunded elsewhere, so a partly refunded order can be told from a fully refunded one. Columns named otherwise are mapped with --column FIELD=HEADER. It says what it compares and from which columns, queries every order, and classifies each row: match, amount_mismatch, currency_mismatch, status_mismatch, missing_at_gateway, query_failed or invalid_row. A file that lets it compare nothing beyond existence is refused unless --existence-only. The output (CSV, or .xlsx when named so) is every line of the file in its place: each row with the gateway's state, amounts, channel, time paid, the classification and the detail, a title or blank line as not_a_row, a totals row as totals with its check. The file streams: memory does not grow with its size, --json included (its results are written as they come). Exit 0 when every row matches, 1 when any does not, 2 for an unusable file.`

  static override examples = [
    '<%= config.bin %> reconcile orders-2026-11-20.csv',
    '<%= config.bin %> reconcile export.xlsx --column mch_order_no="Invoice No" --column amount="Amount (THB)"',
    '<%= config.bin %> reconcile export.csv --encoding windows-874 --only-mismatches --out to-check.xlsx',
    '<%= config.bin %> reconcile export.csv --concurrency 16 --rate 50 --with-refunds --json',
    '<%= config.bin %> reconcile pos-export.csv --status-map "Settled=paid" --status-map "On hold=unpaid"',
  ]

  static override usage = '<%= command.id %> FILE [--out FILE] [--only-mismatches] [--column FIELD=HEADER]... [FLAGS]'
  static override args = {
    file: Args.string({ignoreStdin: true, description: 'CSV or .xlsx file of orders', required: true}),
  }
  static override flags = {
    out: Flags.string({description: 'output, .csv or .xlsx (default: beside the input, NAME.reconciled.csv or .xlsx)'}),
    'only-mismatches': Flags.boolean({description: 'leave matching rows out of the output'}),
    'existence-only': Flags.boolean({
      description: 'accept a file that gives only order numbers: check that they exist',
    }),
    ...fileFlags(),
    ...batchFlags('queries', 8),
    channel: Flags.string({
      description: 'channel for rows without one (else the local history, else each channel in turn)',
      options: [...ALL_CHANNELS],
    }),
    'with-refunds': Flags.boolean({description: 'also query the refunds of refunded orders for the refunded total'}),
    'status-map': statusMapFlag(),
    zone: zoneFlag,
    ...networkFlags,
  }

  async run(): Promise<Ended> {
    const {flags, args} = this
    const [{openForReconcile}, {Reconciler}, {reconcileView, readingNotes, outcomeNotes}, {StatusWords}] =
      await Promise.all([
        import('../lib/reconcile/open.js'),
        import('../lib/reconcile/reconcile.js'),
        import('../lib/render/reconcile.js'),
        import('../lib/orders/status-words.js'),
      ])
    const statuses = new StatusWords(flags['status-map'], {approvals: false})
    const input = await openForReconcile(args.file, {...flags, existenceOnly: flags['existence-only']})
    readingNotes(input).forEach((note) => this.note(note))
    const {orders, refunds} = await this.services()
    // --json: the rows' results as they come, then the outcome (a file of any size, never held).
    const json = this.jsonEnabled() ? await this.startJsonList('results') : undefined
    const work = await this.longWork('reconcile', undefined, 'stopping: finishing the rows in flight', 'to look at')
    const outcome = await new Reconciler(orders, refunds)
      .run(input, {
        ...flags,
        statuses,
        withRefunds: flags['with-refunds'],
        gw_version: this.config.version,
        onlyMismatches: flags['only-mismatches'],
        signal: work.signal,
        onRow: async ({values: _values, typed: _typed, ...row}, written) => {
          work.progress.tick(row.classification !== 'match')
          if (written) await json?.add(row)
        },
      })
      .finally(() => work.done())
    outcomeNotes(outcome, input).forEach((note) => this.note(note))
    const mismatches = outcome.summary.filter((c) => c.classification !== 'match').reduce((n, c) => n + c.rows, 0)
    if (json) await this.endJsonList({...outcome, file: args.file, out: input.out, mismatches})
    else this.log(reconcileView(outcome, mismatches, input.out, formOf(this.io.stdout)))
    return {[OUTCOME]: outcome.stopped ? outcomeOfSignal(work.signal.reason) : mismatches > 0 ? 'refused' : 'done'}
  }
}
