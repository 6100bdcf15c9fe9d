/**
 * Annotated output: every input row with its own columns, plus ours (a bulk refund's status,
 * reconcile's classification), line for line with the input: lines that are not rows (titles
 * above the header, blank lines, totals) are written where they were. The input's values are
 * never changed: one of ours that is the column gw read as that field fills only its empty cells
 * (a refund number derived where the file left it blank); one named like another column of the
 * input is written as `gw_NAME`; one that is gw's own column of an earlier output fed back in
 * (its status) is written over, in its place.
 * A CSV (UTF-8 with a BOM unless asked not to, so a spreadsheet reads Thai right) or, for a
 * name ending in .xlsx, a workbook (workbook-output). Written row by row to a temporary file
 * and moved into place on close: readers never see half a file.
 */
import {once} from 'node:events'
import {createWriteStream, existsSync, lstatSync, renameSync, rmSync} from 'node:fs'
import {basename, dirname, extname, join, resolve} from 'node:path'
import type {Writable} from 'node:stream'
import {pipeline} from 'node:stream/promises'

import {stringify} from 'csv-stringify'

import type {DecimalMark} from '../gateway/protocol/index.js'
import {type Cell, type RowSink, type SummarySheet, type TypedCells, cellText, isMoney, summaryLines} from './cells.js'
import {ORDER_NUMBER_FIELDS} from '../gateway/protocol/index.js'
import {temporaryBeside} from '../io/private-file.js'
import {RUNS_AS_FORMULA} from '../untrusted.js'
import {usageError} from '../errors.js'
import {checkTableName} from './output-paths.js'
import type {FileKind} from './decoding.js'
import type {TableHeader} from './table.js'

/** `X.report.csv` -> `X.report.summary.csv`. */
const summaryPathOf = (path: string) => besideInput(path, '.summary.csv')

/** A plain decimal number (`-50.00`, `1234`): a spreadsheet reads it as that number and runs nothing. */
const PLAIN_NUMBER = /^-?\d{1,15}(\.\d+)?$/

/** Digits past the 15 a spreadsheet keeps of a number: an identifier (a gw_refund_no), never a number. */
const LONG_DIGITS = /^\d{16,}$/

/**
 * A cell as text a spreadsheet will neither run nor change. Text a spreadsheet may read as a
 * formula (RUNS_AS_FORMULA: starting with =, +, -, @, a tab, a CR or an LF, or spaces before
 * one of = + - @) gets a leading ' (OWASP's rule for CSV injection), the rest of its text kept
 * as it was; a plain number is written as it is. Digits past 15 (a 23-digit
 * refund number) would be read as a number and rounded (9.10202611231944E+22) by LibreOffice's
 * and Excel's default import: a leading tab makes both read the cell as text, which a save keeps.
 */
export function spreadsheetSafe(value: Cell): string {
  const text = cellText(value)
  if (typeof value !== 'string' || PLAIN_NUMBER.test(text)) return text
  if (LONG_DIGITS.test(text)) return `\t${text}`
  return RUNS_AS_FORMULA.test(text) ? `'${text}` : text
}

/**
 * What the summary of a CSV holding such identifiers says of them: measured with LibreOffice
 * 7.4, Gnumeric 1.12 and pandas 1.5, no form of a 23-digit number in a CSV is kept as that text
 * by all three (after a tab: LibreOffice and pandas keep it, with the tab; Gnumeric reads a
 * number and rounds it; an apostrophe: Gnumeric keeps it, LibreOffice and pandas show the
 * apostrophe; invisible characters before it: Gnumeric refuses to open the file). A workbook
 * keeps it in all three.
 */
const TABBED_IDS: Cell[] = [
  'identifiers',
  'numbers of more than 15 digits (gw_refund_no, gw_order_no) are written after a tab: LibreOffice and Excel keep them as text, and a script trims the tab; Gnumeric ignores the tab and rounds them (9.10202611271323E+22): open the .xlsx report there (--out NAME.xlsx)',
]

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

/** What a worksheet holds at most (ECMA-376, and Excel's specifications and limits). */
const WORKBOOK_LIMITS = {columns: 16_384, lines: 1_048_576, cell: 32_767}

