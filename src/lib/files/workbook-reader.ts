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
}

/** A workbook's rows: the sheet read, the workbook's visible sheets, and the rows as they stream. */
export interface WorkbookRecords {
  sheet: string
  sheets: string[]
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

/** The strings of a part's `si` items (shared strings), without phonetic runs. */
async function sharedStrings(zip: ZipParts, part: string | undefined): Promise<string[]> {
  const strings: string[] = []
  if (!part || !zip.has(part)) return strings
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
      if (name === 'si') strings.push(fromWorkbookText(current))
      else if (name === 'rPh') phonetic--
      else if (name === 't') inText = false
    },
    text(text) {
      if (inText) current += text
    },
  })
  return strings
}

/** The number style of each cell style (`s`): its format's code and kind. */
async function cellStyles(zip: ZipParts, part: string | undefined): Promise<NumberStyle[]> {
  const codes = new Map<number, string>()
  const styles: NumberStyle[] = []
  if (!part || !zip.has(part)) return styles
  let inCellXfs = false
  await parseAll(zip, part, {
    open(tag) {
      const name = local(tag)
      if (name === 'numFmt') codes.set(Number(attr(tag, 'numFmtId')), attr(tag, 'formatCode') ?? '')
      else if (name === 'cellXfs') inCellXfs = true
      else if (name === 'xf' && inCellXfs) {
        const id = Number(attr(tag, 'numFmtId') ?? 0)
        styles.push(numberStyle(id, codes.get(id)))
      }
    },
    close(tag) {
      if (local(tag) === 'cellXfs') inCellXfs = false
    },
  })
  return styles
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
  hasNotes = false

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
  }

  record(): WorkbookRecord | undefined {
    const record = this.cells
    while (record.length && record.at(-1)!.trim() === '' && this.notes[record.length - 1] === undefined) record.pop()
    if (!record.length) return undefined
    return {
      record,
      line: this.line,
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
  let date1904 = false
  // Marked to be calculated when opened (xlsxwriter and openpyxl, which do not calculate): a
  // formula's stored value (xlsxwriter writes 0) is a placeholder, not its result.
  let uncalculated = false
  await parseAll(zip, workbookPart, {
    open(tag) {
      const name = local(tag)
      if (name === 'workbookPr') date1904 = ['1', 'true'].includes(attr(tag, 'date1904') ?? '')
      if (name === 'calcPr') uncalculated = ['1', 'true'].includes(attr(tag, 'fullCalcOnLoad') ?? '')
      if (name !== 'sheet') return
      const id = Object.entries(tag.attributes).find(([key]) => local(key) === 'id')?.[1]
      const part = id === undefined ? undefined : rels.byId.get(id)
      const state = attr(tag, 'state')
      if (part) sheets.push({name: attr(tag, 'name') ?? '', hidden: state === 'hidden' || state === 'veryHidden', part})
    },
  })
  const strings = await sharedStrings(zip, rels.byType.get('sharedStrings'))
  const styles = await cellStyles(zip, rels.byType.get('styles'))

  async function* rows(sheet: SheetEntry): AsyncGenerator<WorkbookRecord> {
    let row: RowBuilder | undefined
    let lastLine = 0
    let column = -1
    let cell = {type: 'n', style: 0, ref: '', value: '', formula: false, hasValue: false, text: ''}
    let capture: 'v' | 't' | undefined
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
      else read = value.trim() === '' ? {text: ''} : numberCell(value, styles[cell.style], date1904)
      if (read.text !== '' || read.note) row.set(column, read)
    }
    const parse = zip.parse(sheet.part, {
      open(tag) {
        switch (local(tag)) {
          case 'row':
            lastLine = Number(attr(tag, 'r') ?? lastLine + 1)
            row = new RowBuilder(path, lastLine)
            column = -1
            break
          case 'c': {
            const ref = attr(tag, 'r') ?? ''
            column = columnOf(ref) ?? column + 1
            const type = attr(tag, 't') ?? 'n'
            cell = {type, style: Number(attr(tag, 's') ?? 0), ref, value: '', formula: false, hasValue: false, text: ''}
            break
          }
          case 'v':
            capture = 'v'
            cell.hasValue = true
            break
          case 'f':
            cell.formula = true
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
            const record = row?.record()
            if (record) ready.push(record)
            row = undefined
            break
          }
        }
      },
      text(text) {
        if (capture === 'v') cell.value += text
        else if (capture === 't') cell.text += text
        if (cell.value.length + cell.text.length > MAX_FIELD)
          throw fieldTooLong(path, lastLine, column + 1, cell.value.length + cell.text.length)
      },
    })
    for await (const _ of parse) {
      for (const record of ready) yield record
      ready.length = 0
    }
  }
  return {sheets, rows}
}

