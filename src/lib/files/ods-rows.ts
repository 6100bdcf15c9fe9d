/**
 * The rows of one .ods table, streamed from content.xml: its columns (collapsed, filtered, of
 * zero or less than a digit's width), its rows (collapsed, filtered, of zero height), each number
 * cell as its number style shows it (ods-styles), struck cells and struck runs of text, merged
 * ranges as ODF writes them, and the conditional formats that strike or hide a row's cells.
 */
import type {SaxesTagPlain} from 'saxes'

import {shrunkTooSmall} from './colours.js'
import {type ConditionalRule, markRow, placed} from './conditional-formats.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {ANNOTATION_ASIDE, type Annotation, annotate} from './ods-comments.js'
import {DEFAULT_COLUMN_POINTS, widthInDigits} from './ods-lengths.js'
import {type CellLooks, CellRuns, looksOf, marksOf, paints} from './ods-looks.js'
import type {OdsStyles} from './ods-styles.js'
import {type ReadCell, dateText, isSubtotal, numberCell} from './workbook-cells.js'
import {
  MergedCells,
  NARROWER_THAN_A_DIGIT,
  RowBuilder,
  type SheetEntry,
  type WorkbookRecord,
  attr,
  columnLetters,
} from './workbook-rows.js'
import type {XmlHandlers, ZipParts} from './zip-parts.js'

/** The columns ODF writes at most (LibreOffice's 16,384): repeats past it only move the column. */
const MAX_COLUMNS = 16_384

/** What content.xml says of every table before its rows are read (ods-sheets' first pass). */
export interface OdsOutline {
  styles: OdsStyles
  /** The columns each sheet's filter (a database range's) filters on, by sheet name. */
  filters: Map<string, number[]>
  /** Each sheet's conditional formats that strike or hide cells, evaluated or said. */
  conditional: Map<string, {rules: ConditionalRule[]; unevaluated: string[]}>
  /**
   * The sheets with LibreOffice's own conditional formats (calcext), beside which it writes the
   * same as ODF 1.2's conditional cell styles (`style:map`) for other readers: there its own are
   * read, and the cell styles' left alone.
   */
  calcext: Set<string>
}

/** A cell being read: its repeat, what it holds when not text, its text, how its style and the runs of its text look. */
interface OdsCell {
  repeat: number
  read?: ReadCell
  text: string
  paragraphs: number
  looks: CellLooks
  runs: CellRuns
  /** Its comments (`office:annotation`), and the one being read: never its text. */
  comments: string[]
  annotation?: Annotation
}

/** A number, currency, percentage, date or boolean cell as its style shows it; undefined for text. */
function valueCell(tag: SaxesTagPlain, style: string | undefined, styles: OdsStyles): ReadCell | undefined {
  const type = attr(tag, 'office:value-type')
  if (type === 'float' || type === 'currency' || type === 'percentage') {
    const format = styles.formatOf(style)
    const read = numberCell(
      attr(tag, 'office:value') ?? '',
      'unmappable' in format ? {code: 'General', unrenderable: `a number style with ${format.unmappable}`} : format,
    )
    if (read.note?.kind === 'number') {
      if (isSubtotal(attr(tag, 'table:formula') ?? '')) read.note.subtotal = true
      const shown = styles.withCellCurrency(read.text, attr(tag, 'office:currency'))
      const currency = attr(tag, 'office:currency') ?? shown.currency
      if (type === 'currency' && currency) read.note.currency = currency
      read.text = shown.text
    }
    return read
  }
  if (type === 'date') {
    const date = attr(tag, 'office:date-value') ?? ''
    return {
      text: dateText(new Date(`${date.replace(/Z?$/, '')}${date.includes('T') ? '' : 'T00:00:00'}Z`)),
      note: {kind: 'date'},
    }
  }
  if (type === 'boolean') return {text: attr(tag, 'office:boolean-value') === 'true' ? 'TRUE' : 'FALSE'}
  return undefined
}

/** One table of content.xml read as its tags come: each row, once closed, a record (or its repeats) in `ready`. */
class TableReader {
  #inSheet = false
  done = false
  #depth = 0
  #line = 0
  #row: RowBuilder | undefined
  #rowRepeat = 1
  #column = 0
  #cell: OdsCell | undefined
  /** Each column's default cell style, and why a column is hidden, as the table's columns say. */
  readonly #defaults: (string | undefined)[] = []
  readonly #hiddenColumns: Record<number, string> = {}
  /** Each column's width in points, where its style says one (else LibreOffice's default). */
  readonly #widths: (number | undefined)[] = []
  #columnsSeen = 0
  #rowDefault: string | undefined
  #first = true
  /** The sheet's merged ranges, as their first cells come (ODF says the span there). */
  readonly #merged = new MergedCells()
  /** Each cell's number, for the conditional formats that compare one (by column, this row). */
  #numbers: Record<number, number> = {}
  /** The conditional styles of this row's cells, each placed on its cells. */
  #cellRules: ConditionalRule[] = []
  readonly #looks = new Map<string | undefined, CellLooks>()
  readonly ready: WorkbookRecord[] = []
  readonly #filtered: number[]
  readonly #conditional: {rules: ConditionalRule[]; unevaluated: string[]}
  readonly #calcext: boolean
  /** The sheet has rules that colour cells (a background, a font colour). */
  readonly #paints: boolean

