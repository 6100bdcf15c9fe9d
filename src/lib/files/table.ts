/**
 * Tabular input as finance and support export it: a CSV file (csv-records) or an .xlsx
 * workbook (workbook-records), told apart by content, not by name. Each field gw reads comes
 * from its column (columns: gw's names or the user's mapping). Rows stream, each with the
 * line (the sheet's row) it starts on, so problems can name their line; every line of the file
 * (titles, blank lines, rows) can be walked again in order, for a report that lines up with it.
 */
import {open} from 'node:fs/promises'

import {usageError} from '../errors.js'
import {ORDER_NUMBER_FIELDS} from '../gateway/protocol/index.js'
import {quoted, shown} from '../untrusted.js'
import {
  type Columns,
  columnFlag,
  columnHints,
  groupsNamed,
  gwColumnsOf,
  normalizeHeader,
  resolveColumns,
} from './columns.js'
import {csvRecords, delimiterOf, headerLineOf} from './csv-records.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {type FileKind, checkNotUtf8, encodingOf, kindOf, looksBinary, notTextError, unusualLine} from './decoding.js'
import type {TypedCells} from './cells.js'
import {type ColumnMark, DecimalMarks, HOLD_LIMIT} from './decimal-marks.js'
import type {AmountContext, DecimalMark} from '../gateway/protocol/index.js'
import type {CellNote} from './workbook-cells.js'
import {type WorkbookRecord, columnLetters} from './workbook-rows.js'
import {workbookRecords} from './workbook-records.js'

export interface TableRow {
  /** The line the record starts on (the header is line 1); in a workbook, the sheet's row number. */
  line: number
  /** The line it ends on (a CSV field may hold line ends); `line` for most. */
  end: number
  values: string[]
  /** Fields past the header's columns that hold something: a row that does not fit its header. */
  extra: number
  /** The value of a field, from its column; '' when the file has none or the cell is empty. */
  get(field: string): string
  /** Whether the file has a column for the field. */
  has(field: string): boolean
  /** Whether the field's cell is a workbook number past 15 digits, which Excel cannot hold exactly. */
  inexact(field: string): boolean
  /** What a workbook cell holds when it is not text (its number, a percentage, a date, a formula without result). */
  note(field: string): CellNote | undefined
  /** The fields read from formulas without a stored result, with their cells. */
  formulas(): {field: string; address: string}[]
  /** A workbook's number and date cells as typed, by column (for a workbook report). */
  typed?: TypedCells
  /** How an amount field's text is read: its column's decimal mark as settled when the row was let go, the file's yen sign. */
  amountContext(field: string): AmountContext
  /** Why the sheet does not show the row: hidden, filtered out, collapsed; undefined when it shows it. */
  hidden?: string
  /** The row is shown struck through (a cell gw reads, or every filled cell): which cells. */
  struck?: string
  /** The merged range a field's cell is covered by (its value is in the range's first cell only). */
  merged(field: string): string | undefined
}

export interface TableHeader extends Columns {
  /** The line the header is on (rows above it are titles); 1 when not said. */
  line?: number
  /** As written in the file. */
  names: string[]
  /** Lower case, trimmed. */
  keys: string[]
  /** Columns of gw's own earlier output in a file fed back in (its status, advice): not the file's data, not read. */
  gwColumns: number[]
}

/** How the file was read, for notes and --json. */
export interface TableSource {
  kind: FileKind
  /** CSV: its encoding and separator. */
  encoding?: string
  delimiter?: string
  /** Workbook: the sheet read, all its visible sheets, and the one it opens on (its active tab). */
  sheet?: string
  sheets?: string[]
  active?: string
  /** Rows above the header, skipped as titles: their line and their text. */
  titles?: {line: number; text: string}[]
  /** Text that decodes to characters unusual in the encoding given: an example line. */
  unusual?: {line: number; text: string}
  /** The decimal mark of each amount column, as it was settled while the rows were read (decimal-marks). */
  marks: ColumnMark[]
}

/** A line of the file that is not a row: above the header (a title), or blank. */
export interface TableLine {
  line: number
  values: string[]
  typed?: TypedCells
}