/** An .ods: its tables in order (a first pass over content.xml), and the rows of one, streamed. */
async function openOds(path: string, zip: ZipParts) {
  const hiddenStyles = new Set<string>()
  const sheets: SheetEntry[] = []
  let style: string | undefined
  await parseAll(zip, 'content.xml', {
    open(tag) {
      if (tag.name === 'style:style' && attr(tag, 'style:family') === 'table') style = attr(tag, 'style:name')
      else if (tag.name === 'style:table-properties' && style && attr(tag, 'table:display') === 'false')
        hiddenStyles.add(style)
      else if (tag.name === 'table:table') {
        const name = attr(tag, 'table:name') ?? ''
        sheets.push({name, hidden: hiddenStyles.has(attr(tag, 'table:style-name') ?? ''), part: name})
      }
    },
  })

  async function* rows(sheet: SheetEntry): AsyncGenerator<WorkbookRecord> {
    let inSheet = false
    let done = false
    let line = 0
    let row: RowBuilder | undefined
    let rowRepeat = 1
    let column = 0
    let cell: {repeat: number; read?: ReadCell; text: string; paragraphs: number} | undefined
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
          case 'table:table-row':
            row = new RowBuilder(path, line + 1)
            rowRepeat = Number(attr(tag, 'table:number-rows-repeated') ?? 1)
            column = 0
            break
          case 'table:table-cell':
          case 'table:covered-table-cell': {
            const repeat = Number(attr(tag, 'table:number-columns-repeated') ?? 1)
            const type = attr(tag, 'office:value-type')
            const value = attr(tag, 'office:value') ?? ''
            let read: ReadCell | undefined
            if (type === 'float' || type === 'currency') read = numberCell(value, undefined)
            else if (type === 'percentage')
              read = {...numberCell(value, {code: '0.00%'}), note: {kind: 'percent', value}}
            else if (type === 'date') {
              const date = attr(tag, 'office:date-value') ?? ''
              read = {
                text: dateText(new Date(`${date.replace(/Z?$/, '')}${date.includes('T') ? '' : 'T00:00:00'}Z`)),
                note: {kind: 'date'},
              }
            } else if (type === 'boolean')
              read = {text: attr(tag, 'office:boolean-value') === 'true' ? 'TRUE' : 'FALSE'}
            cell = {repeat, read, text: '', paragraphs: 0}
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
          if (read.text !== '' || read.note) {
            // Repeated filled cells are written out; repeated empty ones only move the column.
            for (let i = 0; i < cell.repeat && column + i < 16_384; i++) row.set(column + i, read)
          }
          column += cell.repeat
          cell = undefined
        } else if (name === 'table:table-row' && row) {
          const record = row.record()
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
  return {sheets, rows}
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
    const found = wanted
      ? book.sheets.find((s) => s.name.trim().toLowerCase() === wanted.trim().toLowerCase())
      : visible[0]
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
    return {sheet: found.name, sheets: names, records: records()}
  } catch (error) {
    zip.close()
    throw asUsage(path, error)
  }
}
