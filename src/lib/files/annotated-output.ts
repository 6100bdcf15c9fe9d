/**
 * Annotated output: every input row with its own columns, plus ours (a bulk refund's status,
 * reconcile's classification). The input's values are never changed: one of ours that is the
 * column gw read as that field fills only its empty cells (a refund number derived where the
 * file left it blank); one named like another column of the input is written as `gw_NAME`.
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
import {checkTableName} from './output-paths.js'
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

/** The output to write: the one given (a CSV, or a workbook when it ends in .xlsx), else `NAME<suffix>.csv` or `.xlsx` beside the input, as the input is. */
export function outputFor(input: string, given: string | undefined, suffix: string, kind: FileKind): string {
  if (given) checkTableName('--out', given)
  return given ?? besideInput(input, `${suffix}.${kind}`)
}

const isWorkbook = (path: string) => extname(path).toLowerCase() === '.xlsx'

interface OutputOptions {
  /** The name of a workbook's sheet of rows. */
  sheet: string
  /** A CSV starts with a BOM unless false. */
  bom?: boolean
  /** A CSV's separator: the input's, so a spreadsheet set for `;` opens it as it opened the input. */
  delimiter?: string
}

function csvSink(stream: Writable, columns: string[], options: OutputOptions): RowSink {
  const {bom = true, delimiter = ','} = options
  const stringifier = stringify({header: true, columns, bom, delimiter, record_delimiter: 'unix'})
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

/** Where each of our columns goes: in place (the input's column for that field), or a new column and its name. */
function placementOf<C extends string>(header: TableHeader, ours: readonly C[]) {
  const taken = new Set(header.keys)
  const added: string[] = []
  const placement = ours.map((column) => {
    const at = header.keys.indexOf(column)
    if (at !== -1 && header.index.get(column) === at) return {column, at, inPlace: true}
    let name: string = column
    while (taken.has(name)) name = `gw_${name}`
    taken.add(name)
    added.push(name)
    return {column, at: header.names.length + added.length - 1, inPlace: false}
  })
  return {placement, added}
}

/** A table of gw's own (a list): its columns and rows, as a CSV or a workbook, in place only once whole. */
export async function writeTable<C extends string>(
  path: string,
  columns: readonly C[],
  rows: Iterable<Partial<Record<C, Cell>>>,
  options: OutputOptions,
): Promise<void> {
  const none = {names: [], keys: [], index: new Map<string, number>(), ignored: [], mapped: new Map<string, string>()}
  const writer = await AnnotatedWriter.open(path, none, columns, options)
  try {
    for (const row of rows) await writer.write([], row)
    await writer.close()
  } catch (error) {
    await writer.abort()
    throw error
  }
}

export class AnnotatedWriter<C extends string> {
  readonly #width: number
  readonly #placement: {column: C; at: number; inPlace: boolean}[]

  private constructor(
    readonly path: string,
    readonly temporary: string,
    readonly sink: RowSink,
    header: TableHeader,
    placement: {column: C; at: number; inPlace: boolean}[],
  ) {
    this.#width = header.names.length
    this.#placement = placement
  }

  static async open<C extends string>(
    path: string,
    header: TableHeader,
    ours: readonly C[],
    options: OutputOptions,
  ): Promise<AnnotatedWriter<C>> {
    const {placement, added} = placementOf(header, ours)
    const columns = [...header.names, ...added]
    const temporary = temporaryBeside(path)
    const stream = createWriteStream(temporary, {flags: 'wx', mode: 0o600})
    const sink = isWorkbook(path)
      ? await (await import('./workbook-output.js')).workbookSink(stream, columns, options.sheet)
      : csvSink(stream, columns, options)
    return new AnnotatedWriter(path, temporary, sink, header, placement)
  }

  /** Resolves when the row is buffered; waits when the disk is slower than the rows. */
  async write(values: readonly string[], annotations: Partial<Record<C, Cell>>): Promise<void> {
    const cells: Cell[] = Array.from({length: this.#width}, (_, i) => values[i] ?? '')
    for (const {column, at, inPlace} of this.#placement) {
      const given = (values[at] ?? '').trim()
      const ours = annotations[column]
      // In place, ours fills an empty cell, or stands for the same value (typed: a number in a workbook).
      if (!inPlace || given === '' || given === spreadsheetSafe(ours)) cells[at] = ours
    }
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