  constructor(
    readonly path: string,
    readonly sheet: SheetEntry,
    readonly outline: OdsOutline,
  ) {
    this.#filtered = outline.filters.get(sheet.name) ?? []
    this.#conditional = outline.conditional.get(sheet.name) ?? {rules: [], unevaluated: []}
    this.#calcext = outline.calcext.has(sheet.name)
    this.#paints = this.#conditional.rules.some(paints)
  }

  readonly handlers: XmlHandlers = {
    open: (tag) => this.#open(tag),
    close: (name) => this.#close(name),
    text: (text) => this.#text(text),
  }

  get #styles() {
    return this.outline.styles
  }

  #open(tag: SaxesTagPlain): void {
    if (this.done) return
    if (tag.name === 'table:table') {
      this.#depth++
      if (this.#depth === 1 && attr(tag, 'table:name') === this.sheet.name) this.#inSheet = true
      return
    }
    if (!this.#inSheet || this.#depth !== 1) return
    const cell = this.#cell
    if (cell?.annotation) return annotate(cell.annotation, tag)
    switch (tag.name) {
      case 'table:table-column':
        this.#columns(tag)
        break
      case 'table:table-row':
        this.#openRow(tag)
        break
      case 'table:table-cell':
      case 'table:covered-table-cell':
        this.#openCell(tag)
        break
      case 'office:annotation':
        if (cell) cell.annotation = {text: '', paragraphs: 0, aside: 0}
        break
      case 'text:p':
        if (cell && cell.paragraphs++) cell.text += '\n'
        break
      case 'text:span':
        cell?.runs.open(attr(tag, 'text:style-name') ?? '')
        break
      case 'text:s':
        if (cell) cell.text += ' '.repeat(Math.min(Number(attr(tag, 'text:c') ?? 1), MAX_FIELD))
        break
      case 'text:tab':
        if (cell) cell.text += '\t'
        break
      case 'text:line-break':
        if (cell) cell.text += '\n'
        break
    }
  }

  /** Why a column is hidden: collapsed, filtered out, of zero width, narrower than a digit. */
  #columnHidden(tag: SaxesTagPlain): string | undefined {
    const visibility = attr(tag, 'table:visibility')
    const style = attr(tag, 'table:style-name') ?? ''
    if (visibility === 'collapse') return 'hidden'
    if (visibility === 'filter') return 'filtered out'
    if (this.#styles.zeroColumns.has(style)) return 'zero width'
    if (this.#styles.narrowColumns.has(style)) return NARROWER_THAN_A_DIGIT
    return undefined
  }

  #columns(tag: SaxesTagPlain): void {
    const repeat = Math.min(Number(attr(tag, 'table:number-columns-repeated') ?? 1), MAX_COLUMNS)
    const why = this.#columnHidden(tag)
    for (let i = 0; i < repeat && this.#columnsSeen < MAX_COLUMNS; i++, this.#columnsSeen++) {
      this.#defaults[this.#columnsSeen] = attr(tag, 'table:default-cell-style-name')
      this.#widths[this.#columnsSeen] = this.#styles.columnWidths.get(attr(tag, 'table:style-name') ?? '')
      if (why) this.#hiddenColumns[this.#columnsSeen] = why
    }
  }

  #openRow(tag: SaxesTagPlain): void {
    this.#rowDefault = attr(tag, 'table:default-cell-style-name')
    const row = new RowBuilder(this.path, this.#line + 1)
    this.#row = row
    row.comments.push(...this.#merged.carried(row.line))
    this.#numbers = {}
    this.#cellRules = []
    this.#rowRepeat = Number(attr(tag, 'table:number-rows-repeated') ?? 1)
    this.#column = 0
    const visibility = attr(tag, 'table:visibility')
    const filtered = this.#filtered
    if (visibility === 'collapse') row.hidden = 'hidden (collapsed)'
    else if (visibility === 'filter')
      row.hidden = `filtered out by the filter${filtered.length ? ` on column ${filtered.map(columnLetters).join(', ')}` : ''}`
    else if (this.#styles.zeroRows.has(attr(tag, 'table:style-name') ?? '')) row.hidden = 'hidden (zero height)'
  }

  #openCell(tag: SaxesTagPlain): void {
    const [column, line] = [this.#column, this.#line]
    const repeat = Number(attr(tag, 'table:number-columns-repeated') ?? 1)
    // A cell that names no style takes its row's default, else its column's (as LibreOffice shows it).
    const style = attr(tag, 'table:style-name') ?? this.#rowDefault ?? this.#defaults[column]
    const [across, down] = ['columns', 'rows'].map((d) => Number(attr(tag, `table:number-${d}-spanned`) ?? 1))
    if (across! > 1 || down! > 1)
      this.#merged.add(`${columnLetters(column)}${line + 1}:${columnLetters(column + across! - 1)}${line + down!}`)
    let looks = this.#looks.get(style)
    if (!looks) this.#looks.set(style, (looks = looksOf(this.#styles, style)))
    this.#cell = {repeat, text: '', paragraphs: 0, looks, runs: new CellRuns(this.#styles), comments: []}
    const read = valueCell(tag, style, this.#styles)
    if (read) this.#cell.read = read
  }

  #close(name: string): void {
    if (this.done) return
    if (name === 'table:table') {
      this.#depth--
      if (this.#inSheet && this.#depth === 0) this.done = true
      return
    }
    if (!this.#inSheet || this.#depth !== 1) return
    const annotation = this.#cell?.annotation
    if (annotation) {
      if (ANNOTATION_ASIDE.has(name)) annotation.aside--
      else if (name === 'office:annotation') {
        if (annotation.text.trim()) this.#cell!.comments.push(annotation.text.trim())
        this.#cell!.annotation = undefined
      }
      return
    }
    if (name === 'text:span') this.#cell?.runs.close()
    else if (name === 'table:table-cell' || name === 'table:covered-table-cell') this.#closeCell()
    else if (name === 'table:table-row' && this.#row) this.#closeRow(this.#row)
  }

  #text(text: string): void {
    const cell = this.#cell
    if (!cell || this.done) return
    if (cell.annotation) {
      if (!cell.annotation.aside && cell.annotation.text.length < MAX_FIELD) cell.annotation.text += text
      return
    }
    cell.text += text
    cell.runs.text(text)
    if (cell.text.length > MAX_FIELD) throw fieldTooLong(this.path, this.#line + 1, this.#column + 1, cell.text.length)
  }

  #closeCell(): void {
    const [cell, row] = [this.#cell, this.#row]
    if (!cell || !row) return
    const read = cell.read ?? {text: cell.text}
    // The text written in a number cell is what a previewer shows: kept when it is not the style's.
    if (read.note?.kind === 'number' && cell.paragraphs && cell.text.trim() !== read.text.trim())
      read.note.written = cell.text
    const {unseen, small, white} = marksOf(read, cell.text, cell.looks, cell.runs)
    const right = Math.min(this.#column + cell.repeat, MAX_COLUMNS) - 1
    row.comments.push(...this.#merged.commentsOn(row.line, this.#column, cell.comments))
    if (read.text !== '' || read.note) {
      // Repeated filled cells are written out; repeated empty ones only move the column.
      for (let at = this.#column; at <= right; at++) {
        row.set(at, read)
        if (read.note?.kind === 'number') this.#numbers[at] = Number(read.note.value)
        if (unseen) row.blanked.push(at)
        // Shrunk to fit a column too narrow for its text, it is drawn too small to read.
        const width = widthInDigits(this.#widths[at] ?? DEFAULT_COLUMN_POINTS)
        const shrunk = shrunkTooSmall(read.text, cell.looks.shrink, width)
        if (shrunk) (row.shrunk ??= []).push(at)
        if (small || shrunk) row.small.push(at)
        // Where rules colour cells, each cell's colours, for them to be drawn on (white runs as white text).
        if (this.#paints || cell.looks.rules.some(paints)) {
          const {text, ground} = cell.looks.colours
          const drawn = {text: white ? 'ffffff' : text, ground, byColour: unseen}
          ;(row.colours ??= new Map()).set(at, drawn)
        }
      }
      if (!this.#calcext)
        for (const rule of cell.looks.rules) this.#cellRules.push(placed(rule, row.line, this.#column, right))
    }
    this.#column += cell.repeat
    this.#cell = undefined
  }

  #closeRow(row: RowBuilder): void {
    const line = this.#line
    const {rules, unevaluated} = this.#conditional
    markRow(row, rules, this.#numbers)
    if (this.#cellRules.length) markRow(row, this.#cellRules, this.#numbers)
    const record = row.record(this.#merged.coveredIn(line + 1))
    this.#merged.forget(line + 1)
    if (record) {
      if (this.#first && (Object.keys(this.#hiddenColumns).length || unevaluated.length))
        record.facts = {hiddenColumns: this.#hiddenColumns, unevaluated}
      this.#first = false
      for (let i = 0; i < this.#rowRepeat && i < 1_048_576; i++) this.ready.push({...record, line: line + 1 + i})
    }
    this.#line += this.#rowRepeat
    this.#row = undefined
  }
}

/** The rows of `sheet`, streamed from content.xml (read again: the first pass kept only its outline). */
export async function* odsRows(
  path: string,
  zip: ZipParts,
  outline: OdsOutline,
  sheet: SheetEntry,
): AsyncGenerator<WorkbookRecord> {
  const reader = new TableReader(path, sheet, outline)
  for await (const _ of zip.parse('content.xml', reader.handlers)) {
    yield* reader.ready
    reader.ready.length = 0
    if (reader.done) return
  }
}
