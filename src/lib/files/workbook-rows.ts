/**
 * What the readers of both workbook formats share (xlsx-sheets, ods-sheets): a row as gw reads
 * it, built cell by cell, with the columns' letters, the sheets a workbook lists, and the merged
 * ranges over its cells.
 */
import type {SaxesTagPlain} from 'saxes'

import type {TypedCells} from './cells.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import type {CellNote, ReadCell} from './workbook-cells.js'
import type {CellColours} from './rule-effects.js'
import type {ZipParts} from './zip-parts.js'

/** A row of a sheet: its cells as text, its row number, which cells hold a number past 15 digits, and cells by value. */
export interface WorkbookRecord {
  record: string[]
  line: number
  /** The last line of a CSV record with line ends inside its quotes (a workbook's row is one line). */
  end?: number
  inexact?: number[]
  /** Cells that are not text, by column: amounts are read from these. */
  notes?: Record<number, CellNote>
  /** The number and date cells as typed, by column: a workbook report writes them back as they were. */
  typed?: TypedCells
  /** The row is not shown: why ("hidden", "filtered out by the filter on column D", "collapsed"). */
  hidden?: string
  /** Cells struck through, by column. */
  struck?: number[]
  /** Cells with some runs of their text struck through, not all, by column. */
  partlyStruck?: number[]
  /** Cells that look empty (white on white, a format or conditional format showing nothing: `;;;`), by column. */
  blanked?: number[]
  /** Cells with some runs of their text written white on white, not all, by column: they show less than they hold. */
  partlyBlanked?: number[]
  /** Of the blanked cells, those a rule paints in a colour gw cannot tell (colours' UNTOLD): said so. */
  untold?: number[]
  /** Of the small cells, those shrunk to fit a column too narrow for their text: said so. */
  shrunk?: number[]
  /** Cells written in a font too small to read (colours' tooSmall), by column; and those of some runs so written. */
  small?: number[]
  partlySmall?: number[]
  /** On a sheet's first row only: what the sheet says of itself (the columns it hides, formats gw cannot evaluate). */
  facts?: SheetFacts
  /** Cells covered by merged cells (empty but for the first), by column: the merged range. */
  merged?: Record<number, string>
  /** The comments on its cells (a note or a thread of Excel's, an .ods annotation), each with its column. */
  comments?: {at: number; text: string}[]
}

/**
 * Why a column narrower than a digit is hidden: it shows no number whole (LibreOffice keeps a
 * column dragged shut at 0.0008in, and saves it as an .xlsx width of 0.01).
 */
export const NARROWER_THAN_A_DIGIT = 'narrower than a digit'

/** What a sheet says of all its rows: the columns it hides (hidden, collapsed, zero width) with why, and conditional formats gw cannot evaluate. */
export interface SheetFacts {
  hiddenColumns: Record<number, string>
  unevaluated: string[]
}

/** A sheet of the workbook: its name, whether it is shown, and where its rows are. */
export interface SheetEntry {
  name: string
  hidden: boolean
  part: string
}

/** A tag's name without its namespace prefix (`x:row` and `row` alike). */
export const local = (tag: SaxesTagPlain | string) => {
  const name = typeof tag === 'string' ? tag : tag.name
  return name.slice(name.indexOf(':') + 1)
}
export const attr = (tag: SaxesTagPlain, name: string) => tag.attributes[name]

/** Parses a whole (small) part with `handlers`. */
export async function parseAll(zip: ZipParts, name: string, handlers: Parameters<ZipParts['parse']>[1]) {
  for await (const _ of zip.parse(name, handlers)) void _
}

/** A column's letters (0-based column 3 is D). */
export function columnLetters(column: number): string {
  let letters = ''
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters
  return letters
}

/** Column number (0-based) of a cell reference such as `AB12`. */
export function columnOf(ref: string): number | undefined {
  const letters = /^[A-Z]+/i.exec(ref)?.[0]
  if (!letters) return undefined
  let n = 0
  for (const c of letters.toUpperCase()) n = n * 26 + (c.charCodeAt(0) - 64)
  return n - 1
}

/**
 * The first and last row and column (0-based columns) of a range such as `A1:D7`, or of whole
 * columns (`A:C`) or rows (`2:5`), as Excel writes a conditional format set on whole columns.
 */
export function rangeOf(ref: string): {top: number; bottom: number; left: number; right: number} | undefined {
  const [from, to = from] = ref.split(':') as [string, string | undefined]
  const row = (cell: string, whole: number) => (/^[A-Z]+$/i.test(cell) ? whole : Number(/\d+$/.exec(cell)?.[0] ?? NaN))
  const column = (cell: string, whole: number) => (/^\d+$/.test(cell) ? whole : columnOf(cell))
  const [top, bottom, left, right] = [row(from, 1), row(to!, 1_048_576), column(from, 0), column(to!, 16_383)]
  if (!Number.isFinite(top) || !Number.isFinite(bottom) || left === undefined || right === undefined) return undefined
  return {top, bottom, left, right}
}

/** Merged ranges of a sheet: the cells each covers beside its first (which alone holds the value). */
export class MergedCells {
  readonly #byRow = new Map<number, Record<number, string>>()
  /** Each range's last line, by its first cell (`line:column`). */
  readonly #bottoms = new Map<string, number>()

  constructor(refs: readonly string[] = []) {
    for (const ref of refs) this.add(ref)
  }