/** A table: how it was read, its header, the lines above it, then its rows, streamed. */
export interface Table {
  source: TableSource
  header: TableHeader
  /** The lines above the header that hold something (titles), in order. */
  above: TableLine[]
  rows: AsyncGenerator<TableRow>
}

/** How to read a file: the fields the command reads, --column mappings, --sheet, --encoding, --delimiter. */
export interface ReadOptions {
  /** The fields the command reads. */
  fields: readonly string[]
  column?: readonly string[]
  sheet?: string
  encoding?: string
  delimiter?: string
  /** The line of the header (--header-row); else the first of the first HEADER_SEARCH rows that holds `required`. */
  'header-row'?: number
  /** Groups of fields the header must hold one of each (the order numbers; the amounts), to be found. */
  required?: readonly (readonly string[])[]
  /** The column sets of gw's own outputs the command may be given back (gwColumnsOf). */
  outputs?: readonly (readonly string[])[]
  /** The fields holding amounts as text, whose decimal mark is settled by their column (decimal-marks). */
  amounts?: readonly string[]
  /** --decimal-mark: every amount column's mark, given. */
  'decimal-mark'?: DecimalMark
  /** Other names fields answer to (normalised) when no column has their own; never a column of gw's own earlier output. */
  aliases?: Readonly<Record<string, readonly string[]>>
  /** --include-hidden: rows the sheet hides or strikes through are read as any other. */
  'include-hidden'?: boolean
}

/** How many rows the header is looked for among. */
const HEADER_SEARCH = 20

/** The header of `names` for the command's fields, when it holds every required group; undefined when not. */
function headerOf(record: SourceRecord, options: ReadOptions): TableHeader | undefined {
  const names = record.record
  let columns
  try {
    columns = resolveColumns(names, options.fields, options.column, options.aliases)
  } catch {
    return undefined
  }
  if (!(options.required ?? []).every((group) => group.some((field) => columns.index.has(field)))) return undefined
  return headerWith(record.line, names, columns, options)
}

/** The header of `names` read as `columns`, gw's own columns of an earlier output told apart from the file's. */
function headerWith(line: number, names: string[], found: Columns, options: ReadOptions): TableHeader {
  const keys = names.map(normalizeHeader)
  // A field found by an alias is not read from a column of gw's own earlier output (a report's status).
  const byAlias = new Set((found.aliased ?? []).map((field) => found.index.get(field)!))
  const read = new Set([...found.index.values()].filter((at) => !byAlias.has(at)))
  const gwColumns = gwColumnsOf(keys, read, options.outputs ?? [])
  const index = new Map([...found.index].filter(([, at]) => !byAlias.has(at) || !gwColumns.includes(at)))
  const used = new Set(index.values())
  const columns = {...found, index, ignored: names.filter((n, i) => keys[i] !== '' && !used.has(i))}
  const ignored = gwColumns.length
    ? names.filter((n, i) => keys[i] !== '' && columns.ignored.includes(n) && !gwColumns.includes(i))
    : columns.ignored
  return {line, names, keys, ...columns, ignored, gwColumns}
}

/**
 * Of rows none of which holds the required columns, the one most like a header: the first that
 * names most of them, by name or by a column that looks like one ("Invoice No"), then the one of
 * more cells (a title is one), so that what is missing is said of it, with the --column that
 * would read it. The first row when none names any.
 */
function likeliestHeader(seen: readonly SourceRecord[], options: ReadOptions): number {
  const named = (names: string[]) => {
    try {
      return groupsNamed(resolveColumns(names, options.fields), options.fields, options.required ?? [])
    } catch {
      return 0
    }
  }
  const scores = seen.map(({record}) => [named(record), record.filter((v) => v.trim()).length] as const)
  let best = 0
  scores.forEach(([count, cells], at) => {
    const [bestCount, bestCells] = scores[best]!
    if (count > bestCount || (count === bestCount && count > 0 && cells > bestCells)) best = at
  })
  return best
}

