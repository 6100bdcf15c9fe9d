/**
 * Step 5 of a bulk refund (and the dry run's plan file): every input row with its columns,
 * plus what became of it (or would), line for line with the file (a title, blank or totals line
 * is written where it was, `not_a_row` or `totals`); and the summary.
 */
import {AnnotatedWriter} from '../../files/annotated-output.js'
import {type AuditTrail, summarySheet} from '../../files/audit.js'
import {Tally, type TallyLine} from '../../files/tally.js'
import {type PreviewLine, PreviewPage} from '../../files/preview.js'
import {type TableLine, type TableRow, decimalMarkOf} from '../../files/table.js'
import {columnLetters} from '../../files/workbook-rows.js'
import {totalsVerdict} from '../../files/totals.js'
import {formatAmount, isCurrency, lookupError} from '../../gateway/protocol/index.js'
import {type RefundFile, reportLines} from './refund-file.js'
import {VIEW_STATUSES, type ViewStatus} from '../refund.js'
import {type SummaryLine, rowView, viewStatus} from './bulk-result.js'
import {REPORT_COLUMNS, type RowState, rowAmount} from './rows.js'

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
  options: {bom?: boolean; dryRun: boolean; trail: AuditTrail; preview?: string},
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
  const about = {file: file.path, sheet: file.source.sheet, sha256: file.sha256}
  const preview = options.preview ? await PreviewPage.open(options.preview, file.header, about) : undefined
  const problems = problemsByLine(file)
  // The amount's column, marked on the preview where gw reads it.
  const show = previewShown(preview, file.header.index.get('refund_amount') ?? file.header.index.get('refund_fee'))
  try {
    for await (const line of reportLines(file)) {
      // Lines that are not rows are written where they were: the report lines up with the file.
      if ('above' in line) {
        await writer.writeAbove(line.above, {status: 'not_a_row'})
        await show(line.above.line, line.above, 'other', 'a title above the header')
      } else if ('blank' in line) await writer.write(line.blank, {status: 'not_a_row'})
      else if ('totals' in line) {
        await writer.write(line.cells, {status: 'totals', advice: totalsVerdict(line.totals)})
        await show(line.totals.line, line.cells, 'other', `a totals row, not sent: ${totalsVerdict(line.totals)}`)
      } else if ('note' in line) {
        await writer.write(line.cells, {status: 'not_a_row', advice: 'a note under the rows'})
        await show(line.note.line, line.cells, 'other', 'a note under the rows, not a row')
      } else if ('left' in line) {
        const why = `${line.left.why}: left out by ${line.left.by}`
        await writer.write(line.cells, {status: 'left_out', advice: why})
        await show(line.left.line, line.cells, 'not_sent', `not sent: ${why}`)
      } else {
        const {row, index, cells} = line
        const view = rowView(row, states[index]!, options.dryRun)
        const advice = (states[index]!.outcome as {advice?: string}).advice ?? lookupError(view.err_code)?.action
        const earlier = view.made_by ? `refunded earlier by ${view.made_by}` : undefined
        await writer.write(cells, {
          ...view,
          refund_amount: money(view.refund_fee, view.fee_type),
          advice: advice ?? earlier,
        })
        const amount = formatAmount(view.refund_fee, view.fee_type)
        const sent = view.status === 'would_refund'
        const why = problems.get(row.line)?.join('; ') ?? view.err_msg ?? advice ?? earlier ?? ''
        await show(
          row.line,
          cells,
          sent ? 'sent' : 'not_sent',
          sent ? `would refund ${amount}` : `${view.status}${why ? `: ${why}` : ''}`,
          sent ? amount : undefined,
        )
      }
    }
    await preview?.close(
      hiddenThings(file),
      file.comments.map((c) => `line ${c.line}, cell ${c.cell}: "${c.text}": ${c.did}`),
    )
    return await writer.close(
      summarySheet(options.trail, 'status', statusTally(file, states, options.dryRun), {refund_fee: 'amount'}, money),
    )
  } catch (error) {
    await preview?.abort()
    await writer.abort()
    throw error
  }
}

/**
 * How a line of the file is shown on the --preview page (none without one): a hidden row listed
 * with what became of it, any other with its cells, what gw said of it and, for a row it would
 * send, the amount marked in the amount's column.
 */
function previewShown(preview: PreviewPage | undefined, amountColumn: number | undefined) {
  return async (line: number, cells: TableRow | TableLine, kind: PreviewLine['kind'], said: string, send?: string) => {
    if (!preview) return
    if ('hidden' in cells && cells.hidden)
      preview.hiddenRow(line, `${cells.hidden}: ${kind === 'sent' ? said : 'not sent'}`)
    else
      await preview.write({
        line,
        cells: cells.values,
        kind,
        said,
        ...(send ? {send: {text: send, column: amountColumn}} : {}),
      })
  }
}

/** The file's problems by line, for the preview's rows. */
function problemsByLine(file: RefundFile): Map<number, string[]> {
  const by = new Map<number, string[]>()
  for (const {line, message} of file.problems) by.set(line, [...(by.get(line) ?? []), message])
  return by
}

/** What the sheet hides beside its rows, in words: its columns, the conditional formats gw cannot evaluate, cells partly struck. */
function hiddenThings(file: RefundFile): string[] {
  const {header, source} = file
  return [
    ...[...header.hidden].map(
      ([at, why]) => `column ${columnLetters(at)} (${header.names[at] ?? ''}) is ${why}: not shown, not read`,
    ),
    ...(source.unevaluated ?? []).map((rule) => `${rule}, which gw cannot evaluate`),
    ...(source.partlyStruck ?? []).map((cell) => `cell ${cell} is partly struck through`),
  ]
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
    const {refund_fee, fee_type} = rowAmount(row, state)
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