  /** A merged range such as `A5:B6`. */
  add(ref: string): void {
    const range = rangeOf(ref)
    // A range of a whole column or more is not a merge of cells a row holds.
    if (!range || (range.bottom - range.top + 1) * (range.right - range.left + 1) > 100_000) return
    this.#bottoms.set(`${range.top}:${range.left}`, range.bottom)
    for (let line = range.top; line <= range.bottom; line++)
      for (let column = range.left; column <= range.right; column++) {
        if (line === range.top && column === range.left) continue
        const covered = this.#byRow.get(line) ?? {}
        covered[column] = ref
        this.#byRow.set(line, covered)
      }
  }

  /**
   * Comments (on a line, at a column) with each one on a merged cell repeated on every line below
   * it that the cell covers: a person reads the merged cell, and its comment, beside each of them.
   */
  spread<T extends {line: number; at: number}>(comments: T[]): T[] {
    return comments
      .flatMap((comment) => {
        const bottom = this.#bottoms.get(`${comment.line}:${comment.at}`) ?? comment.line
        return Array.from({length: bottom - comment.line + 1}, (_, below) => ({...comment, line: comment.line + below}))
      })
      .sort((a, b) => a.line - b.line || a.at - b.at)
  }

  /** Comments spread onto lines not yet read: an .ods says a merge at its first cell, as its rows come. */
  #carried: {line: number; at: number; text: string}[] = []

  /** The comments `texts` on cell (`line`, `at`) for that line; those for the lines below it that a merge there covers kept for carried. */
  commentsOn(line: number, at: number, texts: string[]): {at: number; text: string}[] {
    const spread = this.spread(texts.map((text) => ({line, at, text})))
    this.#carried.push(...spread.filter((comment) => comment.line > line))
    return spread.flatMap((comment) => (comment.line === line ? [{at, text: comment.text}] : []))
  }

  /** The comments carried onto `line` from a merged cell above it (commentsOn), let go once taken. */
  carried(line: number): {at: number; text: string}[] {
    const here = this.#carried.flatMap((comment) =>
      comment.line === line ? [{at: comment.at, text: comment.text}] : [],
    )
    this.#carried = this.#carried.filter((comment) => comment.line > line)
    return here
  }

  coveredIn(line: number): Record<number, string> | undefined {
    return this.#byRow.get(line)
  }

  /** Lets go of a line read: a sheet's ranges are held only until their rows are. */
  forget(line: number): void {
    this.#byRow.delete(line)
  }
}

/** A row being built: cells by column, then a record with trailing empty cells dropped. */
export class RowBuilder {
  cells: string[] = []
  notes: Record<number, CellNote> = {}
  inexact: number[] = []
  typed: TypedCells = []
  struck: number[] = []
  partlyStruck: number[] = []
  blanked: number[] = []
  partlyBlanked: number[] = []
  small: number[] = []
  partlySmall: number[] = []
  untold?: number[]
  shrunk?: number[]
  /** The colours of its cells, where the sheet's rules may colour them (conditional-formats' markRow). */
  colours?: Map<number, CellColours>
  hasNotes = false
  hidden?: string
  comments: {at: number; text: string}[] = []

  constructor(
    readonly path: string,
    readonly line: number,
  ) {}

  set(column: number, cell: ReadCell) {
    if (cell.text.length > MAX_FIELD) throw fieldTooLong(this.path, this.line, column + 1, cell.text.length)
    while (this.cells.length < column) this.cells.push('')
    this.cells[column] = cell.text
    if (cell.note) {
      this.notes[column] = cell.note
      this.hasNotes = true
    }
    if (cell.inexact) this.inexact.push(column)
    if (cell.typed !== undefined) this.typed.push({at: column, ...cell.typed})
    if (cell.struck) this.struck.push(column)
    if (cell.partlyStruck) this.partlyStruck.push(column)
    if (cell.partlyBlanked) this.partlyBlanked.push(column)
    if (cell.partlySmall) this.partlySmall.push(column)
  }

  /** `covered`: the cells of this row that merged ranges cover beside their first. */
  record(covered?: Record<number, string>): WorkbookRecord | undefined {
    const record = this.cells
    while (record.length && record.at(-1)!.trim() === '' && this.notes[record.length - 1] === undefined) record.pop()
    // A line of nothing but a comment is kept: the comment is read wherever it stands.
    if (!record.length) return this.comments.length ? {record, line: this.line, comments: this.comments} : undefined
    return {
      record,
      line: this.line,
      ...(this.hidden ? {hidden: this.hidden} : {}),
      ...(this.struck.length ? {struck: this.struck} : {}),
      ...(this.partlyStruck.length ? {partlyStruck: this.partlyStruck} : {}),
      ...(this.blanked.length ? {blanked: this.blanked} : {}),
      ...(this.partlyBlanked.length ? {partlyBlanked: this.partlyBlanked} : {}),
      ...(this.untold ? {untold: this.untold} : {}),
      ...(this.shrunk ? {shrunk: this.shrunk} : {}),
      ...(this.small.length ? {small: this.small} : {}),
      ...(this.partlySmall.length ? {partlySmall: this.partlySmall} : {}),
      ...(covered ? {merged: covered} : {}),
      ...(this.inexact.length ? {inexact: this.inexact} : {}),
      ...(this.hasNotes ? {notes: this.notes} : {}),
      ...(this.typed.length ? {typed: this.typed.filter((t) => t.at < record.length)} : {}),
      ...(this.comments.length ? {comments: this.comments} : {}),
    }
  }
}
