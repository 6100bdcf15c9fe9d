/**
 * Tabular input as finance and support export it: a CSV file (csv-records) or an .xlsx
 * workbook (workbook-records), told apart by content, not by name. Each field gw reads comes
 * from its column (table-header: gw's names or the user's mapping). Rows stream (table-rows),
 * each with the line (the sheet's row) it starts on, so problems can name their line; every
 * line of the file (titles, blank lines, rows) can be walked again in order, for a report that
 * lines up with it.
 */
import {open} from 'node:fs/promises'

import {usageError} from '../errors.js'
import {shown, quoted} from '../untrusted.js'
import {resolveColumns} from './columns.js'
import {csvRecords, delimiterOf, headerLineOf} from './csv-records.js'
import {DecimalMarks} from './decimal-marks.js'
import {checkNotUtf8, encodingOf, kindOf, looksBinary, notTextError, unusualLine} from './decoding.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {HEADER_SEARCH, headerOf, headerWith, likeliestHeader, sheetNote} from './table-header.js'
import type {ReadOptions, SourceRecord, Table, TableHeader, TableLine, TableRow, TableSource} from './table-model.js'
import {commentsOf, rowsOf, settledRows} from './table-rows.js'
import type {SheetFacts} from './workbook-rows.js'
import {workbookRecords} from './workbook-records.js'

export type {ReadOptions, SheetComment, Table, TableHeader, TableLine, TableRow, TableSource} from './table-model.js'
export {
  type ColumnCurrencies,
  amountHeaders,
  columnCurrency,
  missingOrderColumn,
  unseenProblems,
} from './table-header.js'

/** The decimal mark a CSV's amounts were written with, when it is a comma: gw's own amounts in its outputs follow it. */
export const decimalMarkOf = (source: TableSource) =>
  source.kind === 'csv' && source.marks.length > 0 && source.marks.every((m) => m.mark === 'comma')
    ? ('comma' as const)
    : undefined

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
    return {
      source: {kind, sheet, sheets, ...(active ? {active} : {}), marks: []},
      records: workbook.records,
    }
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

/** Opens a table file and reads its header; the rows follow as they are iterated. A file without rows is a usage error. */
export async function openTable(path: string, options: ReadOptions): Promise<Table> {
  const {source, records} = await recordsOf(path, options)
  const facts: {of?: SheetFacts} = {}
  const bounded = boundedRecords(path, records, facts)
  const includeHidden = Boolean(options['include-hidden'])
  try {
    const given = options['header-row']
    const seen: SourceRecord[] = []
    let header: TableHeader | undefined
    // What the sheet hides, said on its first row; --include-hidden reads it as any other.
    const hiddenOf = () =>
      new Map(includeHidden ? [] : Object.entries(facts.of?.hiddenColumns ?? {}).map(([at, why]) => [Number(at), why]))
    for (let next = await bounded.next(); !next.done; next = await bounded.next()) {
      seen.push(next.value)
      if (given !== undefined ? next.value.line >= given : (header = headerOf(next.value, options, hiddenOf()))) break
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
    // One column whose name holds bars: a file separated by | (gw reads it when told, never by a guess).
    if (names.length === 1 && !options.delimiter && source.kind === 'csv' && (names[0]!.match(/\|/g)?.length ?? 0) >= 1)
      throw usageError(
        `${path}: its header is one column, ${quoted(names[0], 80)}: the file looks separated by | (bars).`,
        "Add --delimiter '|' to read it so.",
      )
    if (names.length === 1 && options.delimiter && /[,;\t|]/.test(names[0]!))
      throw usageError(
        `${path}: with --delimiter ${shown(options.delimiter, 5)} the header is one column, ${quoted(names[0])}.`,
        'Leave --delimiter out: gw tells the separator from the header line.',
      )
    const hidden = hiddenOf()
    header ??= headerWith(
      seen[at]!.line,
      names,
      resolveColumns(names, options.fields, options.column, options.aliases, new Set(hidden.keys())),
      options,
      hidden,
    )
    const unevaluated = includeHidden ? [] : (facts.of?.unevaluated ?? [])
    if (unevaluated.length) source.unevaluated = unevaluated
    const {above, titles, looseComments} = aboveTheRows(seen, at, header)
    const rest = seen.slice(at + 1)
    const second = rest.length ? {done: false, value: rest.shift()!} : await bounded.next()
    if (second.done) throw usageError(`${path} has a header but no rows${sheetNote(source)}.`)
    const more = {...(titles.length ? {titles} : {}), ...(looseComments.length ? {looseComments} : {})}
    const table = {source: {...source, ...more}, header, above}
    // Shift_JIS and CP932 (which WHATWG decodes as shift_jis) write the yen sign as the byte of `\`.
    const yen = source.encoding === 'shift_jis'
    const marks = new DecimalMarks(
      (options.amounts ?? []).filter((f) => header.index.has(f)),
      table.source.marks,
      options['decimal-mark'],
      yen,
    )
    const rows = rowsOf(header, table.source, second.value, prepended(rest, bounded), includeHidden)
    return {...table, rows: settledRows(rows, marks)}
  } catch (error) {
    await bounded.return(undefined)
    throw error
  }
}

/**
 * The lines above the header of `seen` (the header at `at`): those that hold something, and
 * their text (a title's, without what gw wrote beside it in an earlier report: its status; a line
 * of nothing else is a blank one); and the comments on them and on the header, the file's.
 */
function aboveTheRows(seen: readonly SourceRecord[], at: number, header: TableHeader) {
  const gw = new Set(header.gwColumns)
  const text = (values: string[]) => values.filter((v, i) => v.trim() && !gw.has(i)).join(' ')
  const above: TableLine[] = seen
    .slice(0, at)
    .filter(({record}) => text(record))
    .map(({line, record: values, typed}) => ({line, values, ...(typed ? {typed} : {})}))
  const titles = above.map(({line, values}) => ({line, text: text(values)}))
  return {above, titles, looseComments: seen.slice(0, at + 1).flatMap(commentsOf)}
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

/** The records with every field bounded, and rows with no field filled (`,,,` from a spreadsheet) left out. */
async function* boundedRecords(
  path: string,
  records: AsyncGenerator<SourceRecord>,
  facts: {of?: SheetFacts},
): AsyncGenerator<SourceRecord> {
  for await (const item of records) {
    if (item.facts) facts.of = item.facts
    const long = item.record.findIndex((field) => field.length > MAX_FIELD)
    if (long !== -1) throw fieldTooLong(path, item.line, long + 1, item.record[long]!.length)
    // A formula without a stored result reads as empty text, and a comment is read: neither row is an empty one.
    if (!item.notes && !item.comments && item.record.every((field) => field.trim() === '')) continue
    yield item
  }
}
