/**
 * The rows of a workbook, streamed: an .xlsx written by any producer (Excel, LibreOffice,
 * Google Sheets, openpyxl with its absolute part paths, Apache POI, exceljs; shared or inline
 * strings) or an .ods (LibreOffice's own format), read part by part from the ZIP package
 * (zip-parts: yauzl and saxes) so memory does not grow with the sheet. Each cell is its value
 * (workbook-cells): the text a person sees, and for numbers, percentages, dates and formulas
 * without a result, what the cell holds. Hidden sheets are never the default: the first visible
 * sheet is. Runs in a worker thread (workbook-worker), where a workbook that expands beyond
 * reason cannot exhaust gw's own memory.
 */
import {posix} from 'node:path'

import type {SaxesTagPlain} from 'saxes'

import {GwError, usageError} from '../errors.js'
import {quoted} from '../untrusted.js'
import type {TypedCells} from './cells.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {
  type CellNote,
  type NumberStyle,
  type ReadCell,
  dateText,
  fromWorkbookText,
  isSubtotal,
  numberCell,
  numberStyle,
} from './workbook-cells.js'
import {PartTooLarge, type ZipParts, openZip} from './zip-parts.js'

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
  /** Cells covered by merged cells (empty but for the first), by column: the merged range. */
  merged?: Record<number, string>
}

/** A workbook's rows: the sheet read, the workbook's visible sheets, the one it opens on, and the rows as they stream. */
export interface WorkbookRecords {
  sheet: string
  sheets: string[]
  /** The sheet the workbook opens on (its active tab), when it is a visible one. */
  active?: string
  records: AsyncGenerator<WorkbookRecord>
}

/** The heap a workbook may use while read (workbook-records). */
export const WORKER_HEAP_MB = 512

/** A workbook that expands beyond what gw reads: its heap, or a text node past any cell. */
export const tooLarge = (path: string) =>
  usageError(
    `${path} expands to more than gw reads (over ${WORKER_HEAP_MB} MiB while reading): it is not an export of rows, or it is damaged.`,
    'Open it in Excel and export the sheet as CSV UTF-8, or save it again as .xlsx.',
  )

const unreadable = (path: string, why: string) =>
  usageError(
    `${path} is not a CSV or .xlsx file: it looks like a ZIP archive, but it cannot be read as a workbook (${quoted(why)}).`,
    'Open it in Excel and save it again as .xlsx, or export the sheet as CSV UTF-8.',
  )

/** A sheet of the workbook: its name, whether it is shown, and where its rows are. */
interface SheetEntry {
  name: string
  hidden: boolean
  part: string
}

/** A tag's name without its namespace prefix (`x:row` and `row` alike). */
const local = (tag: SaxesTagPlain | string) => {
  const name = typeof tag === 'string' ? tag : tag.name
  return name.slice(name.indexOf(':') + 1)
}
const attr = (tag: SaxesTagPlain, name: string) => tag.attributes[name]

/** Parses a whole (small) part with `handlers`. */
async function parseAll(zip: ZipParts, name: string, handlers: Parameters<ZipParts['parse']>[1]) {
  for await (const _ of zip.parse(name, handlers)) void _
}

/** `Target` of a relationship, resolved from the part that has it (absolute targets as they are). */
const resolvePart = (from: string, target: string) =>
  target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(posix.dirname(from), target))

