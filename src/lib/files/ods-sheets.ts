/**
 * The tables of an .ods (LibreOffice's own format) and the rows of one, streamed from its
 * content.xml: hidden tables and rows, struck cells, filters and merged ranges as ODF writes them.
 */
import {MAX_FIELD, fieldTooLong} from './limits.js'
import {type ReadCell, dateText, isSubtotal, numberCell} from './workbook-cells.js'
import {
  MergedCells,
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

/** An .ods: its tables in order (a first pass over content.xml), and the rows of one, streamed. */
export async function openOds(path: string, zip: ZipParts) {
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
    /** The sheet's merged ranges, as their first cells come (ODF says the span there). */
    const merged = new MergedCells()
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
            if (across! > 1 || down! > 1)
              merged.add(`${columnLetters(column)}${line + 1}:${columnLetters(column + across! - 1)}${line + down!}`)
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
          const record = row.record(merged.coveredIn(line + 1))
          merged.forget(line + 1)
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
