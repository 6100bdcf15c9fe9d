/**
 * Step 1 of a bulk refund: the whole file is read and checked before anything is sent.
 * Every problem names its line; a row with problems is kept (to be reported, never sent).
 * Field lengths come from the protocol's table of the refund operation.
 */
import {
  AmountError,
  CHANNELS_BY_OPERATION,
  CURRENCIES,
  ORDER_NUMBER_FIELDS,
  type Amount,
  fieldMax,
  isCurrency,
  parseDecimal,
  parseMinorUnits,
  toMinorUnits,
} from '../../gateway/protocol/index.js'
import {columnHints} from '../../files/columns.js'
import {
  type ReadOptions,
  type TableHeader,
  type TableRow,
  type TableSource,
  missingOrderColumn,
  openTable,
  orderColumnOf,
  orderNumbersOf,
  rowProblems,
} from '../../files/table.js'
import {orderKey} from '../../orders/reference.js'
import {quoted} from '../../untrusted.js'
import type {Problem, RefundRow} from './rows.js'

/** The fields a refund file gives. */
const FIELDS = [
  ...ORDER_NUMBER_FIELDS,
  'refund_fee',
  'refund_amount',
  'fee_type',
  'channel',
  'total_fee',
  'mch_refund_no',
  'attach',
]

export interface RefundFile {
  source: TableSource
  header: TableHeader
  /** Ignored columns that look like a field, with the --column that would read them. */
  hints: string[]
  rows: RefundRow[]
  problems: Problem[]
  /** The check stopped after MAX_PROBLEMS problems: the rest of the file was not read. */
  truncated?: boolean
}

/** Problems listed before the check stops reading: a file this broken is to be fixed first, not sent. */
const MAX_PROBLEMS = 1000

const CHECKED_LENGTHS = [...ORDER_NUMBER_FIELDS, 'mch_refund_no', 'attach'] as const

/** Problems of the header that make every row unreadable. */
function headerProblems(header: TableHeader, source: TableSource, hints: string[]): Problem[] {
  const problems: Problem[] = []
  const noOrderColumn = missingOrderColumn({header, source}, FIELDS)
  if (noOrderColumn) problems.push({line: 1, message: noOrderColumn})
  if (!header.index.has('refund_fee') && !header.index.has('refund_amount')) {
    const hint = hints.find((h) => h.includes('refund_amount'))
    problems.push({
      line: 1,
      message: `no amount column: the header needs refund_fee (minor units, e.g. 5000) or refund_amount (decimal, e.g. 50.00); name yours with ${hint ? hint.slice(hint.indexOf('--column')) : '--column refund_amount="Your header"'}`,
    })
  }
  return problems
}

/** The amount a row asks for, or the problem with it. */
function rowAmount(row: TableRow, feeType: string | undefined): Amount | string {
  const feeText = row.get('refund_fee')
  const amountText = row.get('refund_amount')
  if (feeText && amountText) return 'both refund_fee and refund_amount are filled; give one'
  if (feeText) {
    let minor: number
    try {
      minor = parseMinorUnits(feeText)
    } catch (error) {
      return `refund_fee: ${(error as AmountError).message}`
    }
    return minor === 0 ? 'refund_fee is zero; a refund must be above zero' : {minor}
  }
  if (!amountText) return 'no amount: fill refund_fee or refund_amount'
  let decimal
  try {
    decimal = parseDecimal(amountText)
  } catch {
    return `refund_amount ${quoted(amountText)} is not an amount; write it like 50.00 (no sign, no thousands separators)`
  }
  if (BigInt(decimal.whole) === 0n && !decimal.fraction) return 'refund_amount is zero; a refund must be above zero'
  if (feeType && isCurrency(feeType)) {
    try {
      toMinorUnits(amountText, feeType)
    } catch (error) {
      return `refund_amount: ${(error as AmountError).message}`
    }
  }
  return {decimal: amountText}
}

/** Reads one row; its refund number is the one given, or is derived once its order is known (plan). */
function readRefundRow(row: TableRow): {row: RefundRow; problems: string[]} {
  const problems: string[] = rowProblems(row)
  const column = orderColumnOf(row)
  if (!column) problems.push(`no order number: fill one of ${ORDER_NUMBER_FIELDS.filter((c) => row.has(c)).join(', ')}`)
  for (const name of CHECKED_LENGTHS) {
    const length = [...row.get(name)].length
    const max = fieldMax('order_refund', name)
    if (length > max) problems.push(`${name} is ${length} characters; at most ${max} are allowed`)
  }
  const feeType = row.get('fee_type').toUpperCase() || undefined
  if (feeType && !isCurrency(feeType)) {
    problems.push(
      `fee_type ${quoted(row.get('fee_type'))} is not a currency the gateway takes (${CURRENCIES.join(', ')})`,
    )
  }
  const channel = row.get('channel').toLowerCase() || undefined
  const refundChannels = CHANNELS_BY_OPERATION.order_refund
  if (channel && !refundChannels.includes(channel)) {
    problems.push(
      `channel ${quoted(channel)} cannot be refunded through the API; refunds take ${refundChannels.join(', ')}`,
    )
  }
  let totalFee: number | undefined
  if (row.get('total_fee')) {
    try {
      totalFee = parseMinorUnits(row.get('total_fee'))
    } catch (error) {
      problems.push(`total_fee: ${(error as Error).message}`)
    }
  }
  const amount = rowAmount(row, feeType)
  if (typeof amount === 'string') problems.push(amount)
  const given = row.get('mch_refund_no')
  if (problems.length || !column || typeof amount === 'string') {
    return {
      row: {
        line: row.line,
        values: row.values,
        typed: row.typed,
        order: column ? row.get(column) : '',
        mchRefundNo: given,
      },
      problems,
    }
  }
  const ref = {[column]: row.get(column)}
  const request = {
    ref,
    numbers: orderNumbersOf(row),
    orderKey: orderKey(ref),
    amount,
    feeType,
    totalFee,
    channel,
    attach: row.get('attach') || undefined,
  }
  const {line, values, typed} = row
  return {row: {line, values, typed, order: ref[column]!, mchRefundNo: given, request}, problems}
}

/** Reads and checks the whole file. Nothing is sent here. */
export async function readRefundFile(path: string, options: Omit<ReadOptions, 'fields'> = {}): Promise<RefundFile> {
  const {source, header, rows: records} = await openTable(path, {...options, fields: FIELDS})
  const hints = columnHints(header, FIELDS, [[...ORDER_NUMBER_FIELDS], ['refund_fee', 'refund_amount']])
  const problems = headerProblems(header, source, hints)
  const rows: RefundRow[] = []
  const file = (truncated?: boolean): RefundFile => ({source, header, hints, rows, problems, truncated})
  if (problems.length) return file()
  const givenNumbers = new Map<string, number>()
  for await (const item of records) {
    const read = readRefundRow(item)
    const line = item.line
    problems.push(...read.problems.map((message) => ({line, message})))
    const given = item.get('mch_refund_no')
    if (given && read.row.request) {
      const first = givenNumbers.get(given)
      if (first === undefined) givenNumbers.set(given, line)
      else {
        const message = `mch_refund_no ${given} is used again (first on line ${first}); each refund number may be used once`
        problems.push({line, message})
      }
    }
    rows.push(read.row)
    if (problems.length >= MAX_PROBLEMS) {
      problems.push({line, message: `the check stopped here, after ${MAX_PROBLEMS} problems; fix these first`})
      await records.return(undefined)
      return file(true)
    }
  }
  return file()
}
