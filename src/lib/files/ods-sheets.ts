/**
 * The tables of an .ods (LibreOffice's own format) and the rows of one, streamed from its
 * content.xml: each number cell as its number style shows it (ods-styles), hidden tables, rows
 * and columns (collapsed, filtered, of zero size), struck cells and struck runs of text, filters
 * and merged ranges as ODF writes them.
 */
import {type ConditionalRule, markRow, odfRule} from './conditional-formats.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {OdsStyles} from './ods-styles.js'
import {type ReadCell, dateText, isSubtotal, numberCell} from './workbook-cells.js'
import {
  MergedCells,
  NARROWER_THAN_A_DIGIT,
  RowBuilder,
  type SheetEntry,
  type WorkbookRecord,
  attr,
  columnLetters,
  columnOf,
  parseAll,
} from './workbook-rows.js'
import type {ZipParts} from './zip-parts.js'

/** Whether the package is an OpenDocument spreadsheet (.ods), by its mimetype. */
export async function isOds(zip: ZipParts): Promise<boolean> {
  if (!zip.has('mimetype') || !zip.has('content.xml')) return false
  return (await zip.text('mimetype')).trim() === 'application/vnd.oasis.opendocument.spreadsheet'
}

/** The columns ODF writes at most (LibreOffice's 16,384): repeats past it only move the column. */
const MAX_COLUMNS = 16_384

/** A cell being read: its repeat, what it holds when not text, its text and how much of it is struck. */
interface OdsCell {
  repeat: number
  read?: ReadCell
  text: string
  paragraphs: number
  struck: boolean
  /** Characters of its text in struck runs (`text:span`s of a struck text style), and the depth of such runs open. */
  struckText: number
  inStruck: number
}