/** The size of an annotated output: its columns, its lines, and its longest cell. */
interface OutputSize {
  columns: number
  lines: number
  longest: number
}

/** How many columns an annotated output of `header` with `ours` has. */
export const annotatedWidth = (header: TableHeader, ours: readonly string[]) =>
  header.names.length + placementOf(header, ours).added.length

/**
 * Where an output goes once its size is known, before anything is sent: a workbook that would
 * not fit a worksheet (more than 16,384 columns or 1,048,576 lines, a cell past 32,767
 * characters) is written as CSV beside it when its name was gw's choice (`note` says so), and
 * refused when it was given (`--out`).
 */
export function fittedOutput(path: string, given: boolean, size: OutputSize): {path: string; note?: string} {
  if (!isWorkbook(path)) return {path}
  const n = (count: number) => count.toLocaleString('en-US')
  const past = [
    size.columns > WORKBOOK_LIMITS.columns &&
      `${n(size.columns)} columns, past a worksheet's ${n(WORKBOOK_LIMITS.columns)}`,
    size.lines > WORKBOOK_LIMITS.lines && `${n(size.lines)} lines, past a worksheet's ${n(WORKBOOK_LIMITS.lines)}`,
    size.longest > WORKBOOK_LIMITS.cell &&
      `a cell of ${n(size.longest)} characters, past a worksheet cell's ${n(WORKBOOK_LIMITS.cell)}`,
  ].filter(Boolean)
  if (!past.length) return {path}
  const csv = `${path.slice(0, -extname(path).length)}.csv`
  if (given)
    throw usageError(
      `--out ${path}: the output would have ${past.join(', and ')}: it does not fit a workbook.`,
      `Name it .csv (--out ${basename(csv)}); nothing was sent.`,
    )
  return {path: csv, note: `the output is written as CSV, ${basename(csv)}: it has ${past.join(', and ')}`}
}

const pad = (n: number) => String(n).padStart(2, '0')

/**
 * A report already at `path` (an earlier run's) is never overwritten: it is moved aside under
 * the time it was written, `X.report.2026-11-20T143000.csv` (and its summary with it).
 * Returns where it went.
 */
function keepEarlier(path: string): string | undefined {
  let stat
  try {
    stat = lstatSync(path)
  } catch {
    return undefined
  }
  const t = stat.mtime
  const stamp = `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T${pad(t.getHours())}${pad(t.getMinutes())}${pad(t.getSeconds())}`
  const extension = extname(path)
  let kept = besideInput(path, `.${stamp}${extension}`)
  for (let n = 2; existsSync(kept); n++) kept = besideInput(path, `.${stamp}-${n}${extension}`)
  renameSync(path, kept)
  const summary = summaryPathOf(path)
  if (!isWorkbook(path) && existsSync(summary)) renameSync(summary, summaryPathOf(kept))
  return kept
}

interface OutputOptions {
  /** The name of a workbook's sheet of rows. */
  sheet: string
  /** A CSV starts with a BOM unless false. */
  bom?: boolean
  /** A CSV's separator: the input's, so a spreadsheet set for `;` opens it as it opened the input. */
  delimiter?: string
  /** A CSV's decimal mark for the amounts gw writes: the input's (a decimal comma beside its `;`). */
  decimalMark?: DecimalMark
  /** A report: an earlier file at its path is kept (moved aside under its time), never overwritten. */
  keep?: boolean
  /** Ours that a workbook shows first, right after the input's order number column (a row's status). */
  lead?: readonly string[]
}

/**
 * A workbook's column order: the input's columns up to its order number, then the `lead` ones
 * of ours, then the rest as they are. Undefined when nothing moves.
 */
function workbookOrder(header: TableHeader, placement: Placement<string>[], lead: readonly string[], width: number) {
  const key = Math.min(...ORDER_NUMBER_FIELDS.map((f) => header.index.get(f) ?? Infinity))
  const leading = placement.filter((p) => p.mode === 'new' && lead.includes(p.column)).map((p) => p.at)
  if (!Number.isFinite(key) || !leading.length) return undefined
  const rest = Array.from({length: width}, (_, i) => i).filter((i) => !leading.includes(i))
  return [...rest.slice(0, key + 1), ...leading, ...rest.slice(key + 1)]
}