/** The relationships of a part: id to part name, and type (its last word) to part name. */
async function relationships(zip: ZipParts, part: string) {
  const rels = posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`)
  const byId = new Map<string, string>()
  const byType = new Map<string, string>()
  if (!zip.has(rels)) return {byId, byType}
  await parseAll(zip, rels, {
    open(tag) {
      if (local(tag) !== 'Relationship' || attr(tag, 'TargetMode') === 'External') return
      const target = resolvePart(part, attr(tag, 'Target') ?? '')
      byId.set(attr(tag, 'Id') ?? '', target)
      byType.set((attr(tag, 'Type') ?? '').split('/').pop()!, target)
    },
  })
  return {byId, byType}
}

/**
 * What the shared strings of a workbook may unpack to, and hold: a sheet of Excel's most rows
 * with a few distinct texts a row holds far less. Past either, the workbook is not an export of
 * rows (a ZIP bomb: megabytes that unpack to gigabytes of strings), and it is refused before
 * the strings fill the reader's memory (WORKER_HEAP_MB).
 */
const MAX_SHARED_STRINGS_BYTES = 512 * 1024 * 1024
const MAX_SHARED_STRINGS_TEXT = 96 * 1024 * 1024

/** The strings of a part's `si` items (shared strings), without phonetic runs; PartTooLarge past the limits above. */
async function sharedStrings(zip: ZipParts, part: string | undefined): Promise<string[]> {
  const strings: string[] = []
  if (!part || !zip.has(part)) return strings
  if (zip.size(part) > MAX_SHARED_STRINGS_BYTES) throw new PartTooLarge(part)
  let held = 0
  let current = ''
  let inText = false
  let phonetic = 0
  await parseAll(zip, part, {
    open(tag) {
      const name = local(tag)
      if (name === 'si') current = ''
      else if (name === 'rPh') phonetic++
      else if (name === 't' && !phonetic) inText = true
    },
    close(tag) {
      const name = local(tag)
      if (name === 'si') {
        held += current.length
        if (held > MAX_SHARED_STRINGS_TEXT) throw new PartTooLarge(part)
        strings.push(fromWorkbookText(current))
      } else if (name === 'rPh') phonetic--
      else if (name === 't') inText = false
    },
    text(text) {
      if (inText) current += text
    },
  })
  return strings
}

/** Each cell style (`s`): its number format's code and kind, and whether its font strikes the text through. */
async function cellStyles(
  zip: ZipParts,
  part: string | undefined,
): Promise<{numbers: NumberStyle[]; struck: boolean[]}> {
  const codes = new Map<number, string>()
  const numbers: NumberStyle[] = []
  const struck: boolean[] = []
  const fonts: boolean[] = []
  if (!part || !zip.has(part)) return {numbers, struck}
  let inCellXfs = false
  let inFonts = false
  await parseAll(zip, part, {
    open(tag) {
      const name = local(tag)
      if (name === 'numFmt') codes.set(Number(attr(tag, 'numFmtId')), attr(tag, 'formatCode') ?? '')
      else if (name === 'fonts') inFonts = true
      else if (name === 'font' && inFonts) fonts.push(false)
      else if (name === 'strike' && inFonts) fonts[fonts.length - 1] = !['0', 'false'].includes(attr(tag, 'val') ?? '1')
      else if (name === 'cellXfs') inCellXfs = true
      else if (name === 'xf' && inCellXfs) {
        const id = Number(attr(tag, 'numFmtId') ?? 0)
        numbers.push(numberStyle(id, codes.get(id)))
        struck.push(fonts[Number(attr(tag, 'fontId') ?? 0)] ?? false)
      }
    },
    close(tag) {
      if (local(tag) === 'cellXfs') inCellXfs = false
      else if (local(tag) === 'fonts') inFonts = false
    },
  })
  return {numbers, struck}
}

/** A column's letters (0-based column 3 is D). */
export function columnLetters(column: number): string {
  let letters = ''
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters
  return letters
}

/** The first and last row and column (0-based columns) of a range such as `A1:D7`. */
function rangeOf(ref: string): {top: number; bottom: number; left: number; right: number} | undefined {
  const [from, to = from] = ref.split(':') as [string, string | undefined]
  const row = (cell: string) => Number(/\d+$/.exec(cell)?.[0] ?? NaN)
  const [top, bottom, left, right] = [row(from), row(to!), columnOf(from), columnOf(to!)]
  if (!Number.isFinite(top) || !Number.isFinite(bottom) || left === undefined || right === undefined) return undefined
  return {top, bottom, left, right}
}

/** Merged ranges of a sheet: the cells each covers beside its first (which alone holds the value). */
class MergedCells {
  readonly #byRow = new Map<number, Record<number, string>>()

  constructor(refs: readonly string[]) {
    for (const ref of refs) {
      const range = rangeOf(ref)
      // A range of a whole column or more is not a merge of cells a row holds.
      if (!range || (range.bottom - range.top + 1) * (range.right - range.left + 1) > 100_000) continue
      for (let line = range.top; line <= range.bottom; line++)
        for (let column = range.left; column <= range.right; column++) {
          if (line === range.top && column === range.left) continue
          const covered = this.#byRow.get(line) ?? {}
          covered[column] = ref
          this.#byRow.set(line, covered)
        }
    }
  }

  coveredIn(line: number): Record<number, string> | undefined {
    return this.#byRow.get(line)
  }
}

/** An autofilter: its range, and the columns it filters, each with the values it shows when it lists them. */
interface AutoFilter {
  top: number
  bottom: number
  columns: {column: number; values?: Set<string>; blank: boolean}[]
}

/** The text of `&amp;`-escaped XML attribute values. */
const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, name: string) => {
    const named: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', apos: "'"}
    if (named[name]) return named[name]
    return String.fromCodePoint(name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1)))
  })
const attributeIn = (tag: string, name: string) => {
  const value = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(tag)
  return value ? unescapeXml(value[1] ?? value[2]!) : undefined
}

/** The XML after a sheet's rows, kept at most this long: its autofilter and merged ranges are there. */
const MAX_SHEET_TAIL = 8 * 1024 * 1024

const SHEET_DATA = Buffer.from('sheetData>')

/** Where `</sheetData>` (or `</x:sheetData>`) starts in `bytes`, or -1: not the start tag, `<sheetData>`. */
function endOfRows(bytes: Buffer): number {
  for (let at = bytes.indexOf(SHEET_DATA); at !== -1; at = bytes.indexOf(SHEET_DATA, at + 1)) {
    const open = bytes.lastIndexOf(0x3c, at) // '<'
    if (open !== -1 && bytes[open + 1] === 0x2f /* '/' */ && at - open < 40) return open
  }
  return -1
}

/**
 * What a sheet says after its rows (ECMA-376 puts `autoFilter` and `mergeCells` after
 * `sheetData`), read before its rows are: the part's text is scanned, not parsed, up to the end
 * of its rows, then the rest is kept.
 */
async function sheetTail(zip: ZipParts, part: string): Promise<{filter?: AutoFilter; merged: MergedCells}> {
  // Searched as bytes (the end tag is ASCII): a sheet of a million rows is not decoded twice.
  const kept: Buffer[] = []
  let size = 0
  let last: Buffer | undefined
  for await (const chunk of zip.chunks(part)) {
    if (kept.length) {
      if (size < MAX_SHEET_TAIL) kept.push(chunk)
      size += chunk.length
      continue
    }
    // The end tag may straddle two chunks: the previous chunk's last bytes are looked at with this one.
    const seam = last ? Buffer.concat([last.subarray(-40), chunk.subarray(0, 40)]) : undefined
    const across = seam ? endOfRows(seam) : -1
    const at = across !== -1 ? -1 : endOfRows(chunk)
    if (across !== -1) kept.push(seam!.subarray(across), chunk.subarray(40))
    else if (at !== -1) kept.push(chunk.subarray(at))
    size = kept.reduce((n, b) => n + b.length, 0)
    last = chunk
  }
  const tail = kept.length ? Buffer.concat(kept).toString('utf8') : undefined
  if (!tail) return {merged: new MergedCells([])}
  const merges = [...tail.matchAll(/<(?:[\w.-]+:)?mergeCell\b[^>]*>/g)].flatMap((m) => attributeIn(m[0], 'ref') ?? [])
  const filterXml = /<(?:[\w.-]+:)?autoFilter\b[^>]*?(?:\/>|>[\s\S]*?<\/(?:[\w.-]+:)?autoFilter>)/.exec(tail)?.[0]
  const range = filterXml && rangeOf(attributeIn(filterXml, 'ref') ?? '')
  if (!filterXml || !range) return {merged: new MergedCells(merges)}
  const columns = [
    ...filterXml.matchAll(
      /<(?:[\w.-]+:)?filterColumn\b[^>]*>[\s\S]*?<\/(?:[\w.-]+:)?filterColumn>|<(?:[\w.-]+:)?filterColumn\b[^>]*\/>/g,
    ),
  ].map(([xml]) => {
    const column = range.left + Number(attributeIn(xml, 'colId') ?? 0)
    const filters = /<(?:[\w.-]+:)?filters\b[^>]*>/.exec(xml)?.[0]
    if (!filters) return {column, blank: false}
    const values = new Set(
      [...xml.matchAll(/<(?:[\w.-]+:)?filter\b[^>]*>/g)].flatMap((m) => attributeIn(m[0], 'val')?.toLowerCase() ?? []),
    )
    return {column, values, blank: ['1', 'true'].includes(attributeIn(filters, 'blank') ?? '')}
  })
  return {filter: {top: range.top, bottom: range.bottom, columns}, merged: new MergedCells(merges)}
}

/**
 * Why a row is not shown: outside an autofilter's selection (where the filter lists the values
 * it shows, a value it does not list, hidden by Excel or saved without its rows hidden; where it
 * filters otherwise, hidden within its range), hidden in a collapsed group, or hidden by hand.
 * Undefined when it is shown.
 */
function whyHidden(
  row: RowBuilder,
  hidden: boolean,
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
  return grouped ? 'hidden (in a collapsed group of rows)' : 'hidden'
}

/** Column number (0-based) of a cell reference such as `AB12`. */
function columnOf(ref: string): number | undefined {
  const letters = /^[A-Z]+/i.exec(ref)?.[0]
  if (!letters) return undefined
  let n = 0
  for (const c of letters.toUpperCase()) n = n * 26 + (c.charCodeAt(0) - 64)
  return n - 1
}

/** A row being built: cells by column, then a record with trailing empty cells dropped. */
class RowBuilder {
  cells: string[] = []
  notes: Record<number, CellNote> = {}
  inexact: number[] = []
  typed: TypedCells = []
  struck: number[] = []
  hasNotes = false
  hidden?: string

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
  }

  /** `merged`: the sheet's merged ranges, for the cells of this row they cover. */
  record(merged?: MergedCells): WorkbookRecord | undefined {
    const record = this.cells
    while (record.length && record.at(-1)!.trim() === '' && this.notes[record.length - 1] === undefined) record.pop()
    if (!record.length) return undefined
    const covered = merged?.coveredIn(this.line)
    return {
      record,
      line: this.line,
      ...(this.hidden ? {hidden: this.hidden} : {}),
      ...(this.struck.length ? {struck: this.struck} : {}),
      ...(covered ? {merged: covered} : {}),
      ...(this.inexact.length ? {inexact: this.inexact} : {}),
      ...(this.hasNotes ? {notes: this.notes} : {}),
      ...(this.typed.length ? {typed: this.typed.filter((t) => t.at < record.length)} : {}),
    }
  }
}

/** An .xlsx: its sheets in order, and the rows of one, streamed. */
async function openXlsx(path: string, zip: ZipParts) {
  const root = await relationships(zip, '')
  const workbookPart = root.byType.get('officeDocument') ?? 'xl/workbook.xml'
  // Excel's binary workbook is the same package with binary parts (xl/workbook.bin, MS-XLSB).
  if (workbookPart.toLowerCase().endsWith('.bin'))
    throw usageError(
      `${path} is not a CSV or .xlsx file: it is an Excel Binary Workbook (.xlsb), which gw does not read.`,
      'Open it in Excel and save it as Excel Workbook (.xlsx), or export the sheet as CSV UTF-8.',
    )
  if (!zip.has(workbookPart))
    throw usageError(
      `${path} is not a CSV or .xlsx file: it is a ZIP archive without a worksheet.`,
      'Give the .xlsx workbook, or export the sheet as CSV UTF-8.',
    )
  const rels = await relationships(zip, workbookPart)
  const sheets: SheetEntry[] = []
  /** Every sheet the workbook lists, in order: `activeTab` counts them all. */
  const listed: (SheetEntry | undefined)[] = []
  let activeTab = 0
  let date1904 = false
  // Marked to be calculated when opened (xlsxwriter and openpyxl, which do not calculate): a
  // formula's stored value (xlsxwriter writes 0) is a placeholder, not its result.
  let uncalculated = false
  await parseAll(zip, workbookPart, {
    open(tag) {
      const name = local(tag)
      if (name === 'workbookPr') date1904 = ['1', 'true'].includes(attr(tag, 'date1904') ?? '')
      if (name === 'calcPr') uncalculated = ['1', 'true'].includes(attr(tag, 'fullCalcOnLoad') ?? '')
      if (name === 'workbookView' && !listed.length) activeTab = Number(attr(tag, 'activeTab') ?? 0)
      if (name !== 'sheet') return
      const id = Object.entries(tag.attributes).find(([key]) => local(key) === 'id')?.[1]
      const part = id === undefined ? undefined : rels.byId.get(id)
      const state = attr(tag, 'state')
      const entry = part && {name: attr(tag, 'name') ?? '', hidden: state === 'hidden' || state === 'veryHidden', part}
      if (entry) sheets.push(entry)
      listed.push(entry || undefined)
    },
  })
  const strings = await sharedStrings(zip, rels.byType.get('sharedStrings'))
  const {numbers: styles, struck} = await cellStyles(zip, rels.byType.get('styles'))

  async function* rows(sheet: SheetEntry): AsyncGenerator<WorkbookRecord> {
    const {filter, merged} = await sheetTail(zip, sheet.part)
    let row: RowBuilder | undefined
    let rowHidden = false
    let rowGrouped = false
    let lastLine = 0
    let column = -1
    let cell = {type: 'n', style: 0, ref: '', value: '', formula: '', hasValue: false, text: ''}
    let capture: 'v' | 't' | 'f' | undefined
    let inInline = false
    let phonetic = 0
    const ready: WorkbookRecord[] = []
    const finishCell = () => {
      if (!row) return
      const {type, value, text} = cell
      let read: ReadCell
      if (cell.formula && (uncalculated || !cell.hasValue || (value === '' && type !== 'str')))
        read = {text: '', note: {kind: 'formula', address: cell.ref || `${row.line}:${column + 1}`}}
      else if (type === 's') read = {text: strings[Number(value)] ?? ''}
      else if (type === 'inlineStr') read = {text: fromWorkbookText(text)}
      else if (type === 'str') read = {text: fromWorkbookText(value)}
      else if (type === 'e') read = {text: value}
      else if (type === 'b') read = {text: value === '1' ? 'TRUE' : 'FALSE'}
      else if (type === 'd') read = {text: dateText(new Date(`${value.replace(/Z?$/, '')}Z`)), note: {kind: 'date'}}
      else {
        read = value.trim() === '' ? {text: ''} : numberCell(value, styles[cell.style], date1904)
        if (read.note?.kind === 'number' && isSubtotal(cell.formula)) read.note.subtotal = true
      }
      if (struck[cell.style] && read.text !== '') read.struck = true
      if (read.text !== '' || read.note) row.set(column, read)
    }
    const parse = zip.parse(sheet.part, {
      open(tag) {
        switch (local(tag)) {
          case 'row':
            lastLine = Number(attr(tag, 'r') ?? lastLine + 1)
            row = new RowBuilder(path, lastLine)
            rowHidden = ['1', 'true'].includes(attr(tag, 'hidden') ?? '')
            rowGrouped = Number(attr(tag, 'outlineLevel') ?? 0) > 0
            column = -1
            break
          case 'c': {
            const ref = attr(tag, 'r') ?? ''
            column = columnOf(ref) ?? column + 1
            const type = attr(tag, 't') ?? 'n'
            cell = {type, style: Number(attr(tag, 's') ?? 0), ref, value: '', formula: '', hasValue: false, text: ''}
            break
          }
          case 'v':
            capture = 'v'
            cell.hasValue = true
            break
          case 'f':
            // A shared formula's other cells have an empty f: still a formula.
            cell.formula = ' '
            capture = 'f'
            break
          case 'is':
            inInline = true
            cell.hasValue = true
            break
          case 'rPh':
            phonetic++
            break
          case 't':
            if (inInline && !phonetic) capture = 't'
            break
        }
      },
      close(name) {
        switch (local(name)) {
          case 'v':
          case 't':
          case 'f':
            capture = undefined
            break
          case 'is':
            inInline = false
            break
          case 'rPh':
            phonetic--
            break
          case 'c':
            finishCell()
            break
          case 'row': {
            if (row) row.hidden = whyHidden(row, rowHidden, rowGrouped, filter)
            const record = row?.record(merged)
            if (record) ready.push(record)
            row = undefined
            break
          }
        }
      },
      text(text) {
        if (capture === 'v') cell.value += text
        else if (capture === 't') cell.text += text
        else if (capture === 'f' && cell.formula.length < 64) cell.formula += text
        if (cell.value.length + cell.text.length > MAX_FIELD)
          throw fieldTooLong(path, lastLine, column + 1, cell.value.length + cell.text.length)
      },
    })
    for await (const _ of parse) {
      for (const record of ready) yield record
      ready.length = 0
    }
  }
  const active = listed[activeTab]
  return {sheets, rows, active}
}

/** An .ods: its tables in order (a first pass over content.xml), and the rows of one, streamed. */
async function openOds(path: string, zip: ZipParts) {
  const hiddenStyles = new Set<string>()
  /** Cell styles that strike their text through. */
  const struckStyles = new Set<string>()
  const sheets: SheetEntry[] = []
  /** The columns each sheet's filter (a database range's) filters on, by sheet name. */
  const filters = new Map<string, number[]>()
  let style: {name: string; family?: string} | undefined
  let range: {sheet: string; left: number} | undefined
  await parseAll(zip, 'content.xml', {
    open(tag) {
      if (tag.name === 'style:style') style = {name: attr(tag, 'style:name') ?? '', family: attr(tag, 'style:family')}
      else if (
        tag.name === 'style:table-properties' &&
        style?.family === 'table' &&
        attr(tag, 'table:display') === 'false'
      )
        hiddenStyles.add(style.name)
      else if (tag.name === 'style:text-properties' && style?.family === 'table-cell') {
        const through = attr(tag, 'style:text-line-through-style')
        if (through && through !== 'none') struckStyles.add(style.name)
      } else if (tag.name === 'table:table') {
        const name = attr(tag, 'table:name') ?? ''
        sheets.push({name, hidden: hiddenStyles.has(attr(tag, 'table:style-name') ?? ''), part: name})
      } else if (tag.name === 'table:database-range') {
        // "'Refunds'.A1:'Refunds'.D7": the sheet and the first column of the range.
        const [, sheet = '', cell = ''] =
          /^'?(.*?)'?\.\$?([A-Z]+)/.exec(attr(tag, 'table:target-range-address') ?? '') ?? []
        range = {sheet: sheet.replace(/''/g, "'"), left: columnOf(cell) ?? 0}
      } else if (tag.name === 'table:filter-condition' && range) {
        const columns = filters.get(range.sheet) ?? []
        columns.push(range.left + Number(attr(tag, 'table:field-number') ?? 0))
        filters.set(range.sheet, columns)
      }
    },
    close(name) {
      if (name === 'style:style') style = undefined
      else if (name === 'table:database-range') range = undefined
    },
  })
  const active = zip.has('settings.xml') ? await activeTable(zip) : undefined

  async function* rows(sheet: SheetEntry): AsyncGenerator<WorkbookRecord> {
    let inSheet = false
    let done = false
    let line = 0
    let row: RowBuilder | undefined
    let rowRepeat = 1
    let column = 0
    let cell: {repeat: number; read?: ReadCell; text: string; paragraphs: number; struck: boolean} | undefined
    /** The cells merged ranges cover beside their first, by line (ODF says the span at the range's first cell). */
    const covered = new Map<number, Record<number, string>>()
    const merged = {coveredIn: (at: number) => covered.get(at)} as MergedCells
    const filtered = filters.get(sheet.name) ?? []
    let depth = 0
    const ready: WorkbookRecord[] = []
    const parse = zip.parse('content.xml', {
      open(tag) {
        if (done) return
        if (tag.name === 'table:table') {
          depth++
          if (depth === 1 && attr(tag, 'table:name') === sheet.name) inSheet = true
          return
        }
        if (!inSheet || depth !== 1) return
        switch (tag.name) {
          case 'table:table-row': {
            row = new RowBuilder(path, line + 1)
            rowRepeat = Number(attr(tag, 'table:number-rows-repeated') ?? 1)
            column = 0
            const visibility = attr(tag, 'table:visibility')
            if (visibility === 'collapse') row.hidden = 'hidden (collapsed)'
            else if (visibility === 'filter')
              row.hidden = `filtered out by the filter${filtered.length ? ` on column ${filtered.map(columnLetters).join(', ')}` : ''}`
            break
          }
          case 'table:table-cell':
          case 'table:covered-table-cell': {
            const repeat = Number(attr(tag, 'table:number-columns-repeated') ?? 1)
            const type = attr(tag, 'office:value-type')
            const value = attr(tag, 'office:value') ?? ''
            const [across, down] = ['columns', 'rows'].map((d) => Number(attr(tag, `table:number-${d}-spanned`) ?? 1))
            if ((across! > 1 || down! > 1) && across! * down! <= 100_000) {
              const ref = `${columnLetters(column)}${line + 1}:${columnLetters(column + across! - 1)}${line + down!}`
              for (let l = line + 1; l <= line + down!; l++)
                for (let c = column; c < column + across!; c++) {
                  if (l === line + 1 && c === column) continue
                  covered.set(l, {...covered.get(l), [c]: ref})
                }
            }
            let read: ReadCell | undefined
            if (type === 'float' || type === 'currency') {
              read = numberCell(value, undefined)
              if (read.note?.kind === 'number' && isSubtotal(attr(tag, 'table:formula') ?? ''))
                read.note.subtotal = true
            } else if (type === 'percentage')
              read = {...numberCell(value, {code: '0.00%'}), note: {kind: 'percent', value}}
            else if (type === 'date') {
              const date = attr(tag, 'office:date-value') ?? ''
              read = {
                text: dateText(new Date(`${date.replace(/Z?$/, '')}${date.includes('T') ? '' : 'T00:00:00'}Z`)),
                note: {kind: 'date'},
              }
            } else if (type === 'boolean')
              read = {text: attr(tag, 'office:boolean-value') === 'true' ? 'TRUE' : 'FALSE'}
            cell = {
              repeat,
              read,
              text: '',
              paragraphs: 0,
              struck: struckStyles.has(attr(tag, 'table:style-name') ?? ''),
            }
            break
          }
          case 'text:p':
            if (cell && cell.paragraphs++) cell.text += '\n'
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
      },
      close(name) {
        if (done) return
        if (name === 'table:table') {
          depth--
          if (inSheet && depth === 0) done = true
          return
        }
        if (!inSheet || depth !== 1) return
        if ((name === 'table:table-cell' || name === 'table:covered-table-cell') && cell && row) {
          const read = cell.read ?? {text: cell.text}
          if (cell.struck && read.text !== '') read.struck = true
          if (read.text !== '' || read.note) {
            // Repeated filled cells are written out; repeated empty ones only move the column.
            for (let i = 0; i < cell.repeat && column + i < 16_384; i++) row.set(column + i, read)
          }
          column += cell.repeat
          cell = undefined
        } else if (name === 'table:table-row' && row) {
          const record = row.record(merged)
          covered.delete(line + 1)
          if (record) {
            for (let i = 0; i < rowRepeat && i < 1_048_576; i++) ready.push({...record, line: line + 1 + i})
          }
          line += rowRepeat
          row = undefined
        }
      },
      text(text) {
        if (cell && !done) cell.text += text
        if (cell && cell.text.length > MAX_FIELD) throw fieldTooLong(path, line + 1, column + 1, cell.text.length)
      },
    })
    for await (const _ of parse) {
      for (const record of ready) yield record
      ready.length = 0
      if (done) return
    }
  }
  return {sheets, rows, active: sheets.find((s) => s.name === active)}
}

/** The sheet an .ods opens on: its settings' ActiveTable. */
async function activeTable(zip: ZipParts): Promise<string | undefined> {
  let inActive = false
  let found: string | undefined
  await parseAll(zip, 'settings.xml', {
    open(tag) {
      inActive = found === undefined && tag.name === 'config:config-item' && attr(tag, 'config:name') === 'ActiveTable'
      if (inActive) found = ''
    },
    close() {
      inActive = false
    },
    text(text) {
      if (inActive) found += text
    },
  })
  return found
}

/** Whether the package is an OpenDocument spreadsheet (.ods), by its mimetype. */
async function isOds(zip: ZipParts): Promise<boolean> {
  if (!zip.has('mimetype') || !zip.has('content.xml')) return false
  return (await zip.text('mimetype')).trim() === 'application/vnd.oasis.opendocument.spreadsheet'
}

/** A failure while reading, as the usage error it is. */
function asUsage(path: string, error: unknown): GwError {
  if (error instanceof GwError) return error
  if (error instanceof PartTooLarge || error instanceof RangeError) return tooLarge(path)
  return unreadable(path, (error as Error).message)
}

/** Opens the sheet named `wanted` (any case), or the first visible sheet; rows stream as `records` is iterated. */
export async function readWorkbook(path: string, wanted: string | undefined): Promise<WorkbookRecords> {
  let zip: ZipParts
  try {
    zip = await openZip(path)
  } catch (error) {
    throw asUsage(path, error)
  }
  try {
    const book = (await isOds(zip)) ? await openOds(path, zip) : await openXlsx(path, zip)
    const visible = book.sheets.filter((s) => !s.hidden)
    const names = visible.map((s) => s.name)
    // The sheet the workbook opens on (its active tab) when it is shown, else the first shown.
    const opensOn = book.active && !book.active.hidden ? book.active : undefined
    const found = wanted
      ? book.sheets.find((s) => s.name.trim().toLowerCase() === wanted.trim().toLowerCase())
      : (opensOn ?? visible[0])
    if (!found && !wanted)
      throw usageError(
        `${path} is not a CSV or .xlsx file: it is a ZIP archive without a visible worksheet.`,
        'Give the .xlsx workbook, or export the sheet as CSV UTF-8.',
      )
    if (!found)
      throw usageError(
        `${path} has no sheet named ${quoted(wanted)}; its sheets are: ${names.map((n) => quoted(n)).join(', ')}.`,
      )
    async function* records(): AsyncGenerator<WorkbookRecord> {
      try {
        yield* book.rows(found!)
      } catch (error) {
        throw asUsage(path, error)
      } finally {
        zip.close()
      }
    }
    return {sheet: found.name, sheets: names, ...(opensOn ? {active: opensOn.name} : {}), records: records()}
  } catch (error) {
    zip.close()
    throw asUsage(path, error)
  }
}
