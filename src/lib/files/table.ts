/**
 * Tabular input as finance and support export it: CSV in UTF-8 with or without BOM, CRLF,
 * LF or both, quoted fields with commas, quotes, new lines and Thai text. Headers are
 * matched case-insensitively, ignoring surrounding spaces; unknown columns are kept. Rows
 * stream, each with the line it starts on, so problems can name their line.
 */
import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {Transform, type TransformCallback} from 'node:stream'
import {pipeline} from 'node:stream/promises'

import {parse} from 'csv-parse'

import {usageError} from '../errors.js'
import {ORDER_NUMBER_FIELDS} from '../gateway/protocol/index.js'

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

async function* readRecords(path: string): AsyncGenerator<{record: string[]; line: number}> {
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    info: true,
    relax_column_count: true,
    record_delimiter: '\n',
  })
  const source = createReadStream(path)
  source.on('error', (error) => parser.destroy(error))
  source.pipe(new NormalizeLineEndings()).pipe(parser)
  try {
    for await (const {record, info} of parser as AsyncIterable<{record: string[]; info: {lines: number}}>) {
      const newlines = record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0)
      yield {record, line: info.lines - newlines}
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw usageError(`The file ${path} does not exist.`)
    if (code === 'EISDIR') throw usageError(`${path} is a folder, not a CSV file.`)
    const csvError = error as {code?: string; lines?: number; message: string}
    if (csvError.code?.startsWith('CSV_'))
      throw usageError(
        `${path} line ${csvError.lines ?? '?'}: not valid CSV (${csvError.message.replace(/ at line \d+.*$/, '')}).`,
        'Export the sheet again as CSV (UTF-8); quotes inside a field must be doubled.',
      )
    throw error
  }
}

/** Hex SHA-256 of a file's bytes, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
