/** What a table read from a file is: its rows, its header, how it was read, and how it is to be read. */
import type {AmountContext, DecimalMark} from '../gateway/protocol/index.js'
import type {TypedCells} from './cells.js'
import type {Columns} from './columns.js'
import type {ColumnMark} from './decimal-marks.js'
import type {FileKind} from './decoding.js'
import type {CellNote} from './workbook-cells.js'
import type {WorkbookRecord} from './workbook-rows.js'

export interface TableRow {
  /** The line the record starts on (the header is line 1); in a workbook, the sheet's row number. */
  line: number
  /** The line it ends on (a CSV field may hold line ends); `line` for most. */
  end: number
  values: string[]
  /** Fields past the header's columns that hold something: a row that does not fit its header. */
  extra: number
  /** The value of a field, from its column; '' when the file has none or the cell is empty. */
  get(field: string): string
  /** Whether the file has a column for the field. */
  has(field: string): boolean
  /** Whether the field's cell is a workbook number past 15 digits, which Excel cannot hold exactly. */
  inexact(field: string): boolean
  /** What a workbook cell holds when it is not text (its number, a percentage, a date, a formula without result). */
  note(field: string): CellNote | undefined
  /** The fields read from formulas without a stored result, with their cells. */
  formulas(): {field: string; address: string}[]
  /** A workbook's number and date cells as typed, by column (for a workbook report). */
  typed?: TypedCells
  /** How an amount field's text is read: its column's decimal mark as settled when the row was let go, the file's yen sign. */
  amountContext(field: string): AmountContext
  /** Why the sheet does not show the row: hidden, filtered out, collapsed; undefined when it shows it. */
  hidden?: string
  /** The row is shown struck through (a cell gw reads, or every filled cell): which cells. */
  struck?: string
  /** The merged range a field's cell is covered by (its value is in the range's first cell only). */
  merged(field: string): string | undefined
  /** The comments on the row's cells, any column (a workbook's notes and threads, an .ods annotation). */
  comments?: SheetComment[]
}

/** A comment on a cell of the sheet: its line, its cell (`C3`) and its text. */
export interface SheetComment {
  line: number
  cell: string
  text: string
}

export interface TableHeader extends Columns {
  /** The line the header is on (rows above it are titles); 1 when not said. */
  line?: number
  /** As written in the file. */
  names: string[]
  /** Lower case, trimmed. */
  keys: string[]
  /** Columns of gw's own earlier output in a file fed back in (its status, advice): not the file's data, not read. */
  gwColumns: number[]
  /** Columns the sheet hides (hidden, collapsed, of zero width), with why: never read by their name. */
  hidden: ReadonlyMap<number, string>
  /** Fields whose column the sheet hides: found by name (and not read), or named by --column. */
  unseen: UnseenColumn[]
}

/** A field whose column the person cannot see: its position, its header, why it is hidden, and whether --column named it. */
export interface UnseenColumn {
  field: string
  at: number
  name: string
  why: string
  mapped?: boolean
}

/** How the file was read, for notes and --json. */
export interface TableSource {
  kind: FileKind
  /** CSV: its encoding and separator. */
  encoding?: string
  delimiter?: string
  /** Workbook: the sheet read, all its visible sheets, and the one it opens on (its active tab). */
  sheet?: string
  sheets?: string[]
  active?: string
  /** Rows above the header, skipped as titles: their line and their text. */
  titles?: {line: number; text: string}[]
  /** Text that decodes to characters unusual in the encoding given: an example line. */
  unusual?: {line: number; text: string}
  /** The decimal mark of each amount column, as it was settled while the rows were read (decimal-marks). */
  marks: ColumnMark[]
  /** Conditional formats of the sheet that can strike or hide cells and that gw cannot evaluate, in words. */
  unevaluated?: string[]
  /** Cells with some runs of their text struck through (not cells gw reads: those are rows not read), filled as the rows are read. */
  partlyStruck?: string[]
  /** Comments on cells of no row (a title, the header, a line of nothing else), filled as the rows are read. */
  looseComments?: SheetComment[]
}

/** A line of the file that is not a row: above the header (a title), or blank. */
export interface TableLine {
  line: number
  values: string[]
  typed?: TypedCells
}

/** A table: how it was read, its header, the lines above it, then its rows, streamed. */
export interface Table {
  source: TableSource
  header: TableHeader
  /** The lines above the header that hold something (titles), in order. */
  above: TableLine[]
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
  /** The line of the header (--header-row); else the first of the first HEADER_SEARCH rows that holds `required`. */
  'header-row'?: number
  /** Groups of fields the header must hold one of each (the order numbers; the amounts), to be found. */
  required?: readonly (readonly string[])[]
  /** The column sets of gw's own outputs the command may be given back (gwColumnsOf). */
  outputs?: readonly (readonly string[])[]
  /** The fields holding amounts as text, whose decimal mark is settled by their column (decimal-marks). */
  amounts?: readonly string[]
  /** --decimal-mark: every amount column's mark, given. */
  'decimal-mark'?: DecimalMark
  /** Other names fields answer to (normalised) when no column has their own; never a column of gw's own earlier output. */
  aliases?: Readonly<Record<string, readonly string[]>>
  /** --include-hidden: rows the sheet hides or strikes through are read as any other. */
  'include-hidden'?: boolean
}

/** A record of either kind of file: its fields, its line, and (in a workbook) what its cells hold and how they look. */
export type SourceRecord = WorkbookRecord
