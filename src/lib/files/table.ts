/**
 * Tabular input as finance and support export it: a CSV file (csv-records) or an .xlsx
 * workbook (workbook-records), told apart by content, not by name. Each field gw reads comes
 * from its column (columns: gw's names or the user's mapping). Rows stream, each with the
 * line (the sheet's row) it starts on, so problems can name their line.
 */
import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {open} from 'node:fs/promises'
import {pipeline} from 'node:stream/promises'

import {usageError} from '../errors.js'
import {ORDER_NUMBER_FIELDS} from '../gateway/protocol/index.js'
import {quoted, shown} from '../untrusted.js'
import {type Columns, columnFlag, columnHints, normalizeHeader, resolveColumns} from './columns.js'
import {csvRecords, delimiterOf, headerLineOf} from './csv-records.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {type FileKind, encodingOf, kindOf, looksBinary, notTextError} from './decoding.js'
import type {TypedCells} from './cells.js'
import type {WorkbookRecord} from './workbook-reader.js'
import {workbookRecords} from './workbook-records.js'

export interface TableRow {
  /** The line the record starts on (the header is line 1); in a workbook, the sheet's row number. */
  line: number
  values: string[]
  /** Fields past the header's columns that hold something: a row that does not fit its header. */
  extra: number
  /** The value of a field, from its column; '' when the file has none or the cell is empty. */
  get(field: string): string
  /** Whether the file has a column for the field. */
  has(field: string): boolean
  /** Whether the field's cell is a workbook number past 15 digits, which Excel cannot hold exactly. */
  inexact(field: string): boolean
  /** A workbook's number and date cells as typed, by column (for a workbook report). */
  typed?: TypedCells
}

export interface TableHeader extends Columns {
  /** As written in the file. */
  names: string[]
  /** Lower case, trimmed. */
  keys: string[]
}

/** How the file was read, for notes and --json. */
export interface TableSource {
  kind: FileKind
  /** CSV: its encoding and separator. */
  encoding?: string
  delimiter?: string
  /** Workbook: the sheet read, and all its visible sheets. */
  sheet?: string
  sheets?: string[]
}

/** A table: how it was read, its header, then its rows, streamed. */
export interface Table {
  source: TableSource
  header: TableHeader
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
}

/** Why a header cannot name orders (with the --column that would fix it when a column looks right), or undefined. */
export function missingOrderColumn(table: Omit<Table, 'rows'>, fields: readonly string[]): string | undefined {
  const {header, source} = table
  if (ORDER_NUMBER_FIELDS.some((c) => header.index.has(c))) return undefined
  const hint = columnHints(header, fields, [[...ORDER_NUMBER_FIELDS]]).find((h) => h.includes('mch_order_no'))
  const names = header.names.map((n) => quoted(n)).join(', ') || 'nothing'
  return `no order number column${sheetNote(source)}: the header needs one of ${ORDER_NUMBER_FIELDS.join(', ')} (it has ${names}); name yours with ${hint ? hint.slice(hint.indexOf('--column')) : columnFlag('mch_order_no', 'Your header')}`
}

/** The order number field a row fills first, in the order mch, gw, channel. */
export const orderColumnOf = (row: TableRow) => ORDER_NUMBER_FIELDS.find((c) => row.get(c))

/** Every order number a row gives: the first names the order, the others must agree with it. */
export const orderNumbersOf = (row: TableRow): Partial<Record<(typeof ORDER_NUMBER_FIELDS)[number], string>> =>
  Object.fromEntries(ORDER_NUMBER_FIELDS.filter((c) => row.get(c)).map((c) => [c, row.get(c)]))

/** What is wrong with a row whatever the command: fields past its header, an order number Excel holds inexactly. */
export function rowProblems(row: TableRow): string[] {
  const problems: string[] = []
  if (row.extra)
    problems.push(
      `${row.extra} more field${row.extra === 1 ? '' : 's'} than the header has columns (a separator inside a value?)`,
    )
  for (const field of ORDER_NUMBER_FIELDS) {
    if (row.inexact(field))
      problems.push(
        `${field} is a number of more than 15 digits in the workbook, which Excel cannot hold exactly (it reads ${row.get(field)}): store order numbers as text cells`,
      )
  }
  return problems
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
async function recordsOf(path: string, options: ReadOptions) {
  const head = await headOf(path)
  const kind = kindOf(path, head)
  if (kind === 'xlsx') {
    for (const flag of ['encoding', 'delimiter'] as const)
      if (options[flag]) throw usageError(`--${flag} is for CSV files; ${path} is an .xlsx workbook.`)
    const workbook = await workbookRecords(path, options.sheet)
    return {source: {kind, sheet: workbook.sheet, sheets: workbook.sheets}, records: workbook.records}
  }
  if (options.sheet) throw usageError(`--sheet is for .xlsx workbooks; ${path} is a CSV file.`)
  const encoding = encodingOf(head, options.encoding)
  if (looksBinary(head, encoding)) throw notTextError(path, head)
  const delimiter = delimiterOf(headerLineOf(head, encoding), options.delimiter)
  const source = {kind, encoding: encoding.name, delimiter}
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
    const first = await bounded.next()
    if (first.done) throw usageError(`${path} is empty${sheetNote(source)}: it needs a header row and rows.`)
    const names = first.value.record
    if (names.length === 1 && options.delimiter && /[,;\t|]/.test(names[0]!))
      throw usageError(
        `${path}: with --delimiter ${shown(options.delimiter, 5)} the header is one column, ${quoted(names[0])}.`,
        'Leave --delimiter out: gw tells the separator from the header line.',
      )
    const header = {names, keys: names.map(normalizeHeader), ...resolveColumns(names, options.fields, options.column)}
    const second = await bounded.next()
    if (second.done) throw usageError(`${path} has a header but no rows${sheetNote(source)}.`)
    return {source, header, rows: rowsOf(header, second.value, bounded)}
  } catch (error) {
    await bounded.return(undefined)
    throw error
  }
}

async function* rowsOf(
  header: TableHeader,
  first: SourceRecord,
  rest: AsyncGenerator<SourceRecord>,
): AsyncGenerator<TableRow> {
  const {index, names} = header
  const width = names.length
  const row = ({record: values, line, inexact, typed}: SourceRecord): TableRow => ({
    line,
    values,
    typed,
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
  })
  yield row(first)
  for await (const record of rest) yield row(record)
}

/** A record of either kind of file: its fields, its line, and (in a workbook) the cells holding numbers past 15 digits. */
type SourceRecord = WorkbookRecord

/** The records with every field bounded, and rows with no field filled (`,,,` from a spreadsheet) left out. */
async function* boundedRecords(path: string, records: AsyncGenerator<SourceRecord>): AsyncGenerator<SourceRecord> {
  for await (const item of records) {
    const long = item.record.findIndex((field) => field.length > MAX_FIELD)
    if (long !== -1) throw fieldTooLong(path, item.line, long + 1, item.record[long]!.length)
    if (item.record.every((field) => field.trim() === '')) continue
    yield item
  }
}

/** Hex SHA-256 of a file's bytes, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
