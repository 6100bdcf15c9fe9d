/**
 * Step 1 of a bulk refund: the whole file is read and checked before anything is sent.
 * Every problem names its line; a row with problems is kept (to be reported, never sent).
 */
import {columnHints} from '../../files/columns.js'
import {type NoteLine, NotesUnder} from '../../files/notes.js'
import {type TotalsRow, TotalsRows} from '../../files/totals.js'
import {
  type ReadOptions,
  type SheetComment,
  type TableHeader,
  type TableRow,
  type TableSource,
  type TableLine,
  amountHeaders,
  linesOf,
  openTable,
} from '../../files/table.js'
import {LinesDigest} from '../../files/lines-digest.js'
import {DroppedZeros} from '../../files/row-checks.js'
import {fileSha256, fileStamp} from '../../io/file-version.js'
import {usageError} from '../../errors.js'
import {ORDER_NUMBER_FIELDS} from '../../gateway/protocol/index.js'
import {StatusWords} from '../../orders/status-words.js'
import {fileShown, quoted} from '../../untrusted.js'
import {REFUND_LIST_COLUMNS} from '../list.js'
import {AMOUNT_FIELDS, ANY_OF, APPROVAL_HEADERS, FIELDS, STATUS_HEADERS, headerProblems} from './refund-columns.js'
import {type LeftOut, type Problem, REPORT_COLUMNS, type RefundRow} from './rows.js'
import {type CommentRead, RowsTaken} from './rows-taken.js'
import {readRefundRow} from './row-reading.js'

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
  /** Notes under the rows, after a blank line: reported as they are, never sent. */
  notes: NoteLine[]
  /**
   * The file is gw's own earlier report (or refund list): the lines it says failed or were not
   * sent, with the status it gives them. Run again, a report re-checks: those are not sent unless asked.
   */
  unsentBefore?: ReadonlyMap<number, string>
  /** Rows the sheet does not show, left out by --only-visible: reported, never sent. */
  left: LeftOut[]
  /** The longest cell of the file's rows (a workbook report holds 32,767 characters a cell). */
  longest: number
  /** What gw read of the file, line by line (its header and every line under it): a file that only grows keeps the digest of its first lines. */
  digest: {line: number; sha256: string}
  /** The comments read on the cells of its rows (the first thousand), what each did, and how many there were. */
  comments: CommentRead[]
  commentCount: number
  /** The rows a note or a comment holds back, by line, with why: shown held in the plan. */
  held: ReadonlyMap<number, string>
  /** Columns gw does not read by name whose words it acted on (approvals by what they hold, notes that held rows back). */
  wordColumns: string[]
}

/** What an earlier report of gw's says of a row that was not refunded, nor may have been. */
const UNSENT_STATUSES = new Set(['failed', 'pending', 'held', 'skipped_invalid', 'left_out'])

/** Problems listed before the check stops reading: a file this broken is to be fixed first, not sent. */
const MAX_PROBLEMS = 1000

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

/** How to read a refund file: as any table, --only-visible (rows the sheet does not show are left out), the rows to take (--where, --status-map). */
type RefundFileOptions = Omit<ReadOptions, 'fields'> & {
  'only-visible'?: boolean
  'status-map'?: readonly string[]
  where?: readonly string[]
}

