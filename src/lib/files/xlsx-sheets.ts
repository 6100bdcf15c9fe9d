/**
 * The sheets of an .xlsx and the rows of one, streamed: its relationships, shared strings and
 * cell styles first, then what a sheet says after its rows (its autofilter and merged ranges),
 * read before them, then the rows.
 */
import {posix} from 'node:path'

import {usageError} from '../errors.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {type NumberFormat, numberFormat} from './shown-number.js'
import {type ReadCell, dateText, fromWorkbookText, isSubtotal, numberCell} from './workbook-cells.js'
import {
  MergedCells,
  RowBuilder,
  type SheetEntry,
  type WorkbookRecord,
  attr,
  columnLetters,
  columnOf,
  local,
  parseAll,
  rangeOf,
} from './workbook-rows.js'
import {PartTooLarge, type ZipParts} from './zip-parts.js'

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
): Promise<{numbers: NumberFormat[]; struck: boolean[]}> {
  const codes = new Map<number, string>()
  const numbers: NumberFormat[] = []
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
        numbers.push(numberFormat(id, codes.get(id)))
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

/** An .xlsx: its sheets in order, and the rows of one, streamed. */
export async function openXlsx(path: string, zip: ZipParts) {
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
            const record = row?.record(merged.coveredIn(row.line))
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
