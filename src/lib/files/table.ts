/**
 * Tabular input as finance and support export it: CSV in UTF-8 with or without BOM, CRLF,
 * LF or both, quoted fields with commas, quotes, new lines and Thai text. Headers are
 * matched case-insensitively, ignoring surrounding spaces; unknown columns are kept. Rows
 * stream, each with the line it starts on, so problems can name their line.
 */
import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {Transform, type TransformCallback, pipeline as streamPipeline} from 'node:stream'
import {pipeline} from 'node:stream/promises'

import {CsvError, parse} from 'csv-parse'

import {usageError} from '../errors.js'
import {ORDER_NUMBER_FIELDS} from '../gateway/protocol/index.js'
import {shown} from '../untrusted.js'
import {StrictUtf8} from './decoding.js'

/** CRLF and lone CR become LF, also across chunk boundaries, so line numbers are exact. */
class NormalizeLineEndings extends Transform {
  #pendingCR = false

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let text = chunk.toString('latin1')
    if (this.#pendingCR) text = `\r${text}`
    this.#pendingCR = text.endsWith('\r')
    if (this.#pendingCR) text = text.slice(0, -1)
    done(null, Buffer.from(text.replace(/\r\n?/g, '\n'), 'latin1'))
  }

  override _flush(done: TransformCallback): void {
    done(null, this.#pendingCR ? Buffer.from('\n') : undefined)
  }
}

export interface TableRow {
  /** The line the record starts on (the header is line 1). */
  line: number
  values: string[]
  /** The value of a column by its normalized name; '' when absent or empty. */
  get(name: string): string
  has(name: string): boolean
}

export interface TableHeader {
  /** As written in the file. */
  names: string[]
  /** Lower case, trimmed. */
  keys: string[]
}

const normalizeHeader = (name: string) => name.trim().toLowerCase()

/** Why a header cannot name orders, or undefined when it has one of the three order number columns. */
export function missingOrderColumn(header: TableHeader): string | undefined {
  if (ORDER_NUMBER_FIELDS.some((c) => header.keys.includes(c))) return undefined
  return `no order number column: the header needs one of ${ORDER_NUMBER_FIELDS.join(', ')} (it has ${header.names.join(', ') || 'nothing'})`
}

/** The order number column a row fills first, in the order mch, gw, channel. */
export const orderColumnOf = (row: TableRow) => ORDER_NUMBER_FIELDS.find((c) => row.get(c))

/** A table: its header, then its rows, streamed. A malformed file is a usage error naming its line. */
interface Table {
  header: TableHeader
  rows: AsyncGenerator<TableRow>
}

/** Opens a table file and reads its header; the rows follow as they are iterated. */
export async function openTable(path: string): Promise<Table> {
  const records = readRecords(path)
  const first = await records.next()
  if (first.done) throw usageError(`${path} is empty: it needs a header row.`)
  const names = first.value.record
  const header = {names, keys: names.map(normalizeHeader)}
  const index = new Map(header.keys.map((key, i) => [key, i]))
  async function* rows(): AsyncGenerator<TableRow> {
    for await (const {record: values, line} of records) {
      yield {
        line,
        values,
        get: (name: string) => {
          const at = index.get(name)
          return at === undefined ? '' : (values[at] ?? '').trim()
        },
        has: (name: string) => index.has(name),
      }
    }
  }
  return {header, rows: rows()}
}

/** The largest field and row gw reads; a larger one is not a cell of an export. */
const MAX_FIELD = 64 * 1024
const MAX_RECORD = 1024 * 1024

/** What each of csv-parse's complaints means, in words; others are shown as csv-parse says them. */
const CSV_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed',
  INVALID_OPENING_QUOTE: 'a quote inside a field that does not start with one',
  CSV_INVALID_CLOSING_QUOTE: 'text right after the closing quote of a field',
  CSV_MAX_RECORD_SIZE: `a row longer than ${MAX_RECORD / 1024} KiB`,
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'a row with another number of fields',
}

async function* readRecords(path: string): AsyncGenerator<{record: string[]; line: number}> {
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    info: true,
    relax_column_count: true,
    record_delimiter: '\n',
    max_record_size: MAX_RECORD,
  })
  streamPipeline(createReadStream(path), new NormalizeLineEndings(), new StrictUtf8(path), parser, () => {})
  try {
    for await (const {record, info} of parser as AsyncIterable<{record: string[]; info: {lines: number}}>) {
      const newlines = record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0)
      const line = info.lines - newlines
      const long = record.findIndex((field) => field.length > MAX_FIELD)
      if (long !== -1) {
        throw usageError(
          `${path} line ${line}: field ${long + 1} is ${record[long]!.length} characters long; at most ${MAX_FIELD} are read.`,
          'A cell that large is not part of an export: check the file.',
        )
      }
      yield {record, line}
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw usageError(`The file ${path} does not exist.`)
    if (code === 'EISDIR') throw usageError(`${path} is a folder, not a CSV file.`)
    if (error instanceof CsvError) {
      const problem = CSV_PROBLEMS[error.code] ?? shown(error.message.replace(/ at line \d+.*$/s, ''), 120)
      throw usageError(
        `${path} line ${error.lines ?? '?'}: not valid CSV (${problem}).`,
        'Export the sheet again as CSV; quotes inside a field must be doubled.',
      )
    }
    throw error
  }
}

/** Hex SHA-256 of a file's bytes, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
