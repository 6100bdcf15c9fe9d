/**
 * The records of a CSV file as finance exports it: any encoding StrictText reads, rows ended by
 * CRLF, LF or CR (each row by its own: old Mac exports and files pasted together mix them),
 * quoted fields with separators, quotes and new lines, and the separator of the locale (`,` `;`
 * or tab, told by the header line, or given). A field is read exactly as written: a CR or CRLF
 * inside quotes stays what it was (the reports write it back). Each record comes with the line
 * it starts on; a malformed file is a usage error naming its line.
 */
import {createReadStream} from 'node:fs'
import {Transform, pipeline} from 'node:stream'

import {CsvError, type Parser, parse} from 'csv-parse'

import {usageError} from '../errors.js'
import {RUNS_AS_FORMULA, shown} from '../untrusted.js'
import {StrictText, type TextEncoding} from './decoding.js'

/** The largest row gw reads; a larger one is not a row of an export. */
const MAX_RECORD = 1024 * 1024

/** Separators by the names --delimiter takes. */
const DELIMITERS: Readonly<Record<string, string>> = {',': ',', ';': ';', tab: '\t', '\\t': '\t', '\t': '\t', '|': '|'}

/** The separator: the one given, else the one of `,` `;` tab that the header line (outside quotes) uses most. */
export function delimiterOf(headerLine: string, given: string | undefined): string {
  if (given !== undefined) {
    const delimiter = DELIMITERS[given.toLowerCase()]
    if (!delimiter)
      throw usageError(`--delimiter ${shown(given, 20)} is not a separator gw reads.`, 'Give , ; tab or |.')
    return delimiter
  }
  const counts = new Map([...',;\t'].map((c) => [c, 0]))
  let quoted = false
  for (const c of headerLine) {
    if (c === '"') quoted = !quoted
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1)
  }
  return [...counts].reduce((best, next) => (next[1] > best[1] ? next : best))[0]
}

/** The header line of a file from its first bytes, decoded leniently (only to count separators). */
export function headerLineOf(head: Uint8Array, encoding: TextEncoding): string {
  const text = new TextDecoder(encoding.name).decode(head, {stream: true})
  return text.split(/\r|\n/, 1)[0]!
}

/** What each of csv-parse's complaints means, in words; others are shown as csv-parse says them. */
const CSV_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed',
  INVALID_OPENING_QUOTE: 'a quote inside a field that does not start with one',
  CSV_INVALID_CLOSING_QUOTE: 'text right after the closing quote of a field',
  CSV_MAX_RECORD_SIZE: `a row longer than ${MAX_RECORD / 1024} KiB`,
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'a row with another number of fields',
}

/** A field as it was before a spreadsheet guard (gw's own outputs write `'-INV-10` for `-INV-10`). */
const unguarded = (field: string) =>
  field.startsWith("'") && RUNS_AS_FORMULA.test(field.slice(1)) ? field.slice(1) : field

interface CsvOptions {
  encoding: TextEncoding
  delimiter: string
  /** The file's first bytes, to word the error when it is not text. */
  head: Uint8Array
}

/**
 * A row ends at the first of these outside quotes, per row (csv-parse's own discovery settles on
 * one for the whole file); CRLF is tried before CR.
 */
const RECORD_DELIMITERS = ['\r\n', '\r', '\n']

/**
 * The line ends csv-parse counts in a record's fields (each CR and each LF), and how many of
 * them are the second half of a CRLF, which the file shows as one line end.
 */
function lineEndsIn(record: string[]): {counted: number; doubled: number} {
  let counted = 0
  let doubled = 0
  for (const field of record) {
    if (!field.includes('\n') && !field.includes('\r')) continue
    for (let i = 0; i < field.length; i++) {
      const c = field.charCodeAt(i)
      if (c === 10) counted++
      else if (c === 13) {
        counted++
        if (field.charCodeAt(i + 1) === 10) doubled++
      }
    }
  }
  return {counted, doubled}
}

/** How gw reads a CSV, whatever it asks csv-parse beside. */
const parserOptions = (delimiter: string) => ({
  delimiter,
  skip_empty_lines: true,
  relax_column_count: true,
  record_delimiter: RECORD_DELIMITERS,
  max_record_size: MAX_RECORD,
})

