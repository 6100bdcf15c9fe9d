/** Step 5 of a bulk refund: every input row with its columns, plus what became of it; and the summary. */
import {AnnotatedWriter} from '../../files/annotated-output.js'
import {Tally} from '../../files/tally.js'
import {lookupError} from '../../gateway/protocol/index.js'
import type {RefundFile} from './refund-file.js'
import {ROW_STATUSES, type RowState, type RowStatus, amountOf} from './rows.js'

const REPORT_COLUMNS = [
  'status',
  'mch_refund_no',
  'gw_refund_no',
  'refund_fee',
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
      const state = states[i]!
      const facts = state.outcome as {gw_refund_no?: string; err_code?: string; err_msg?: string; advice?: string}
      await writer.write(row.values, {
        status: state.outcome.status,
        mch_refund_no: row.mchRefundNo,
        gw_refund_no: facts.gw_refund_no,
        refund_fee: amountOf(row, state).refund_fee,
        err_code: facts.err_code,
        err_msg: facts.err_msg,
        advice: facts.advice ?? lookupError(facts.err_code)?.action,
      })
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
