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
  formatAmount,
  minorUnitsOf,
  isCurrency,
  parseMinorUnits,
  toMinorUnits,
} from '../../gateway/protocol/index.js'
import {amountOfField, minorUnitsOfField} from '../../files/amount-cell.js'
import {columnHints} from '../../files/columns.js'
import {type TotalsRow, TotalsRows} from '../../files/totals.js'
import {
  type ReadOptions,
  type TableHeader,
  type TableRow,
  type TableSource,
  missingOrderColumn,
  type TableLine,
  linesOf,
  openTable,
} from '../../files/table.js'
import {
  DroppedZeros,
  mergedNote,
  orderColumnOf,
  orderNumbersOf,
  rowProblems,
  unresolvedFormulas,
} from '../../files/row-checks.js'
import {fileSha256, fileStamp} from '../../io/file-version.js'
import {shellWord, usageError} from '../../errors.js'
import {StatusWords} from '../../orders/status-words.js'
import {fileShown, quoted, shown} from '../../untrusted.js'
import type {OrderNumberField, OrderReference} from '../../orders/reference.js'
import {REFUND_LIST_COLUMNS} from '../list.js'
import {type LeftOut, type Problem, REPORT_COLUMNS, type RefundRow, type RowRequest} from './rows.js'

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
  'sale_status',
]

/** The headers a sale's status is found under without --column (any case): the file's own words of the sale. */
const STATUS_HEADERS = [
  'status',
  'state',
  'order status',
  'payment status',
  'transaction status',
  'sale status',
  'สถานะ',
]

export interface RefundFile {
  /** The file, and how it was read: the report reads its rows' cells again (rows are not held with them). */
  path: string
  read: ReadOptions
  /** The version read: its SHA-256, and its stamp (files/table's fileStamp). */
  sha256: string
  stamp: string
  source: TableSource
  header: TableHeader
  /** Ignored columns that look like a field, with the --column that would read them. */
  hints: string[]
  rows: RefundRow[]
  problems: Problem[]
  /** The check stopped after MAX_PROBLEMS problems: the rest of the file was not read. */
  truncated?: boolean
  /** Totals rows: reported, never sent. */
  totals: TotalsRow[]
  /**
   * The file is gw's own earlier report (or refund list): the lines it says failed or were not
   * sent, with the status it gives them. Run again, a report re-checks: those are not sent unless asked.
   */
  unsentBefore?: ReadonlyMap<number, string>
  /** Rows the sheet does not show, left out by --only-visible: reported, never sent. */
  left: LeftOut[]
  /** The longest cell of the file's rows (a workbook report holds 32,767 characters a cell). */
  longest: number
}

/** What an earlier report of gw's says of a row that was not refunded, nor may have been. */
const UNSENT_STATUSES = new Set(['failed', 'pending', 'held', 'skipped_invalid', 'left_out'])

/** Problems listed before the check stops reading: a file this broken is to be fixed first, not sent. */
const MAX_PROBLEMS = 1000

const AMOUNT_FIELDS = ['refund_amount', 'refund_fee']

const CHECKED_LENGTHS = [...ORDER_NUMBER_FIELDS, 'mch_refund_no', 'attach'] as const

/** Problems of the header that make every row unreadable. */
function headerProblems(header: TableHeader, source: TableSource, hints: string[]): Problem[] {
  const problems: Problem[] = []
  const noOrderColumn = missingOrderColumn({header, source}, FIELDS)
  const line = header.line ?? 1
  if (noOrderColumn) problems.push({line, message: noOrderColumn})
  if (!header.index.has('refund_fee') && !header.index.has('refund_amount')) {
    const hint = hints.find((h) => h.includes('refund_amount'))
    problems.push({
      line,
      message: `no amount column: the header needs refund_fee (minor units, e.g. 5000) or refund_amount (decimal, e.g. 50.00); name yours with ${hint ? hint.slice(hint.indexOf('--column')) : '--column refund_amount="Your header"'}`,
    })
  }
  return problems
}

type RowAmount = {amount: Amount; currency?: string}