async function readRows(path: string, options: RefundFileOptions): Promise<Omit<RefundFile, 'sha256' | 'stamp'>> {
  const statuses = new StatusWords(options['status-map'])
  const {read, source, header, records, hints, problems} = await openRefundTable(path, options)
  const rows: RefundRow[] = []
  const totals = new TotalsRows(AMOUNT_FIELDS)
  const notes = new NotesUnder(AMOUNT_FIELDS, ORDER_NUMBER_FIELDS)
  // The status gw's earlier output gave each row, where the file is one (the longest gw_…status, as gwColumnsOf names it).
  const statusAt = header.gwColumns.find((at) => /^(gw_)*status$/.test(header.keys[at]!))
  const unsentBefore = statusAt === undefined ? undefined : new Map<number, string>()
  const left: LeftOut[] = []
  const dropped = new DroppedZeros()
  const given = new GivenRefundNumbers()
  const digest = new LinesDigest()
  digest.add(header.line ?? 1, header.names)
  let longest = 0
  const taken = new RowsTaken(header, statuses, options.where)
  const looseRead: CommentRead[] = []
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
    notes: notes.found,
    unsentBefore,
    left,
    longest,
    digest: digest.value(),
    comments: [...looseRead, ...taken.comments].sort((a, b) => a.line - b.line),
    commentCount: looseRead.length + taken.commentCount,
    held: taken.held,
    wordColumns: taken.wordColumns(),
  })
  // Rows are read unless the header has no order or no amount column to read them by (a scale or
  // a currency the header says is a problem of the file, and its rows' problems are said too).
  const readable =
    ORDER_NUMBER_FIELDS.some((f) => header.index.has(f)) && AMOUNT_FIELDS.some((f) => header.index.has(f))
  if (problems.length && !readable) return file()
  const loose = (source.looseComments ??= []) // and the comments of totals rows and notes: the file's, as a title's
  const {currencies} = amountHeaders({header, source}, AMOUNT_FIELDS)
  for await (const item of records) {
    digest.add(item.line, item.values)
    for (const value of item.values) if (value.length > longest) longest = value.length
    if (totals.take(item) || notes.take(item)) {
      loose.push(...(item.comments ?? []))
      continue
    }
    const line = item.line
    const taking = takenOrLeft(item, taken, options['only-visible'])
    if ('left' in taking) {
      left.push(taking.left)
      continue
    }
    const read = readRefundRow(item, statuses, currencies)
    if (taking.problem) read.problems.push(taking.problem)
    const before = statusAt === undefined ? undefined : item.values[statusAt]?.trim()
    if (before && UNSENT_STATUSES.has(before)) unsentBefore!.set(line, before)
    problems.push(...read.problems.map((message) => ({line, message})))
    const zeros = read.row.order ? dropped.see(line, read.row.order) : undefined
    if (zeros) problems.push({line, message: zeros})
    const again = read.row.request ? given.see(line, item.get('mch_refund_no')) : undefined
    if (again) problems.push({line, message: again})
    rows.push(read.row)
    if (problems.length >= MAX_PROBLEMS) {
      problems.push({line, message: `the check stopped here, after ${MAX_PROBLEMS} problems; fix these first`})
      await records.return(undefined)
      return file(true)
    }
  }
  // Rows before the first zero-padded order number, shorter than it: said now it is known.
  for (const [line, message] of dropped.earlier()) problems.push({line, message})
  for (const message of taken.problems()) problems.push({line: header.line ?? 1, message, file: true})
  for (const problem of fileHolds(statuses, [...(source.titles ?? []), ...notes.found], loose, looseRead))
    problems.push(problem)
  return file()
}

/**
 * A title above the header or a note under the rows that tells a person not to refund ("DRAFT -
 * DO NOT REFUND YET") holds the whole file back, as a note beside a row holds its row; so does a
 * comment on a cell of no row (a title, the header, a totals row): each a problem of its line.
 * `read`: each such comment with what it did.
 */
function fileHolds(
  statuses: StatusWords,
  lines: readonly NoteLine[],
  comments: readonly SheetComment[],
  read: CommentRead[],
): Problem[] {
  const problems: Problem[] = []
  for (const {line, text} of lines) {
    const held = statuses.holdsBack(text)
    if (held)
      problems.push({
        line,
        file: true,
        message: `${quoted(text)} says not to refund (${quoted(held)}): gw refunds none of the file unasked; take the line out of the file once the refunds it speaks of are to be made`,
      })
  }
  for (const comment of comments) {
    const held = statuses.holdsBack(comment.text)
    read.push({...comment, did: held ? 'holds the file back' : 'says nothing of refunding'})
    if (held)
      problems.push({
        line: comment.line,
        file: true,
        message: `the comment on ${comment.cell} says not to refund (${quoted(held)}): ${quoted(comment.text)}; gw refunds none of the file unasked; delete the comment once the refunds it speaks of are to be made`,
      })
  }
  return problems
}