/** `parser` fed the file's text. */
function reading<P extends Parser>(path: string, options: CsvOptions, parser: P): P {
  pipeline(
    createReadStream(path),
    new StrictText(path, options.encoding, options.head),
    new ShownFields(options.delimiter),
    parser,
    () => {},
  )
  return parser
}

/**
 * The line of a CSV error as the file counts lines (a CRLF inside quotes is one), from a second
 * reading that counts those line ends as it parses: the records the first reading had not taken
 * when the parser stopped are gone with it. (Only this second reading has the hook: on every
 * reading it raised a large dry run's peak memory, bench/large-files.mjs.)
 */
async function lineOfError(path: string, options: CsvOptions): Promise<number | undefined> {
  let doubled = 0
  const onRecord = (record: string[]) => ((doubled += lineEndsIn(record).doubled), record)
  try {
    for await (const _ of reading(path, options, parse({...parserOptions(options.delimiter), on_record: onRecord})))
      void _
  } catch (error) {
    if (error instanceof CsvError && typeof error.lines === 'number') return error.lines - doubled
  }
  return undefined
}

/**
 * The text of a CSV with `="000141"` fields (what exports write so that a spreadsheet keeps an
 * id's leading zeros, and shows 000141) written as the quoted fields `"000141"`: an `=` that
 * starts an unquoted field right before a quote is dropped. Nothing else changes: any other quote
 * inside a field that does not start with one stays the CSV error it is.
 */
class ShownFields extends Transform {
  #quoted = false
  /** The last character seen ended a field (a separator, a line end, or the start). */
  #atStart = true
  /** An `=` at a field's start held back, the chunk having ended right after it. */
  #held = false

  constructor(readonly delimiter: string) {
    super({decodeStrings: false, encoding: 'utf8'})
  }

  override _transform(chunk: string, _encoding: string, done: (error?: Error | null, data?: string) => void) {
    let text = this.#held ? `=${chunk}` : chunk
    this.#held = false
    if (!text.includes('=')) {
      this.#scan(text)
      done(null, text)
      return
    }
    let out = ''
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!
      if (c === '=' && this.#atStart && !this.#quoted) {
        if (i === text.length - 1) {
          this.#held = true
          break
        }
        if (text[i + 1] === '"') continue
      }
      out += c
      this.#step(c)
    }
    text = out
    done(null, text)
  }

  override _flush(done: (error?: Error | null, data?: string) => void) {
    done(null, this.#held ? '=' : '')
  }

  #scan(text: string) {
    for (let i = 0; i < text.length; i++) this.#step(text[i]!)
  }

  #step(c: string) {
    if (c === '"') this.#quoted = !this.#quoted
    this.#atStart = !this.#quoted && (c === this.delimiter || c === '\n' || c === '\r')
  }
}

export async function* csvRecords(
  path: string,
  options: CsvOptions,
): AsyncGenerator<{record: string[]; line: number; end?: number}> {
  /** Lines csv-parse has counted twice so far (a CRLF inside quotes), which the file shows as one. */
  let doubled = 0
  try {
    const parser = reading(path, options, parse({...parserOptions(options.delimiter), info: true}))
    for await (const {record, info} of parser as AsyncIterable<{record: string[]; info: {lines: number}}>) {
      const ends = lineEndsIn(record)
      const line = info.lines - ends.counted - doubled
      doubled += ends.doubled
      // A record with line ends inside its quotes takes lines up to `end`: no blank line between.
      const end = ends.counted ? {end: line + ends.counted - ends.doubled} : {}
      yield {record: record.map(unguarded), line, ...end}
    }
  } catch (error) {
    if (error instanceof CsvError) {
      const problem = CSV_PROBLEMS[error.code] ?? shown(error.message.replace(/ at line \d+.*$/s, ''), 120)
      throw usageError(
        `${path} line ${(await lineOfError(path, options)) ?? '?'}: not valid CSV (${problem}).`,
        'Export the sheet again as CSV; quotes inside a field must be doubled.',
      )
    }
    throw error
  }
}