/** The amount one field of a row asks for (and the currency its text names), or the problem with it. A negative is never turned positive. */
function fieldAmount(
  row: TableRow,
  field: 'refund_fee' | 'refund_amount',
  feeType: string | undefined,
): RowAmount | string {
  let read
  try {
    read = field === 'refund_fee' ? minorUnitsOfField(row, field) : amountOfField(row, field, feeType)
  } catch (error) {
    if (error instanceof AmountError) return `${field}: ${error.message}`
    throw error
  }
  const said = quoted(row.get(field))
  if (read.negative) return `${field} ${said} is negative; a refund must be above zero (it is never read as positive)`
  if (!/[1-9]/.test(read.decimal)) return `${field} is zero; a refund must be above zero`
  if (field === 'refund_fee') {
    const minor = Number(read.decimal)
    return Number.isSafeInteger(minor) ? {amount: {minor}} : `refund_fee: ${said} is too large`
  }
  const currency = feeType ?? read.currency
  if (currency && isCurrency(currency)) {
    try {
      toMinorUnits(read.decimal, currency, row.note(field) ? read.decimal : row.get(field))
    } catch (error) {
      return `refund_amount: ${(error as AmountError).message}`
    }
  }
  return {amount: {decimal: read.decimal}, currency: read.currency}
}

/**
 * The amount a row asks for, or the problem with it. Both forms filled (gw's own report fed
 * back in gives both) are one amount when they agree in the row's currency.
 */
function rowAmount(row: TableRow, feeType: string | undefined): RowAmount | string {
  const filled = (field: string) => row.get(field) !== '' || row.note(field) !== undefined
  if (!filled('refund_fee') && !filled('refund_amount'))
    return `no amount: fill refund_fee or refund_amount${mergedNote(row, AMOUNT_FIELDS)}`
  if (!filled('refund_amount')) return fieldAmount(row, 'refund_fee', feeType)
  const decimal = fieldAmount(row, 'refund_amount', feeType)
  if (!filled('refund_fee') || typeof decimal === 'string') return decimal
  const minor = fieldAmount(row, 'refund_fee', feeType)
  if (typeof minor === 'string') return minor
  const currency = feeType ?? decimal.currency
  const both = `both refund_fee (${quoted(row.get('refund_fee'))}) and refund_amount (${quoted(row.get('refund_amount'))}) are filled`
  if (!currency || !isCurrency(currency))
    return `${both}, and no fee_type says their currency; give one, or fill fee_type`
  const asMinor = minorUnitsOf(decimal.amount, currency)
  if (asMinor !== minorUnitsOf(minor.amount, currency))
    return `${both} and disagree: ${formatAmount(asMinor, currency)} is ${asMinor} in minor units; give one`
  return {...minor, currency: decimal.currency}
}

/** The constant of `known` that `text` is (else `text` itself); undefined when empty. */
const interned = (known: readonly string[], text: string) => known.find((k) => k === text) ?? (text || undefined)

/** Reads one row; its refund number is the one given, or is derived once its order is known (plan). */
function readRefundRow(row: TableRow, statuses: StatusWords): {row: RefundRow; problems: string[]} {
  const unresolved = unresolvedFormulas(row)
  if (unresolved) return {row: new FileRow(row.line, '', ''), problems: [unresolved]}
  const problems: string[] = rowProblems(row)
  const column = orderColumnOf(row)
  const status = row.get('sale_status')
  const notStanding = status ? statuses.notStanding(status) : undefined
  if (notStanding)
    problems.push(
      `its status ${quoted(status)} says the sale did not stand (${notStanding}): such a row is never refunded; remove it, or say what the word means with --status-map ${shellWord(shown(`${status}=paid`, 60))}`,
    )
  const unseen = row.hidden ?? row.struck
  if (unseen)
    problems.push(
      `${unseen} in the sheet: such a row is never refunded silently; --only-visible leaves these rows out, --include-hidden refunds them too`,
    )
  if (!column)
    problems.push(
      `no order number: fill one of ${ORDER_NUMBER_FIELDS.filter((c) => row.has(c)).join(', ')}${mergedNote(row, ORDER_NUMBER_FIELDS)}`,
    )
  for (const name of CHECKED_LENGTHS) {
    const length = [...row.get(name)].length
    const max = fieldMax('order_refund', name)
    if (length > max) problems.push(`${name} is ${length} characters; at most ${max} are allowed`)
  }
  // The currency and channel as gw's own constants: one string for every row that names them.
  const feeType = interned(CURRENCIES, row.get('fee_type').toUpperCase())
  if (feeType && !isCurrency(feeType)) {
    problems.push(
      `fee_type ${quoted(row.get('fee_type'))} is not a currency the gateway takes (${CURRENCIES.join(', ')})`,
    )
  }
  const refundChannels = CHANNELS_BY_OPERATION.order_refund
  const channel = interned(refundChannels, row.get('channel').toLowerCase())
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
  const read = rowAmount(row, feeType)
  if (typeof read === 'string') problems.push(read)
  const given = row.get('mch_refund_no')
  // The currency the row names, said in the summary even when the row cannot be sent.
  const currency = [feeType, typeof read === 'string' ? undefined : read.currency].find((c) => c && isCurrency(c))
  if (problems.length || !column || typeof read === 'string') {
    return {row: new FileRow(row.line, column ? row.get(column) : '', given, currency), problems}
  }
  const numbers = orderNumbersOf(row)
  const request = {
    column,
    // Only when the row names its order more than once (the others must be the same order's).
    numbers: Object.keys(numbers).length > 1 ? numbers : undefined,
    amount: 'minor' in read.amount ? read.amount.minor : read.amount.decimal,
    totalFee,
    channel,
    attach: row.get('attach') || undefined,
  }
  return {row: new FileRow(row.line, row.get(column), given, feeType ?? read.currency, request), problems}
}