/** The file opened as a refund file, and what its header alone says: its problems, and the columns ignored that look like a field. */
async function openRefundTable(path: string, options: RefundFileOptions) {
  // gw's own report and refund list are files it reads back: their status and the gateway's columns are not read.
  const outputs = [REPORT_COLUMNS, REFUND_LIST_COLUMNS]
  const aliases = {sale_status: STATUS_HEADERS, approval: APPROVAL_HEADERS}
  const required = [ORDER_NUMBER_FIELDS, AMOUNT_FIELDS]
  const read = {...options, fields: FIELDS, required, outputs, amounts: AMOUNT_FIELDS, aliases}
  const {source, header, rows: records} = await openTable(path, read)
  const hints = columnHints(header, FIELDS, ANY_OF)
  const problems: Problem[] = headerProblems(header, source, hints)
  return {read, source, header, records, hints, problems}
}

/**
 * Whether a row is taken (with the problem its words make, if any) or left out, and by what: the
 * sheet does not show it (--only-visible), --where leaves it out, or --status-map does. A row the
 * sheet hides or strikes, when taken, is a problem of its own: its words are not counted.
 */
function takenOrLeft(row: TableRow, taken: RowsTaken, onlyVisible?: boolean): {left: LeftOut} | {problem?: string} {
  const line = row.line
  const unseen = row.hidden ?? row.struck
  if (unseen && onlyVisible) return {left: {line, why: unseen, by: '--only-visible'}}
  const notTaken = taken.leftOut(row)
  if (notTaken) return {left: {line, why: notTaken, by: '--where'}}
  const judged = unseen ? {} : taken.judge(row)
  if (judged.left) return {left: {line, why: judged.left, by: '--status-map'}}
  return {problem: judged.problem}
}

/** The refund numbers a file gives its rows: each may be used once. */
class GivenRefundNumbers {
  readonly #first = new Map<string, number>()

  /** The problem of `number` given on `line`, when an earlier line gave it; undefined for none given. */
  see(line: number, number: string): string | undefined {
    if (!number) return undefined
    const first = this.#first.get(number)
    if (first === undefined) {
      this.#first.set(number, line)
      return undefined
    }
    return `mch_refund_no ${number} is used again (first on line ${first}); each refund number may be used once`
  }
}

/** A line of the file as its report writes it: a row with what became of it, a totals row, or a line that is not a row. */
export type ReportLine =
  | {row: RefundRow; index: number; cells: TableRow}
  | {totals: TotalsRow; cells: TableRow}
  | {left: LeftOut; cells: TableRow}
  | {note: NoteLine; cells: TableRow}
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
  const notes = new Map(file.notes.map((n) => [n.line, n]))
  const last = Math.max(...[file.rows, file.totals, file.left, file.notes].map((l) => l.at(-1)?.line ?? 0))
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
      const note = notes.get(cells.line)
      const row = file.rows[index]
      if (total) yield {totals: total, cells}
      else if (leftOut) yield {left: leftOut, cells}
      else if (note) yield {note, cells}
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

/**
 * The digest of what gw reads of `file`'s lines up to `line` (its header and every line under it):
 * the same as an earlier reading's when the file's first lines are unchanged (a sheet that grew).
 */
export async function digestUpTo(file: RefundFile, line: number): Promise<string> {
  const table = await openTable(file.path, file.read)
  const digest = new LinesDigest()
  digest.add(table.header.line ?? 1, table.header.names)
  try {
    for await (const row of table.rows) {
      if (row.line > line) break
      digest.add(row.line, row.values)
    }
  } finally {
    await table.rows.return(undefined)
  }
  return digest.value().sha256
}
