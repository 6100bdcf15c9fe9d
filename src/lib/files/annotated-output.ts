/**
 * Annotated output: every input row with its own columns, plus ours (a bulk refund's status,
 * reconcile's classification). One of ours that the input already has is filled in place.
 * A CSV (UTF-8 with a BOM unless asked not to, so a spreadsheet reads Thai right) or, for a
 * name ending in .xlsx, a workbook (workbook-output). Written row by row to a temporary file
 * and moved into place on close: readers never see half a file.
 */
import {once} from 'node:events'
import {createWriteStream, renameSync, rmSync} from 'node:fs'
import {basename, dirname, extname, join, resolve} from 'node:path'
import type {Writable} from 'node:stream'
import {pipeline} from 'node:stream/promises'

import {stringify} from 'csv-stringify'

import {toDecimal} from '../gateway/protocol/index.js'
import {temporaryBeside} from '../io/private-file.js'
import type {FileKind} from './decoding.js'
import type {TableHeader} from './table.js'

/** An amount in a currency gw knows: a decimal in a CSV, a number with the currency's decimals in a workbook. */
export interface Money {
  minor: number
  currency: string
}

export type Cell = string | number | Money | undefined

/** A second sheet of a workbook output: the run's summary. A CSV output has none. */
export interface SummarySheet {
  header: string[]
  rows: Cell[][]
}

/** Where the cells of each row go: a CSV stringifier, or a workbook. */
export interface RowSink {
  write(cells: Cell[]): Promise<void>
  end(summary?: SummarySheet): Promise<void>
  destroy(): Promise<void>
}

/**
 * A cell as text a spreadsheet will not run: text starting with =, +, -, @, a tab or a
 * carriage return is read as a formula by Excel and others, so it gets a leading ' (OWASP's
 * rule for CSV injection). gw's own numbers are written as they are.
 */
export function spreadsheetSafe(value: Cell): string {
  if (value === undefined) return ''
  if (typeof value === 'number') return String(value)
  if (typeof value === 'object') return toDecimal(value.minor, value.currency)
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
}

/** A file beside the input: `orders.csv` -> `orders.reconciled.csv` for suffix `.reconciled.csv`. */
export function besideInput(input: string, suffix: string): string {
  const absolute = resolve(input)
  return join(dirname(absolute), `${basename(absolute, extname(absolute))}${suffix}`)
}

/** The output to write: the one given, else `NAME<suffix>.csv` or `.xlsx` beside the input, as the input is. */
export const outputFor = (input: string, given: string | undefined, suffix: string, kind: FileKind) =>
  given ?? besideInput(input, `${suffix}.${kind}`)

const isWorkbook = (path: string) => extname(path).toLowerCase() === '.xlsx'

function csvSink(stream: Writable, columns: string[], bom: boolean): RowSink {
  const stringifier = stringify({header: true, columns, bom, record_delimiter: 'unix'})
  const done = pipeline(stringifier, stream)
  return {
    async write(cells) {
      if (!stringifier.write(cells.map(spreadsheetSafe))) await once(stringifier, 'drain')
    },
    async end() {
      stringifier.end()
      await done
    },
    async destroy() {
      stringifier.destroy()
      await done.catch(() => {})
    },
  }
}

export class AnnotatedWriter<C extends string> {
  readonly #width: number
  /** For each of our columns, where it goes: an input column of the same name, or after the input's. */
  readonly #placement: [C, number][]

  private constructor(
    readonly path: string,
    readonly temporary: string,
    readonly sink: RowSink,
    header: TableHeader,
    ours: readonly C[],
  ) {
    this.#width = header.names.length
    const extra = ours.filter((c) => !header.keys.includes(c))
    this.#placement = ours.map((c) => [
      c,
      header.keys.includes(c) ? header.keys.indexOf(c) : this.#width + extra.indexOf(c),
    ])
  }

  /** `sheet`: the name of the workbook's sheet of rows; `bom`: whether a CSV starts with a BOM (unless false, it does). */
  static async open<C extends string>(
    path: string,
    header: TableHeader,
    ours: readonly C[],
    options: {bom?: boolean; sheet: string},
  ): Promise<AnnotatedWriter<C>> {
    const columns = [...header.names, ...ours.filter((c) => !header.keys.includes(c))]
    const temporary = temporaryBeside(path)
    const stream = createWriteStream(temporary, {flags: 'wx', mode: 0o600})
    const sink = isWorkbook(path)
      ? await (await import('./workbook-output.js')).workbookSink(stream, columns, options.sheet)
      : csvSink(stream, columns, options.bom !== false)
    return new AnnotatedWriter(path, temporary, sink, header, ours)
  }

  /** Resolves when the row is buffered; waits when the disk is slower than the rows. */
  async write(values: readonly string[], annotations: Partial<Record<C, Cell>>): Promise<void> {
    const cells: Cell[] = Array.from({length: this.#width}, (_, i) => values[i] ?? '')
    for (const [column, at] of this.#placement) cells[at] = annotations[column]
    await this.sink.write(cells)
  }

  async close(summary?: SummarySheet): Promise<void> {
    await this.sink.end(summary)
    renameSync(this.temporary, this.path)
  }

  async abort(): Promise<void> {
    await this.sink.destroy()
    rmSync(this.temporary, {force: true})
  }
}
