/**
 * Step 5 of a bulk refund (and the dry run's plan file): every input row with its columns,
 * plus what became of it (or would), line for line with the file (a title, blank or totals line
 * is written where it was, `not_a_row` or `totals`); and the summary.
 */
import {AnnotatedWriter} from '../../files/annotated-output.js'
import {type AuditTrail, summarySheet} from '../../files/audit.js'
import {Tally, type TallyLine} from '../../files/tally.js'
import {decimalMarkOf} from '../../files/table.js'
import {totalsVerdict} from '../../files/totals.js'
import {isCurrency, lookupError} from '../../gateway/protocol/index.js'
import {type RefundFile, reportLines} from './refund-file.js'
import {type SummaryLine, type ViewStatus, VIEW_STATUSES, rowView, viewStatus} from './bulk-result.js'
import {REPORT_COLUMNS, type RowState, amountOf} from './rows.js'

const money = (minor: number | undefined, currency: string | undefined) =>
  minor !== undefined && currency && isCurrency(currency) ? {minor, currency} : undefined

/**
 * Writes the report (or, for a dry run, the plan) of every row and its audit summary (a sheet
 * of a workbook, `.summary.csv` beside a CSV); resolves to where an earlier report at the path
 * was kept.
 */
export async function writeReport(
  path: string,
  file: RefundFile,
  states: readonly RowState[],
  options: {bom?: boolean; dryRun: boolean; trail: AuditTrail},
): Promise<string | undefined> {
  const sheet = options.dryRun ? 'plan' : 'report'
  const writer = await AnnotatedWriter.open(path, file.header, REPORT_COLUMNS, {
    bom: options.bom,
    delimiter: file.source.delimiter,
    decimalMark: decimalMarkOf(file.source),
    sheet,
    keep: true,
    lead: ['status'],
  })
  try {
    for await (const line of reportLines(file)) {
      // Lines that are not rows are written where they were: the report lines up with the file.
      if ('above' in line) await writer.writeAbove(line.above, {status: 'not_a_row'})
      else if ('blank' in line) await writer.write(line.blank, {status: 'not_a_row'})
      else if ('totals' in line) await writer.write(line.cells, {status: 'totals', advice: totalsVerdict(line.totals)})
      else if ('note' in line) await writer.write(line.cells, {status: 'not_a_row', advice: 'a note under the rows'})
      else if ('left' in line)
        await writer.write(line.cells, {status: 'left_out', advice: `${line.left.why}: left out by ${line.left.by}`})
      else {
        const {row, index, cells} = line
        const view = rowView(row, states[index]!, options.dryRun)
        const advice = (states[index]!.outcome as {advice?: string}).advice ?? lookupError(view.err_code)?.action
        const earlier = view.made_by ? `refunded earlier by ${view.made_by}` : undefined
        await writer.write(cells, {
          ...view,
          refund_amount: money(view.refund_fee, view.fee_type),
          advice: advice ?? earlier,
        })
      }
    }
    return await writer.close(
      summarySheet(options.trail, 'status', statusTally(file, states, options.dryRun), {refund_fee: 'amount'}, money),
    )
  } catch (error) {
    await writer.abort()
    throw error
  }
}

/** Rows and amounts per status (every status of the union, in its order) and currency; rows skipped as invalid are counted, not summed. */
function statusTally(
  file: RefundFile,
  states: readonly RowState[],
  dryRun: boolean,
): TallyLine<ViewStatus, 'refund_fee'>[] {
  const tally = new Tally<ViewStatus, 'refund_fee'>()
  file.rows.forEach((row, i) => {
    const state = states[i]!
    const {refund_fee, fee_type} = amountOf(row, state)
    const status = viewStatus(state, dryRun)
    tally.add(status, fee_type, {
      refund_fee: status === 'skipped_invalid' || status === 'left_out' ? undefined : refund_fee,
    })
  })
  return tally.lines(VIEW_STATUSES)
}

/** The summary of --json and the terminal: rows and amounts per status and currency. */
export const summarize = (file: RefundFile, states: readonly RowState[], dryRun: boolean): SummaryLine[] =>
  statusTally(file, states, dryRun).map(({group, ...line}) => ({status: group, ...line}))