/** Why a header cannot name orders (with the --column that would fix it when a column looks right), or undefined. */
export function missingOrderColumn(
  table: Pick<Table, 'header' | 'source'>,
  fields: readonly string[],
): string | undefined {
  const {header, source} = table
  if (ORDER_NUMBER_FIELDS.some((c) => header.index.has(c))) return undefined
  const hint = columnHints(header, fields, [[...ORDER_NUMBER_FIELDS]]).find((h) => h.includes('mch_order_no'))
  const names = header.names.map((n) => quoted(n)).join(', ') || 'nothing'
  return `no order number column${sheetNote(source)}: the header needs one of ${ORDER_NUMBER_FIELDS.join(', ')} (it has ${names}); name yours with ${hint ? hint.slice(hint.indexOf('--column')) : columnFlag('mch_order_no', 'Your header')}`
}

/** The first bytes of a file, to tell what it is; a usage error when it cannot be read. */
async function headOf(path: string): Promise<Uint8Array> {
  let handle
  try {
    handle = await open(path, 'r')
    const {buffer, bytesRead} = await handle.read({buffer: Buffer.alloc(64 * 1024)})
    return buffer.subarray(0, bytesRead)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw usageError(`The file ${path} does not exist.`)
    if (code === 'EISDIR') throw usageError(`${path} is a folder, not a CSV or .xlsx file.`)
    if (code === 'EACCES') throw usageError(`${path} cannot be read (no permission).`)
    throw error
  } finally {
    await handle?.close()
  }
}

/** The records of the file, whichever kind it is, and how it was read. */
async function recordsOf(
  path: string,
  options: ReadOptions,
): Promise<{source: TableSource; records: AsyncGenerator<SourceRecord>}> {
  const head = await headOf(path)
  const kind = kindOf(path, head)
  if (kind === 'xlsx') {
    for (const flag of ['encoding', 'delimiter'] as const)
      if (options[flag]) throw usageError(`--${flag} is for CSV files; ${path} is an .xlsx workbook.`)
    const workbook = await workbookRecords(path, options.sheet)
    const {sheet, sheets, active} = workbook
    return {source: {kind, sheet, sheets, ...(active ? {active} : {}), marks: []}, records: workbook.records}
  }
  if (options.sheet) throw usageError(`--sheet is for .xlsx workbooks; ${path} is a CSV file.`)
  const encoding = encodingOf(head, options.encoding)
  if (looksBinary(head, encoding)) throw notTextError(path, head)
  checkNotUtf8(path, head, encoding)
  const delimiter = delimiterOf(headerLineOf(head, encoding), options.delimiter)
  const unusual = unusualLine(head, encoding)
  const source = {kind, encoding: encoding.name, delimiter, marks: [], ...(unusual ? {unusual} : {})}
  return {source, records: csvRecords(path, {encoding, delimiter, head})}
}

/** " in sheet "Orders" (the workbook also has "Data": --sheet NAME reads another)", or '' for a CSV. */
function sheetNote(source: TableSource): string {
  const others = (source.sheets ?? []).filter((s) => s !== source.sheet)
  if (!source.sheet) return ''
  const also = others.length
    ? `; the workbook also has ${others.map((s) => quoted(s)).join(', ')}: --sheet NAME reads another`
    : ''
  return ` (sheet ${quoted(source.sheet)}${also})`
}

