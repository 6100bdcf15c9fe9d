/**
 * The sheets of an .xlsx and the rows of one, streamed: its relationships, shared strings and
 * cell styles first (xlsx-styles), then what a sheet says after its rows (its autofilter, merged
 * ranges and conditional formats: xlsx-tail), read before them, then its columns and rows, each
 * cell as its format shows it, each row and column the sheet hides said, each cell struck through
 * (by its font, a conditional format, or every run of its text) marked.
 */
import {usageError} from '../errors.js'
import {markRow} from './conditional-formats.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {showText} from './shown-number.js'
import {type AutoFilter, sheetTail} from './xlsx-tail.js'
import {RunStrikes, type Strike, cellStyles, relationships, sharedStrings} from './xlsx-styles.js'
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
  parseAll,
} from './workbook-rows.js'
import type {ZipParts} from './zip-parts.js'

const TRUE = ['1', 'true']

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
  const {strings, strikes} = await sharedStrings(zip, rels.byType.get('sharedStrings'))
  const styles = await cellStyles(zip, rels.byType.get('styles'))

  async function* rows(sheet: SheetEntry): AsyncGenerator<WorkbookRecord> {
    const {filter, merged, rules, unevaluated} = await sheetTail(zip, sheet.part, styles.effects)
    /** Columns the sheet hides (`<col hidden>`, of zero width), with why. */
    const hiddenColumns: Record<number, string> = {}
    /** Rows are of zero height unless they say their height (`sheetFormatPr zeroHeight`). */
    let zeroHeight = false
    let first = true
    let row: RowBuilder | undefined
    let rowHidden: string | undefined
    let rowGrouped = false
    let lastLine = 0
    let column = -1
    let cell = {type: 'n', style: 0, ref: '', value: '', formula: '', hasValue: false, text: ''}
    let capture: 'v' | 't' | 'f' | undefined
    let inInline = false
    let phonetic = 0
    const runs = new RunStrikes()
    /** Each cell's number, for the conditional formats that compare one (by column, this row). */
    let numbers: Record<number, number> = {}
    const ready: WorkbookRecord[] = []
    const finishCell = () => {
      if (!row) return
      const {type, value, text} = cell
      // A text is shown through its format's text section too (`;;;` shows nothing, a fourth section words).
      const shownText = (held: string) => showText(held, styles.numbers[cell.style]?.code)
      let read: ReadCell
      let strike: Strike = 'none'
      if (cell.formula && (uncalculated || !cell.hasValue || (value === '' && type !== 'str')))
        read = {text: '', note: {kind: 'formula', address: cell.ref || `${row.line}:${column + 1}`}}
      else if (type === 's') {
        read = {text: shownText(strings[Number(value)] ?? '')}
        strike = strikes.get(Number(value)) ?? 'none'
      } else if (type === 'inlineStr') {
        read = {text: shownText(fromWorkbookText(text))}
        strike = runs.take()
      } else if (type === 'str') read = {text: shownText(fromWorkbookText(value))}
      else if (type === 'e') read = {text: value}
      else if (type === 'b') read = {text: value === '1' ? 'TRUE' : 'FALSE'}
      else if (type === 'd') read = {text: dateText(new Date(`${value.replace(/Z?$/, '')}Z`)), note: {kind: 'date'}}
      else {
        read = value.trim() === '' ? {text: ''} : numberCell(value, styles.numbers[cell.style], date1904)
        if (read.note?.kind === 'number') {
          numbers[column] = Number(read.note.value)
          if (isSubtotal(cell.formula)) read.note.subtotal = true
        }
      }
      if (read.text !== '' && (styles.struck[cell.style] || strike === 'all')) read.struck = true
      else if (read.text !== '' && strike === 'part') read.partlyStruck = true
      if (read.text !== '' || read.note) row.set(column, read)
      // White on white: the cell looks empty, as under `;;;`.
      if (read.text.trim() !== '' && styles.unseen[cell.style]) row.blanked.push(column)
    }
    const parse = zip.parse(sheet.part, {
      open(tag) {
        switch (local(tag)) {
          case 'sheetFormatPr':
            zeroHeight = TRUE.includes(attr(tag, 'zeroHeight') ?? '')
            break
          case 'col': {
            const [min, max] = [Number(attr(tag, 'min') ?? 0), Number(attr(tag, 'max') ?? 0)]
            const why = TRUE.includes(attr(tag, 'hidden') ?? '')
              ? Number(attr(tag, 'outlineLevel') ?? 0) > 0
                ? 'hidden (in a collapsed group of columns)'
                : 'hidden'
              : attr(tag, 'width') !== undefined && Number(attr(tag, 'width')) === 0
                ? 'zero width'
                : // Excel's width unit is a digit of its default font.
                  attr(tag, 'width') !== undefined && Number(attr(tag, 'width')) < 1
                  ? NARROWER_THAN_A_DIGIT
                  : undefined
            // A <col> of Excel's every column (1 to 16384) is a width for the sheet, not a list to spell out.
            if (why)
              for (let at = Math.max(min, 1); at <= Math.min(max, min + 16_384); at++) hiddenColumns[at - 1] = why
            break
          }
          case 'row': {
            lastLine = Number(attr(tag, 'r') ?? lastLine + 1)
            row = new RowBuilder(path, lastLine)
            numbers = {}
            const height = attr(tag, 'ht')
            rowHidden = TRUE.includes(attr(tag, 'hidden') ?? '')
              ? 'hidden'
              : (height !== undefined && Number(height) === 0) ||
                  (zeroHeight && !TRUE.includes(attr(tag, 'customHeight') ?? ''))
                ? 'hidden (zero height)'
                : undefined
            rowGrouped = Number(attr(tag, 'outlineLevel') ?? 0) > 0
            column = -1
            break
          }
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
        if (inInline) runs.open(local(tag), tag)
      },
      close(name) {
        if (inInline) runs.close(local(name))
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
            if (row) {
              row.hidden = whyHidden(row, rowHidden, rowGrouped, filter)
              markRow(row, rules, numbers)
            }
            const record = row?.record(merged.coveredIn(row.line))
            if (record) {
              if (first && (Object.keys(hiddenColumns).length || unevaluated.length))
                record.facts = {hiddenColumns, unevaluated}
              first = false
              ready.push(record)
            }
            row = undefined
            break
          }
        }
      },
      text(text) {
        if (capture === 'v') cell.value += text
        else if (capture === 't') {
          cell.text += text
          runs.text(text)
        } else if (capture === 'f' && cell.formula.length < 64) cell.formula += text
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
