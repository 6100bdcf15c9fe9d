/**
 * The rows of one .xlsx sheet, streamed from its part: its columns (hidden, of zero width or
 * narrower than a digit), its rows (hidden by hand, of zero height, in a collapsed group, outside
 * an autofilter's selection), and each cell as its format shows it, struck (by its font, a
 * conditional format or every run of its text) or written white on white marked.
 */
import {markRow} from './conditional-formats.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {showText} from './shown-number.js'
import {type AutoFilter, sheetTail} from './xlsx-tail.js'
import {type CellComment, sheetComments} from './xlsx-comments.js'
import {shrunkTooSmall} from './colours.js'
import {NO_MARKS, type RunMarks, RunStrikes} from './xlsx-strings.js'
import {type CellStyles, isTrue} from './xlsx-styles.js'
import {type ReadCell, dateText, fromWorkbookText, isSubtotal, numberCell} from './workbook-cells.js'
import {
  NARROWER_THAN_A_DIGIT,
  RowBuilder,
  type SheetEntry,
  type WorkbookRecord,
  attr,
  columnLetters,
  columnOf,
  local,
} from './workbook-rows.js'
import type {SaxesTagPlain} from 'saxes'

import type {XmlHandlers, ZipParts} from './zip-parts.js'

/** What the workbook says of every sheet: its shared strings, their runs' marks, its styles and date system. */
export interface XlsxBook {
  strings: string[]
  marks: Map<number, RunMarks>
  styles: CellStyles
  /** The workbook's theme colours (xlsx-styles' themeColours), which a run's colour may name. */
  theme: readonly string[]
  date1904: boolean
  /** Marked to be calculated when opened: a formula's stored value is a placeholder, not its result. */
  uncalculated: boolean
}

/**
 * Why a row is not shown: outside an autofilter's selection (where the filter lists the values
 * it shows, a value it does not list, hidden by Excel or saved without its rows hidden; where it
 * filters otherwise, hidden within its range), hidden in a collapsed group, or hidden by hand.
 * Undefined when it is shown.
 */
function whyHidden(
  row: RowBuilder,
  hidden: string | undefined,
  grouped: boolean,
  filter: AutoFilter | undefined,
): string | undefined {
  const filtering = filter && row.line > filter.top && row.line <= filter.bottom ? filter.columns : []
  const outside =
    filtering.find(({column, values, blank}) => {
      if (!values) return false
      const text = (row.cells[column] ?? '').trim()
      return text === '' ? !blank : !values.has(text.toLowerCase())
    }) ?? (hidden ? filtering.find(({values}) => !values) : undefined)
  if (outside) return `filtered out by the filter on column ${columnLetters(outside.column)}`
  if (!hidden) return undefined
  return grouped && hidden === 'hidden' ? 'hidden (in a collapsed group of rows)' : hidden
}

/** Excel's default column width, in digits of the default font (8.43). */
const DEFAULT_WIDTH = 8.43

/** Why a `<col>` hides its columns: hidden (in a group or by hand), of zero width, narrower than a digit. */
function columnHidden(tag: SaxesTagPlain): string | undefined {
  const width = attr(tag, 'width')
  if (isTrue(tag, 'hidden'))
    return Number(attr(tag, 'outlineLevel') ?? 0) > 0 ? 'hidden (in a collapsed group of columns)' : 'hidden'
  if (width !== undefined && Number(width) === 0) return 'zero width'
  // Excel's width unit is a digit of its default font.
  if (width !== undefined && Number(width) < 1) return NARROWER_THAN_A_DIGIT
  return undefined
}

/** A cell as its part holds it, while its tags are read. */
interface XlsxCell {
  type: string
  style: number
  ref: string
  value: string
  formula: string
  hasValue: boolean
  text: string
}

const emptyCell = (): XlsxCell => ({type: 'n', style: 0, ref: '', value: '', formula: '', hasValue: false, text: ''})

