/** Step 5 of a bulk refund: every input row with its columns, plus what became of it; and the summary. */
import {AnnotatedWriter} from '../../files/annotated-output.js'
import {Tally} from '../../files/tally.js'
import {lookupError} from '../../gateway/protocol/index.js'
import type {RefundFile} from './refund-file.js'
import {rowView} from './bulk-result.js'
import {ROW_STATUSES, type RowState, type RowStatus, amountOf} from './rows.js'

const REPORT_COLUMNS = [
  'status',
  'mch_refund_no',
  'gw_refund_no',
  'refund_fee',
  'refund_time',
  'settled_by',
  'err_code',
  'err_msg',
  'advice',
] as const

export interface SummaryLine {
  status: RowStatus
  currency: string
  rows: number
  amount: number
}

export async function writeReport(path: string, file: RefundFile, states: readonly RowState[]): Promise<void> {
  const writer = new AnnotatedWriter(path, file.header, REPORT_COLUMNS)
  try {
    for (const [i, row] of file.rows.entries()) {
      const view = rowView(row, states[i]!)
      const advice = (states[i]!.outcome as {advice?: string}).advice ?? lookupError(view.err_code)?.action
      const earlier = view.made_by ? `refunded earlier by ${view.made_by}` : undefined
      await writer.write(row.values, {...view, advice: advice ?? earlier})
    }
    await writer.close()
  } catch (error) {
    await writer.abort()
    throw error
  }
}

/** Rows and amounts per status and currency. */
export function summarize(file: RefundFile, states: readonly RowState[]): SummaryLine[] {
  const tally = new Tally<RowStatus>()
  file.rows.forEach((row, i) => {
    const {refund_fee, fee_type} = amountOf(row, states[i]!)
    tally.add(states[i]!.outcome.status, fee_type, refund_fee)
  })
  return tally.lines(ROW_STATUSES).map(({group, ...line}) => ({status: group, ...line}))
}
