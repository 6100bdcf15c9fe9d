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
import {quoted} from '../untrusted.js'
import {type Columns, type FieldSet, columnFlag, columnHints, normalizeHeader, resolveColumns} from './columns.js'
import {csvRecords, delimiterOf, headerLineOf} from './csv-records.js'
import {type FileKind, encodingOf, kindOf, looksBinary, notTextError} from './decoding.js'
import {workbookRecords} from './workbook-records.js'

export interface TableRow {
  /** The line the record starts on (the header is line 1); in a workbook, the sheet's row number. */
  line: number
  values: string[]
  /** The value of a field, from its column; '' when the file has none or the cell is empty. */
  get(field: string): string
  /** Whether the file has a column for the field. */
  has(field: string): boolean
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
  fields: FieldSet
  column?: readonly string[]
  sheet?: string
  encoding?: string
  delimiter?: string
}

/** Why a header cannot name orders (with the --column that would fix it when a column looks right), or undefined. */
export function missingOrderColumn(table: Omit<Table, 'rows'>, fields: FieldSet): string | undefined {
  const {header, source} = table
  if (ORDER_NUMBER_FIELDS.some((c) => header.index.has(c))) return undefined
  const others = (source.sheets ?? []).filter((s) => s !== source.sheet)
  const sheet = others.length
    ? ` (this is sheet ${quoted(source.sheet)}; the workbook also has ${others.map((s) => quoted(s)).join(', ')}: --sheet NAME reads another)`
    : ''
  const hint = columnHints(header, fields, [[...ORDER_NUMBER_FIELDS]]).find((h) => h.includes('mch_order_no'))
  const names = header.names.map((n) => quoted(n)).join(', ') || 'nothing'
  return `no order number column${sheet}: the header needs one of ${ORDER_NUMBER_FIELDS.join(', ')} (it has ${names}); name yours with ${hint ? hint.slice(hint.indexOf('--column')) : columnFlag('mch_order_no', 'Your header')}`
}

/** The order number field a row fills first, in the order mch, gw, channel. */
export const orderColumnOf = (row: TableRow) => ORDER_NUMBER_FIELDS.find((c) => row.get(c))

/** The largest field gw reads; a larger one is not a cell of an export. */
const MAX_FIELD = 64 * 1024

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

/** Opens a table file and reads its header; the rows follow as they are iterated. */
export async function openTable(path: string, options: ReadOptions): Promise<Table> {
  const {source, records} = await recordsOf(path, options)
  const bounded = boundedRecords(path, records)
  const first = await bounded.next()
  if (first.done) throw usageError(`${path} is empty: it needs a header row.`)
  const names = first.value.record
  const header = {names, keys: names.map(normalizeHeader), ...resolveColumns(names, options.fields, options.column)}
  const index = header.index
  async function* rows(): AsyncGenerator<TableRow> {
    for await (const {record: values, line} of bounded) {
      yield {
        line,
        values,
        get: (field: string) => {
          const at = index.get(field)
          return at === undefined ? '' : (values[at] ?? '').trim()
        },
        has: (field: string) => index.has(field),
      }
    }
  }
  return {source, header, rows: rows()}
}

async function* boundedRecords(
  path: string,
  records: AsyncGenerator<{record: string[]; line: number}>,
): AsyncGenerator<{record: string[]; line: number}> {
  for await (const item of records) {
    const long = item.record.findIndex((field) => field.length > MAX_FIELD)
    if (long !== -1) {
      throw usageError(
        `${path} line ${item.line}: field ${long + 1} is ${item.record[long]!.length} characters long; at most ${MAX_FIELD} are read.`,
        'A cell that large is not part of an export: check the file.',
      )
    }
    yield item
  }
}

/** Hex SHA-256 of a file's bytes, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