/** One sheet's part read as its tags come: each row, once closed, a record in `ready`. */
class SheetReader {
  /** Columns the sheet hides (`<col hidden>`, of zero width), with why. */
  readonly #hiddenColumns: Record<number, string> = {}
  /** Rows are of zero height unless they say their height (`sheetFormatPr zeroHeight`). */
  #zeroHeight = false
  #first = true
  #row: RowBuilder | undefined
  #rowHidden: string | undefined
  #rowGrouped = false
  /** The style a cell that names none takes: its row's (`customFormat`), else its column's. */
  #rowStyle: number | undefined
  readonly #columnStyles: Record<number, number> = {}
  /** Column widths in Excel's unit (a digit of the default font), where the sheet says them; else the sheet's default. */
  readonly #widths: Record<number, number> = {}
  #defaultWidth = DEFAULT_WIDTH
  #lastLine = 0
  #column = -1
  #cell = emptyCell()
  #capture: 'v' | 't' | 'f' | undefined
  #inInline = false
  #phonetic = 0
  readonly #runs: RunStrikes
  /** Each cell's number, for the conditional formats that compare one (by column, this row). */
  #numbers: Record<number, number> = {}
  readonly ready: WorkbookRecord[] = []
  /** The comments on the sheet's cells not yet placed on their rows, in the order of their lines. */
  readonly #comments: CellComment[]
  /** The sheet has rules that colour cells (a fill, a font colour). */
  readonly #paints: boolean

  constructor(
    readonly path: string,
    readonly book: XlsxBook,
    readonly tail: Awaited<ReturnType<typeof sheetTail>>,
    comments: CellComment[],
  ) {
    this.#comments = comments
    this.#runs = new RunStrikes(book.theme)
    this.#paints = tail.rules.some((rule) => typeof rule.effect === 'object' && 'paints' in rule.effect)
  }

  /** The first comment not yet placed (an index, not a shift: a sheet may hold a comment a row). */
  #nextComment = 0

  /** The comments of lines before `line`, each line of them a row of its own (a comment on a line with no cell). */
  commentsBefore(line: number): void {
    for (let next = this.#comments[this.#nextComment]; next && next.line < line;) {
      const row = new RowBuilder(this.path, next.line)
      this.#commentsOf(row)
      this.#push(row.record())
      next = this.#comments[this.#nextComment]
    }
  }