/** What a usable row asks for beside its currency, held flat (its RowRequest is made when asked). */
interface FlatRequest {
  column: OrderNumberField
  numbers?: OrderReference
  /** Minor units, or the decimal as written. */
  amount: number | string
  totalFee?: number
  channel?: string
  attach?: string
}

/**
 * A row as read: one small object per row, its request made each time it is asked for. A
 * million rows held as nested objects (the row, its request, its order reference, its amount)
 * took four times the memory.
 */
class FileRow implements RefundRow {
  readonly #column?: OrderNumberField
  readonly #numbers?: OrderReference
  readonly #amount?: number | string
  readonly #totalFee?: number
  readonly #channel?: string
  readonly #attach?: string

  constructor(
    readonly line: number,
    readonly order: string,
    readonly mchRefundNo: string,
    readonly feeType?: string,
    request?: FlatRequest,
  ) {
    this.#column = request?.column
    this.#numbers = request?.numbers
    this.#amount = request?.amount
    this.#totalFee = request?.totalFee
    this.#channel = request?.channel
    this.#attach = request?.attach
  }

  get request(): RowRequest | undefined {
    if (!this.#column) return undefined
    const ref = {[this.#column]: this.order}
    const amount = typeof this.#amount === 'number' ? {minor: this.#amount} : {decimal: this.#amount!}
    return {
      ref,
      numbers: this.#numbers ?? ref,
      amount,
      feeType: this.feeType,
      totalFee: this.#totalFee,
      channel: this.#channel,
      attach: this.#attach,
    }
  }
}

/**
 * Reads and checks the whole file, and the version read: its SHA-256 (the journal's and the
 * report's identity of it) and its stamp, the same before the reading and after the hashing,
 * so the hash is of the bytes read. A file changed meanwhile is refused. Nothing is sent here.
 */
export async function readRefundFile(path: string, options: RefundFileOptions = {}): Promise<RefundFile> {
  const stamp = fileStamp(path)
  const file = await readRows(path, options)
  const sha256 = await fileSha256(path)
  if (stamp === undefined || fileStamp(path) !== stamp)
    throw usageError(
      `${fileShown(path)} changed while gw was reading it; nothing was sent.`,
      'Save and close it, then run the same command again.',
    )
  return {...file, sha256, stamp}
}

/** How to read a refund file: as any table, and --only-visible (rows the sheet does not show are left out). */
type RefundFileOptions = Omit<ReadOptions, 'fields'> & {'only-visible'?: boolean; 'status-map'?: readonly string[]}

async function readRows(path: string, options: RefundFileOptions): Promise<Omit<RefundFile, 'sha256' | 'stamp'>> {
  // gw's own report and refund list are files it reads back: their status and the gateway's columns are not read.
  const outputs = [REPORT_COLUMNS, REFUND_LIST_COLUMNS]
  const statuses = new StatusWords(options['status-map'])
  const aliases = {sale_status: STATUS_HEADERS}
  const required = [ORDER_NUMBER_FIELDS, AMOUNT_FIELDS]
  const read = {...options, fields: FIELDS, required, outputs, amounts: AMOUNT_FIELDS, aliases}
  const {source, header, rows: records} = await openTable(path, read)
  const hints = columnHints(header, FIELDS, [[...ORDER_NUMBER_FIELDS], ['refund_fee', 'refund_amount']])
  const problems = headerProblems(header, source, hints)
  const rows: RefundRow[] = []
  const totals = new TotalsRows(AMOUNT_FIELDS)
  // The status gw's earlier output gave each row, where the file is one (the longest gw_…status, as gwColumnsOf names it).
  const statusAt = header.gwColumns.find((at) => /^(gw_)*status$/.test(header.keys[at]!))
  const unsentBefore = statusAt === undefined ? undefined : new Map<number, string>()
  const left: LeftOut[] = []
  const dropped = new DroppedZeros()
  let longest = 0
  const file = (truncated?: boolean) => ({
    path,
    read,
    source,
    header,
    hints,
    rows,
    problems,
    truncated,
    totals: totals.found,
    unsentBefore,
    left,
    longest,
  })
  if (problems.length) return file()
  const givenNumbers = new Map<string, number>()
  for await (const item of records) {
    for (const value of item.values) if (value.length > longest) longest = value.length
    if (totals.take(item)) continue
    const unseen = item.hidden ?? item.struck
    if (unseen && options['only-visible']) {
      left.push({line: item.line, why: unseen})
      continue
    }
    const read = readRefundRow(item, statuses)
    const line = item.line
    const before = statusAt === undefined ? undefined : item.values[statusAt]?.trim()
    if (before && UNSENT_STATUSES.has(before)) unsentBefore!.set(line, before)
    problems.push(...read.problems.map((message) => ({line, message})))
    const zeros = read.row.order ? dropped.see(line, read.row.order) : undefined
    if (zeros) problems.push({line, message: zeros})
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
  // Rows before the first zero-padded order number, shorter than it: said now it is known.
  for (const [line, message] of dropped.earlier()) problems.push({line, message})
  return file()
}

/** A line of the file as its report writes it: a row with what became of it, a totals row, or a line that is not a row. */
export type ReportLine =
  | {row: RefundRow; index: number; cells: Pick<TableRow, 'values' | 'typed'>}
  | {totals: TotalsRow; cells: Pick<TableRow, 'values' | 'typed'>}
  | {left: LeftOut; cells: Pick<TableRow, 'values' | 'typed'>}
  | {above: TableLine}
  | {blank: TableLine}

/**
 * Every line of the file, read again in its order for the report, each row with the row it
 * belongs to and each totals row with its check. The file must be the version planned: the same
 * SHA-256 and stamp before the reading, the same stamp after it (checked before the report is
 * put in place), and each row found again on its line. A check stopped early (too many problems)
 * ends where it stopped.
 */
export async function* reportLines(file: RefundFile): AsyncGenerator<ReportLine> {
  const changed = (why = '') =>
    new Error(
      `${fileShown(file.path)} changed while gw was running${why}: the report would not be the file planned. Every refund is in the journal: put the file back as it was planned (SHA-256 ${file.sha256}) and run the same command to write the report`,
    )
  const unchanged = () => fileStamp(file.path) === file.stamp
  if (!unchanged() || (await fileSha256(file.path)) !== file.sha256) throw changed()
  const table = await openTable(file.path, file.read)
  const totals = new Map(file.totals.map((t) => [t.line, t]))
  const left = new Map(file.left.map((l) => [l.line, l]))
  const last = Math.max(file.rows.at(-1)?.line ?? 0, file.totals.at(-1)?.line ?? 0, file.left.at(-1)?.line ?? 0)
  const lines = linesOf(table)
  try {
    let index = 0
    for await (const line of lines) {
      if (!('row' in line)) {
        if ('above' in line || line.blank.line < last) yield line
        continue
      }
      const {row: cells} = line
      if (cells.line > last) break
      const total = totals.get(cells.line)
      const leftOut = left.get(cells.line)
      const row = file.rows[index]
      if (total) yield {totals: total, cells}
      else if (leftOut) yield {left: leftOut, cells}
      else if (row?.line === cells.line) yield {row, index: index++, cells}
      else throw changed(` (line ${row?.line ?? cells.line} is not there)`)
    }
    if (index < file.rows.length) throw changed(` (line ${file.rows[index]!.line} is not there)`)
  } finally {
    await lines.return(undefined)
    await table.rows.return(undefined)
  }
  if (!unchanged()) throw changed()
}