/** A CSV's rows; `tabbedIds`: whether an identifier was written after a tab (see spreadsheetSafe). */
interface CsvSink extends RowSink {
  readonly tabbedIds: boolean
}

function csvSink(stream: Writable, options: OutputOptions): CsvSink {
  const {bom = true, delimiter = ','} = options
  let tabbedIds = false
  const comma = options.decimalMark === 'comma'
  const safe = (cell: Cell) => {
    // gw's amounts as the file writes its own: with a decimal comma where it does.
    const text = comma && isMoney(cell) ? cellText(cell).replace('.', ',') : spreadsheetSafe(cell)
    if (!tabbedIds && text.charCodeAt(0) === 9) tabbedIds = LONG_DIGITS.test(text.slice(1))
    return text
  }
  // A field holding a lone CR is quoted too (csv-stringify quotes only its own record delimiter
  // when one is given): unquoted, every CSV reader would end the row there.
  const stringifier = stringify({bom, delimiter, record_delimiter: 'unix', quote_record_delimiter: true})
  const done = pipeline(stringifier, stream)
  // Said when the sink ends (or is destroyed); until then a failed write must not end gw as unhandled.
  done.catch(() => {})
  return {
    get tabbedIds() {
      return tabbedIds
    },
    // The header is the input's own text too: neutralised like every other cell.
    async write(cells) {
      // A write that failed while gw was between rows (a full disk) is said here, not waited on.
      if (!stringifier.write(cells.map(safe))) await Promise.race([once(stringifier, 'drain'), done])
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

const reorder = <T>(items: T[], order: number[] | undefined): T[] => (order ? order.map((i) => items[i]!) : items)

/**
 * Where one of our columns goes: `fill`, the input's column for that field (its empty cells);
 * `replace`, gw's own column of an earlier output fed back in; `new`, a column of its own.
 */
interface Placement<C extends string> {
  column: C
  at: number
  mode: 'fill' | 'replace' | 'new'
}

function placementOf<C extends string>(header: TableHeader, ours: readonly C[]) {
  const taken = new Set(header.keys)
  const added: string[] = []
  const placement = ours.map((column): Placement<C> => {
    const at = header.keys.indexOf(column)
    if (at !== -1 && header.index.get(column) === at) return {column, at, mode: 'fill'}
    const earlier = header.gwColumns.find((i) => new RegExp(`^(gw_)*${column}$`).test(header.keys[i]!))
    if (earlier !== undefined) return {column, at: earlier, mode: 'replace'}
    let name: string = column
    while (taken.has(name)) name = `gw_${name}`
    taken.add(name)
    added.push(name)
    return {column, at: header.names.length + added.length - 1, mode: 'new'}
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
  const table = await openTable(path, columns, options)
  try {
    for (const row of rows) await table.write(row)
    await table.close()
  } catch (error) {
    await table.abort()
    throw error
  }
}

/** A table of gw's own columns only, written a row at a time as rows come (a list streamed from the history). */
export async function openTable<C extends string>(path: string, columns: readonly C[], options: OutputOptions) {
  const none = {
    names: [],
    keys: [],
    index: new Map<string, number>(),
    ignored: [],
    mapped: new Map<string, string>(),
    gwColumns: [],
    hidden: new Map<number, string>(),
    unseen: [],
  }
  const writer = await AnnotatedWriter.open(path, none, columns, options)
  return {
    write: (row: Partial<Record<C, Cell>>) => writer.write({values: []}, row),
    close: () => writer.close(),
    abort: () => writer.abort(),
  }
}

export class AnnotatedWriter<C extends string> {
  readonly #width: number
  readonly #placement: Placement<C>[]
  /** The header row, written before the first row (after the lines above it). */
  #header: string[] | undefined
  /** Where each written column comes from, when a workbook shows ours first. */
  readonly #order?: number[]

  private constructor(
    readonly path: string,
    readonly temporary: string,
    readonly sink: RowSink,
    header: TableHeader,
    columns: string[],
    placement: Placement<C>[],
    readonly options: OutputOptions,
    order: number[] | undefined,
  ) {
    this.#width = header.names.length
    this.#header = columns
    this.#placement = placement
    this.#order = order
  }

  static async open<C extends string>(
    path: string,
    header: TableHeader,
    ours: readonly C[],
    options: OutputOptions,
  ): Promise<AnnotatedWriter<C>> {
    const {placement, added} = placementOf(header, ours)
    const columns = [...header.names, ...added]
    const order = isWorkbook(path) ? workbookOrder(header, placement, options.lead ?? [], columns.length) : undefined
    // Opened here, so a folder that is gone or not writable is this call's error, not a stream's later.
    const {temporary, fd} = temporaryBeside(path)
    const stream = createWriteStream(temporary, {fd})
    const sink = isWorkbook(path)
      ? await (await import('./workbook-output.js')).workbookSink(stream, options.sheet)
      : csvSink(stream, options)
    return new AnnotatedWriter(path, temporary, sink, header, columns, placement, options, order)
  }

  /** The input's line with ours, as a row of cells (in a workbook, its number and date cells as typed). */
  #cells({values, typed}: {values: readonly string[]; typed?: TypedCells}, annotations: Partial<Record<C, Cell>>) {
    const cells: Cell[] = Array.from({length: this.#width}, (_, i) => values[i] ?? '')
    if (typed && isWorkbook(this.path)) for (const cell of typed) if (cell.at < this.#width) cells[cell.at] = cell
    for (const {column, at, mode} of this.#placement) {
      const given = (values[at] ?? '').trim()
      const ours = annotations[column]
      // In the field's column, ours fills an empty cell, or stands for the same value (typed: a number in a workbook).
      if (mode !== 'fill' || given === '' || given === cellText(ours)) cells[at] = ours
    }
    return reorder(cells, this.#order)
  }

  /** A line above the header (a title of the input), with ours; before any row. */
  async writeAbove(line: {values: readonly string[]; typed?: TypedCells}, annotations: Partial<Record<C, Cell>>) {
    if (!this.#header) throw new Error('a line above the header is written before the rows')
    await this.sink.write(this.#cells(line, annotations))
  }

  async #writeHeader() {
    if (!this.#header) return
    const header = reorder(this.#header, this.#order)
    this.#header = undefined
    await this.sink.write(header, true)
  }

  /**
   * Writes the input's row (its values, and in a workbook its number and date cells as typed)
   * with ours, after the header. Resolves when the row is buffered; waits when the disk is
   * slower than the rows.
   */
  async write(line: {values: readonly string[]; typed?: TypedCells}, annotations: Partial<Record<C, Cell>>) {
    await this.#writeHeader()
    await this.sink.write(this.#cells(line, annotations))
  }

  /** Puts the output (and a CSV's summary beside it) in place; resolves to where an earlier one at its path was kept. */
  async close(summary?: SummarySheet): Promise<string | undefined> {
    await this.#writeHeader()
    await this.sink.end(summary)
    let summaryTemporary: string | undefined
    if (summary && !isWorkbook(this.path)) {
      const opened = temporaryBeside(summaryPathOf(this.path))
      summaryTemporary = opened.temporary
      const stream = createWriteStream(summaryTemporary, {fd: opened.fd})
      const sink = csvSink(stream, this.options)
      for (const line of summaryLines(summary)) await sink.write(line)
      if ('tabbedIds' in this.sink && this.sink.tabbedIds) for (const line of [[], TABBED_IDS]) await sink.write(line)
      await sink.end()
    }
    const kept = this.options.keep ? keepEarlier(this.path) : undefined
    renameSync(this.temporary, this.path)
    if (summaryTemporary) renameSync(summaryTemporary, summaryPathOf(this.path))
    return kept
  }

  async abort(): Promise<void> {
    await this.sink.destroy()
    rmSync(this.temporary, {force: true})
  }
}