  /** The comments of `row`'s line, placed on it. */
  #commentsOf(row: RowBuilder): void {
    for (let next = this.#comments[this.#nextComment]; next?.line === row.line;) {
      row.comments.push({at: next.at, text: next.text})
      next = this.#comments[++this.#nextComment]
    }
  }

  readonly handlers: XmlHandlers = {
    open: (tag) => this.#open(tag),
    close: (name) => this.#close(local(name)),
    text: (text) => this.#text(text),
  }

  #open(tag: SaxesTagPlain): void {
    const name = local(tag)
    switch (name) {
      case 'sheetFormatPr':
        this.#zeroHeight = isTrue(tag, 'zeroHeight')
        this.#defaultWidth = Number(attr(tag, 'defaultColWidth') ?? NaN) || DEFAULT_WIDTH
        break
      case 'col':
        this.#columns(tag)
        break
      case 'row':
        this.#openRow(tag)
        break
      case 'c': {
        const ref = attr(tag, 'r') ?? ''
        this.#column = columnOf(ref) ?? this.#column + 1
        const own = attr(tag, 's')
        const style = own === undefined ? (this.#rowStyle ?? this.#columnStyles[this.#column] ?? 0) : Number(own)
        this.#cell = {...emptyCell(), type: attr(tag, 't') ?? 'n', style, ref}
        break
      }
      case 'v':
        this.#capture = 'v'
        this.#cell.hasValue = true
        break
      case 'f':
        // A shared formula's other cells have an empty f: still a formula.
        this.#cell.formula = ' '
        this.#capture = 'f'
        break
      case 'is':
        this.#inInline = true
        this.#cell.hasValue = true
        break
      case 'rPh':
        this.#phonetic++
        break
      case 't':
        if (this.#inInline && !this.#phonetic) this.#capture = 't'
        break
    }
    if (this.#inInline) this.#runs.open(name, tag)
  }

  #columns(tag: SaxesTagPlain): void {
    const [min, max] = [Number(attr(tag, 'min') ?? 0), Number(attr(tag, 'max') ?? 0)]
    const why = columnHidden(tag)
    const style = Number(attr(tag, 'style') ?? 0)
    const width = Number(attr(tag, 'width') ?? NaN)
    // A <col> of Excel's every column (1 to 16384) is a width for the sheet, not a list to spell out.
    if (why || style || width >= 0)
      for (let at = Math.max(min, 1); at <= Math.min(max, min + 16_384); at++) {
        if (why) this.#hiddenColumns[at - 1] = why
        if (style) this.#columnStyles[at - 1] = style
        if (width >= 0) this.#widths[at - 1] = width
      }
  }

  #openRow(tag: SaxesTagPlain): void {
    this.#lastLine = Number(attr(tag, 'r') ?? this.#lastLine + 1)
    this.commentsBefore(this.#lastLine)
    this.#row = new RowBuilder(this.path, this.#lastLine)
    this.#numbers = {}
    const height = attr(tag, 'ht')
    this.#rowHidden = isTrue(tag, 'hidden')
      ? 'hidden'
      : (height !== undefined && Number(height) === 0) || (this.#zeroHeight && !isTrue(tag, 'customHeight'))
        ? 'hidden (zero height)'
        : undefined
    this.#rowGrouped = Number(attr(tag, 'outlineLevel') ?? 0) > 0
    this.#rowStyle = isTrue(tag, 'customFormat') ? Number(attr(tag, 's') ?? 0) : undefined
    this.#column = -1
  }

  #close(name: string): void {
    if (this.#inInline) this.#runs.close(name)
    switch (name) {
      case 'v':
      case 't':
      case 'f':
        this.#capture = undefined
        break
      case 'is':
        this.#inInline = false
        break
      case 'rPh':
        this.#phonetic--
        break
      case 'c':
        this.#closeCell()
        break
      case 'row':
        this.#closeRow()
        break
    }
  }

  #text(text: string): void {
    const cell = this.#cell
    if (this.#capture === 'v') cell.value += text
    else if (this.#capture === 't') {
      cell.text += text
      this.#runs.text(text)
    } else if (this.#capture === 'f' && cell.formula.length < 64) cell.formula += text
    if (cell.value.length + cell.text.length > MAX_FIELD)
      throw fieldTooLong(this.path, this.#lastLine, this.#column + 1, cell.value.length + cell.text.length)
  }

  /** The cell as it is shown, and how much of its text is struck. */
  #read(row: RowBuilder): {read: ReadCell; marks: RunMarks} {
    const {book} = this
    const cell = this.#cell
    const {type, value, text} = cell
    // A text is shown through its format's text section too (`;;;` shows nothing, a fourth section words).
    const shownText = (held: string) => showText(held, book.styles.numbers[cell.style]?.code)
    if (cell.formula && (book.uncalculated || !cell.hasValue || (value === '' && type !== 'str')))
      return {
        read: {text: '', note: {kind: 'formula', address: cell.ref || `${row.line}:${this.#column + 1}`}},
        marks: NO_MARKS,
      }
    if (type === 's')
      return {
        read: {text: shownText(book.strings[Number(value)] ?? '')},
        marks: book.marks.get(Number(value)) ?? NO_MARKS,
      }
    if (type === 'inlineStr') return {read: {text: shownText(fromWorkbookText(text))}, marks: this.#runs.take()}
    if (type === 'str') return {read: {text: shownText(fromWorkbookText(value))}, marks: NO_MARKS}
    if (type === 'e') return {read: {text: value}, marks: NO_MARKS}
    if (type === 'b') return {read: {text: value === '1' ? 'TRUE' : 'FALSE'}, marks: NO_MARKS}
    if (type === 'd')
      return {read: {text: dateText(new Date(`${value.replace(/Z?$/, '')}Z`)), note: {kind: 'date'}}, marks: NO_MARKS}
    const read = value.trim() === '' ? {text: ''} : numberCell(value, book.styles.numbers[cell.style], book.date1904)
    if (read.note?.kind === 'number') {
      this.#numbers[this.#column] = Number(read.note.value)
      if (isSubtotal(cell.formula)) read.note.subtotal = true
    }
    return {read, marks: NO_MARKS}
  }

  #closeCell(): void {
    const row = this.#row
    if (!row) return
    const {styles} = this.book
    const style = this.#cell.style
    const {read, marks} = this.#read(row)
    if (read.text !== '' && (styles.struck[style] || marks.strike === 'all')) read.struck = true
    else if (read.text !== '' && marks.strike === 'part') read.partlyStruck = true
    // White on white (the cell's font, or every run of its text, on no fill): the cell looks empty, as under `;;;`.
    const white = styles.filled[style] ? 'none' : marks.white
    if (read.text.trim() !== '' && white === 'part') read.partlyBlanked = true
    if (read.text.trim() !== '' && marks.small === 'part' && !styles.small[style]) read.partlySmall = true
    if (read.text !== '' || read.note) row.set(this.#column, read)
    const unseen = styles.unseen[style] || white === 'all'
    if (read.text.trim() !== '' && unseen) row.blanked.push(this.#column)
    // Where the sheet's rules colour cells, each cell's colours, for them to be drawn on (white runs as white text).
    if (this.#paints && read.text.trim() !== '') {
      const {text, ground} = styles.colours[style] ?? {}
      ;(row.colours ??= new Map()).set(this.#column, {
        text: white === 'all' ? 'ffffff' : text,
        ground,
        byColour: unseen,
      })
    }
    const shrunk = shrunkTooSmall(read.text, styles.shrink[style], this.#widths[this.#column] ?? this.#defaultWidth)
    if (shrunk) (row.shrunk ??= []).push(this.#column)
    if (read.text.trim() !== '' && (styles.small[style] || marks.small === 'all' || shrunk))
      row.small.push(this.#column)
  }

  #closeRow(): void {
    const row = this.#row
    const {filter, merged, rules} = this.tail
    if (row) {
      row.hidden = whyHidden(row, this.#rowHidden, this.#rowGrouped, filter)
      markRow(row, rules, this.#numbers)
      this.#commentsOf(row)
    }
    this.#push(row?.record(merged.coveredIn(row.line)))
    this.#row = undefined
  }

  #push(record: WorkbookRecord | undefined): void {
    if (!record) return
    const {unevaluated} = this.tail
    if (this.#first && (Object.keys(this.#hiddenColumns).length || unevaluated.length))
      record.facts = {hiddenColumns: this.#hiddenColumns, unevaluated}
    this.#first = false
    this.ready.push(record)
  }
}

/** The rows of `sheet`, streamed: what its part says after its rows (xlsx-tail) read first, then its rows. */
export async function* xlsxRows(
  path: string,
  zip: ZipParts,
  book: XlsxBook,
  sheet: SheetEntry,
): AsyncGenerator<WorkbookRecord> {
  const tail = await sheetTail(zip, sheet.part, book.styles.effects)
  const reader = new SheetReader(path, book, tail, tail.merged.spread(await sheetComments(zip, sheet.part)))
  for await (const _ of zip.parse(sheet.part, reader.handlers)) {
    yield* reader.ready
    reader.ready.length = 0
  }
  // Comments on lines past the last row.
  reader.commentsBefore(Infinity)
  yield* reader.ready
}