/** Opens a table file and reads its header; the rows follow as they are iterated. A file without rows is a usage error. */
export async function openTable(path: string, options: ReadOptions): Promise<Table> {
  const {source, records} = await recordsOf(path, options)
  const bounded = boundedRecords(path, records)
  try {
    const given = options['header-row']
    const seen: SourceRecord[] = []
    let header: TableHeader | undefined
    for (let next = await bounded.next(); !next.done; next = await bounded.next()) {
      seen.push(next.value)
      if (given !== undefined ? next.value.line >= given : (header = headerOf(next.value, options))) break
      if (given === undefined && seen.length >= HEADER_SEARCH) break
    }
    if (!seen.length) throw usageError(`${path} is empty${sheetNote(source)}: it needs a header row and rows.`)
    // The header: the line given, else the first row that holds the required columns, else the
    // row most like a header (whose missing columns are then said).
    let at = header ? seen.length - 1 : likeliestHeader(seen, options)
    if (given !== undefined) {
      at = seen.findIndex((r) => r.line === given)
      if (at === -1)
        throw usageError(
          `--header-row ${given}: line ${given} of ${path}${sheetNote(source)} is empty or past the end of the file.`,
        )
    }
    const names = seen[at]!.record
    if (names.length === 1 && options.delimiter && /[,;\t|]/.test(names[0]!))
      throw usageError(
        `${path}: with --delimiter ${shown(options.delimiter, 5)} the header is one column, ${quoted(names[0])}.`,
        'Leave --delimiter out: gw tells the separator from the header line.',
      )
    header ??= headerWith(
      seen[at]!.line,
      names,
      resolveColumns(names, options.fields, options.column, options.aliases),
      options,
    )
    // A title's text, without what gw wrote beside it in an earlier report (its status): a line of
    // nothing else is a blank one.
    const gw = new Set(header.gwColumns)
    const text = (values: string[]) => values.filter((v, i) => v.trim() && !gw.has(i)).join(' ')
    const above = seen
      .slice(0, at)
      .filter(({record}) => text(record))
      .map(({line, record: values, typed}) => ({line, values, ...(typed ? {typed} : {})}))
    const titles = above.map(({line, values}) => ({line, text: text(values)}))
    const rest = seen.slice(at + 1)
    const second = rest.length ? {done: false, value: rest.shift()!} : await bounded.next()
    if (second.done) throw usageError(`${path} has a header but no rows${sheetNote(source)}.`)
    const table = {source: titles.length ? {...source, titles} : source, header, above}
    // Shift_JIS and CP932 (which WHATWG decodes as shift_jis) write the yen sign as the byte of `\`.
    const yen = source.encoding === 'shift_jis'
    const marks = new DecimalMarks(
      (options.amounts ?? []).filter((f) => header.index.has(f)),
      table.source.marks,
      options['decimal-mark'],
      yen,
    )
    const rows = rowsOf(header, second.value, prepended(rest, bounded), Boolean(options['include-hidden']))
    return {...table, rows: settledRows(rows, marks)}
  } catch (error) {
    await bounded.return(undefined)
    throw error
  }
}

async function* rowsOf(
  header: TableHeader,
  first: SourceRecord,
  rest: AsyncGenerator<SourceRecord>,
  includeHidden: boolean,
): AsyncGenerator<HeldRow> {
  const {index, names} = header
  const width = names.length
  const gw = new Set(header.gwColumns)
  // A line of an earlier report that only gw wrote in (its not_a_row beside a blank line) is blank.
  const blank = ({record, notes}: SourceRecord) =>
    gw.size > 0 && !notes && record.every((v, i) => gw.has(i) || v.trim() === '')
  const read = new Set(index.values())
  /** A row struck through: a cell gw reads, or every filled cell. */
  const struckThrough = ({record, struck, line}: SourceRecord) => {
    if (!struck) return undefined
    const filled = record.flatMap((v, i) => (v.trim() ? [i] : []))
    const shown = struck.filter((at) => read.has(at))
    if (!shown.length && !filled.every((at) => struck.includes(at))) return undefined
    const cells = (shown.length ? shown : struck).map((at) => `${columnLetters(at)}${line}`)
    return `struck through (${cells.length === 1 ? 'cell' : 'cells'} ${cells.join(', ')})`
  }
  const row = (source: SourceRecord): HeldRow => {
    const {record: values, line, end, inexact, notes, typed, merged} = source
    const [hidden, struck] = includeHidden ? [] : [source.hidden, struckThrough(source)]
    return {
      line,
      end: end ?? line,
      values,
      typed,
      ...(hidden ? {hidden} : {}),
      ...(struck ? {struck} : {}),
      merged: (field) => {
        const at = index.get(field)
        return at === undefined ? undefined : merged?.[at]
      },
      contexts: {},
      amountContext(field) {
        return this.contexts[field] ?? {}
      },
      // Asked of every row: most have no notes at all (every CSV row, a workbook's text cells).
      formulas: () =>
        notes
          ? [...index].flatMap(([field, at]) => {
              const note = notes[at]
              return note?.kind === 'formula' ? [{field, address: note.address}] : []
            })
          : [],
      extra: values.slice(width).filter((v) => v.trim() !== '').length,
      get: (field) => {
        const at = index.get(field)
        return at === undefined ? '' : (values[at] ?? '').trim()
      },
      has: (field) => index.has(field),
      inexact: (field) => {
        const at = index.get(field)
        return at !== undefined && Boolean(inexact?.includes(at))
      },
      note: (field) => {
        const at = index.get(field)
        return at === undefined ? undefined : notes?.[at]
      },
    }
  }
  if (!blank(first)) yield row(first)
  for await (const record of rest) if (!blank(record)) yield row(record)
}

