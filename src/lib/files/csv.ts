/**
 * CSV files as finance and support export them: UTF-8 with or without BOM, CRLF, LF or
 * both, quoted fields with commas, quotes, new lines and Thai text. Headers are matched
 * case-insensitively, ignoring surrounding spaces; unknown columns are kept. Rows stream,
 * each with the line it starts on, so problems can name their line.
 */
import {createHash} from 'node:crypto'
import {createReadStream, createWriteStream, renameSync, rmSync} from 'node:fs'
import {once} from 'node:events'
import {Transform, type TransformCallback} from 'node:stream'
import {pipeline} from 'node:stream/promises'

import {parse} from 'csv-parse'
import {stringify} from 'csv-stringify'

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

export interface CsvRow {
  /** The line the record starts on (the header is line 1). */
  line: number
  values: string[]
  /** The value of a column by its normalized name; '' when absent or empty. */
  get(name: string): string
  has(name: string): boolean
}

export interface CsvHeader {
  /** As written in the file. */
  names: string[]
  /** Lower case, trimmed. */
  keys: string[]
}

export const normalizeHeader = (name: string) => name.trim().toLowerCase()

/** Why a header cannot name orders, or undefined when it has one of the three order number columns. */
export function missingOrderColumn(header: CsvHeader): string | undefined {
  if (ORDER_NUMBER_FIELDS.some((c) => header.keys.includes(c))) return undefined
  return `no order number column: the header needs one of ${ORDER_NUMBER_FIELDS.join(', ')} (it has ${header.names.join(', ') || 'nothing'})`
}

/** The order number column a row fills first, in the order mch, gw, channel. */
export const orderColumnOf = (row: CsvRow) => ORDER_NUMBER_FIELDS.find((c) => row.get(c))

/** Reads a CSV file: the header, then every row. A malformed file is a usage error naming its line. */
export async function* readCsv(path: string): AsyncGenerator<CsvHeader | CsvRow> {
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
  let header: CsvHeader | undefined
  let index = new Map<string, number>()
  try {
    for await (const {record, info} of parser as AsyncIterable<{record: string[]; info: {lines: number}}>) {
      const newlines = record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0)
      const line = info.lines - newlines
      if (!header) {
        header = {names: record, keys: record.map(normalizeHeader)}
        index = new Map(header.keys.map((key, i) => [key, i]))
        yield header
        continue
      }
      const values = record
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
  if (!header) throw usageError(`${path} is empty: it needs a header row.`)
}

/** Hex SHA-256 of a file's bytes, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}

/** A CSV written row by row to a temporary file and moved into place on close: readers never see half a report. */
export class CsvWriter {
  readonly #temporary: string
  readonly #stringifier
  readonly #done: Promise<void>

  constructor(
    readonly path: string,
    header: string[],
  ) {
    this.#temporary = `${path}.${process.pid}.tmp`
    this.#stringifier = stringify({header: true, columns: header, record_delimiter: 'unix'})
    this.#done = pipeline(this.#stringifier, createWriteStream(this.#temporary, {mode: 0o600}))
  }

  /** Resolves when the row is buffered; waits when the disk is slower than the rows. */
  async write(values: (string | number | undefined)[]): Promise<void> {
    if (!this.#stringifier.write(values.map((v) => (v === undefined ? '' : String(v)))))
      await once(this.#stringifier, 'drain')
  }

  async close(): Promise<void> {
    this.#stringifier.end()
    await this.#done
    renameSync(this.#temporary, this.path)
  }

  async abort(): Promise<void> {
    this.#stringifier.destroy()
    await this.#done.catch(() => {})
    rmSync(this.#temporary, {force: true})
  }
}