/** An .ods: its tables in order (a first pass over its styles and content.xml), and the rows of one, streamed. */
export async function openOds(path: string, zip: ZipParts) {
  const styles = new OdsStyles()
  if (zip.has('styles.xml')) await parseAll(zip, 'styles.xml', styles.handlers)
  const sheets: SheetEntry[] = []
  /** The columns each sheet's filter (a database range's) filters on, by sheet name. */
  const filters = new Map<string, number[]>()
  /** Each sheet's conditional formats that strike or hide cells, evaluated or said (LibreOffice writes them after the rows). */
  const conditional = new Map<string, {rules: ConditionalRule[]; unevaluated: string[]}>()
  let range: {sheet: string; left: number} | undefined
  let table = ''
  let target: string | undefined
  await parseAll(zip, 'content.xml', {
    open(tag) {
      styles.handlers.open(tag)
      if (tag.name === 'table:table') {
        const name = attr(tag, 'table:name') ?? ''
        if (!target) table = name
        sheets.push({name, hidden: styles.hiddenTables.has(attr(tag, 'table:style-name') ?? ''), part: name})
      } else if (tag.name === 'calcext:conditional-format') target = attr(tag, 'calcext:target-range-address') ?? ''
      else if (tag.name === 'calcext:condition' && target !== undefined) {
        const effect = styles.effectOf(attr(tag, 'calcext:apply-style-name'))
        if (!effect) return
        const rules = conditional.get(table) ?? {rules: [], unevaluated: []}
        const rule = odfRule(target, attr(tag, 'calcext:value') ?? '', effect)
        if (typeof rule === 'string') rules.unevaluated.push(rule)
        else rules.rules.push(rule)
        conditional.set(table, rules)
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
      styles.handlers.close(name)
      if (name === 'table:database-range') range = undefined
      else if (name === 'calcext:conditional-format') target = undefined
    },
    text: styles.handlers.text,
  })
  const active = zip.has('settings.xml') ? await activeTable(zip) : undefined

  async function* rows(sheet: SheetEntry): AsyncGenerator<WorkbookRecord> {
    let inSheet = false
    let done = false
    let line = 0
    let row: RowBuilder | undefined
    let rowRepeat = 1
    let column = 0
    let cell: OdsCell | undefined
    /** Each column's default cell style, and why a column is hidden, as the table's columns say. */
    const defaults: (string | undefined)[] = []
    const hiddenColumns: Record<number, string> = {}
    let columnsSeen = 0
    let first = true
    /** The sheet's merged ranges, as their first cells come (ODF says the span there). */
    const merged = new MergedCells()
    const filtered = filters.get(sheet.name) ?? []
    const {rules, unevaluated} = conditional.get(sheet.name) ?? {rules: [], unevaluated: []}
    /** Each cell's number, for the conditional formats that compare one (by column, this row). */
    let numbers: Record<number, number> = {}
    let depth = 0
    const ready: WorkbookRecord[] = []
    const closeCell = () => {
      if (!cell || !row) return
      const read = cell.read ?? {text: cell.text}
      // The text written in a number cell is what a previewer shows: kept when it is not the style's.
      if (read.note?.kind === 'number' && cell.paragraphs && cell.text.trim() !== read.text.trim())
        read.note.written = cell.text
      const filled = cell.text.trim().length
      if (read.text !== '' && (cell.struck || (filled > 0 && cell.struckText >= filled))) read.struck = true
      else if (read.text !== '' && cell.struckText > 0) read.partlyStruck = true
      if (read.text !== '' || read.note) {
        // Repeated filled cells are written out; repeated empty ones only move the column.
        for (let i = 0; i < cell.repeat && column + i < MAX_COLUMNS; i++) {
          row.set(column + i, read)
          if (read.note?.kind === 'number') numbers[column + i] = Number(read.note.value)
        }
      }
      column += cell.repeat
      cell = undefined
    }
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
          case 'table:table-column': {
            const repeat = Math.min(Number(attr(tag, 'table:number-columns-repeated') ?? 1), MAX_COLUMNS)
            const visibility = attr(tag, 'table:visibility')
            const why =
              visibility === 'collapse'
                ? 'hidden'
                : visibility === 'filter'
                  ? 'filtered out'
                  : styles.zeroColumns.has(attr(tag, 'table:style-name') ?? '')
                    ? 'zero width'
                    : styles.narrowColumns.has(attr(tag, 'table:style-name') ?? '')
                      ? NARROWER_THAN_A_DIGIT
                      : undefined
            for (let i = 0; i < repeat && columnsSeen < MAX_COLUMNS; i++, columnsSeen++) {
              defaults[columnsSeen] = attr(tag, 'table:default-cell-style-name')
              if (why) hiddenColumns[columnsSeen] = why
            }
            break
          }
          case 'table:table-row': {
            row = new RowBuilder(path, line + 1)
            numbers = {}
            rowRepeat = Number(attr(tag, 'table:number-rows-repeated') ?? 1)
            column = 0
            const visibility = attr(tag, 'table:visibility')
            if (visibility === 'collapse') row.hidden = 'hidden (collapsed)'
            else if (visibility === 'filter')
              row.hidden = `filtered out by the filter${filtered.length ? ` on column ${filtered.map(columnLetters).join(', ')}` : ''}`
            else if (styles.zeroRows.has(attr(tag, 'table:style-name') ?? '')) row.hidden = 'hidden (zero height)'
            break
          }
          case 'table:table-cell':
          case 'table:covered-table-cell': {
            const repeat = Number(attr(tag, 'table:number-columns-repeated') ?? 1)
            const type = attr(tag, 'office:value-type')
            const value = attr(tag, 'office:value') ?? ''
            const style = attr(tag, 'table:style-name') ?? defaults[column]
            const [across, down] = ['columns', 'rows'].map((d) => Number(attr(tag, `table:number-${d}-spanned`) ?? 1))
            if (across! > 1 || down! > 1)
              merged.add(`${columnLetters(column)}${line + 1}:${columnLetters(column + across! - 1)}${line + down!}`)
            cell = {repeat, text: '', paragraphs: 0, struck: styles.struck(style), struckText: 0, inStruck: 0}
            if (type === 'float' || type === 'currency' || type === 'percentage') {
              const format = styles.formatOf(style)
              const read = numberCell(
                value,
                'unmappable' in format
                  ? {code: 'General', unrenderable: `a number style with ${format.unmappable}`}
                  : format,
              )
              if (read.note?.kind === 'number') {
                if (isSubtotal(attr(tag, 'table:formula') ?? '')) read.note.subtotal = true
                const shown = styles.withCellCurrency(read.text, attr(tag, 'office:currency'))
                const currency = attr(tag, 'office:currency') ?? shown.currency
                if (type === 'currency' && currency) read.note.currency = currency
                read.text = shown.text
              }
              cell.read = read
            } else if (type === 'date') {
              const date = attr(tag, 'office:date-value') ?? ''
              cell.read = {
                text: dateText(new Date(`${date.replace(/Z?$/, '')}${date.includes('T') ? '' : 'T00:00:00'}Z`)),
                note: {kind: 'date'},
              }
            } else if (type === 'boolean')
              cell.read = {text: attr(tag, 'office:boolean-value') === 'true' ? 'TRUE' : 'FALSE'}
            break
          }
          case 'text:p':
            if (cell && cell.paragraphs++) cell.text += '\n'
            break
          case 'text:span':
            if (cell && (cell.inStruck || styles.struckText.has(attr(tag, 'text:style-name') ?? ''))) cell.inStruck++
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
        if (name === 'text:span' && cell?.inStruck) cell.inStruck--
        else if (name === 'table:table-cell' || name === 'table:covered-table-cell') closeCell()
        else if (name === 'table:table-row' && row) {
          markRow(row, rules, numbers)
          const record = row.record(merged.coveredIn(line + 1))
          merged.forget(line + 1)
          if (record) {
            if (first && (Object.keys(hiddenColumns).length || unevaluated.length))
              record.facts = {hiddenColumns, unevaluated}
            first = false
            for (let i = 0; i < rowRepeat && i < 1_048_576; i++) ready.push({...record, line: line + 1 + i})
          }
          line += rowRepeat
          row = undefined
        }
      },
      text(text) {
        if (!cell || done) return
        cell.text += text
        if (cell.inStruck) cell.struckText += text.trim().length
        if (cell.text.length > MAX_FIELD) throw fieldTooLong(path, line + 1, column + 1, cell.text.length)
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