/** A row as it streams, its amounts' contexts set when it is let go (settledRows). */
type HeldRow = TableRow & {contexts: Record<string, AmountContext>}

/**
 * The rows in order, each let go once the decimal mark of every amount column it has a cell of
 * two readings in is settled (or the file ends, or HOLD_LIMIT rows wait), with the contexts its
 * amounts are then read in.
 */
async function* settledRows(rows: AsyncGenerator<HeldRow>, marks: DecimalMarks): AsyncGenerator<TableRow> {
  const held: HeldRow[] = []
  const go = (row: HeldRow) => {
    for (const field of marks.fields) row.contexts[field] = marks.contextOf(field)
    return row
  }
  try {
    for await (const row of rows) {
      const waits = marks.see(
        row.line,
        (f) => row.get(f),
        (f) => row.note(f) === undefined,
      )
      if (!held.length && !waits) {
        yield go(row)
        continue
      }
      held.push(row)
      if (held.length >= HOLD_LIMIT) marks.giveUp()
      if (marks.waiting) continue
      for (const waiting of held) yield go(waiting)
      held.length = 0
    }
    marks.giveUp()
    for (const waiting of held) yield go(waiting)
  } finally {
    await rows.return(undefined)
  }
}

/** A line of the file as a report writes it back: one of the table's rows, or a line that is not a row. */
type FileLine = {row: TableRow} | {above: TableLine} | {blank: TableLine}

/**
 * Every line of the table from its first, in order: the lines above the header (titles and blank
 * lines), then the rows and the blank lines between them (the gaps in their line numbers: empty
 * rows, `,,,`), so that a report writing one line for each lines up with the file. Blank lines
 * after the last row are not walked.
 */
export async function* linesOf(table: Table): AsyncGenerator<FileLine> {
  let next = 1
  const blanks = function* (until: number) {
    for (; next < until; next++) yield {line: next, values: []}
  }
  for (const line of table.above) {
    for (const gap of blanks(line.line)) yield {above: gap}
    yield {above: line}
    next = line.line + 1
  }
  for (const gap of blanks(table.header.line ?? 1)) yield {above: gap}
  next = (table.header.line ?? 1) + 1
  for await (const row of table.rows) {
    for (const gap of blanks(row.line)) yield {blank: gap}
    yield {row}
    next = row.end + 1
  }
}

/** `first`, then the rest of `records`. */
async function* prepended<T>(first: T[], records: AsyncGenerator<T>): AsyncGenerator<T> {
  yield* first
  yield* records
}

/** A record of either kind of file: its fields, its line, and (in a workbook) the cells holding numbers past 15 digits. */
type SourceRecord = WorkbookRecord

/** The records with every field bounded, and rows with no field filled (`,,,` from a spreadsheet) left out. */
async function* boundedRecords(path: string, records: AsyncGenerator<SourceRecord>): AsyncGenerator<SourceRecord> {
  for await (const item of records) {
    const long = item.record.findIndex((field) => field.length > MAX_FIELD)
    if (long !== -1) throw fieldTooLong(path, item.line, long + 1, item.record[long]!.length)
    // A formula without a stored result reads as empty text: its row is not an empty one.
    if (!item.notes && item.record.every((field) => field.trim() === '')) continue
    yield item
  }
}
