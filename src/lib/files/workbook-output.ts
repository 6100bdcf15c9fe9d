/**
 * An annotated output as an .xlsx workbook, streamed (exceljs's streaming writer): text as
 * text cells (a 23-digit order number keeps every digit; text is never a formula in a
 * workbook), gw's numbers as numbers, amounts as numbers with the currency's decimals, the
 * header row frozen, columns as wide as their content (measured on the first rows, which are
 * held until then: a sheet's column widths come before its rows), and the run's summary on a
 * second sheet.
 */
import type {Writable} from 'node:stream'

import type {CellRichTextValue, Row, Workbook, Worksheet} from 'exceljs'

import {exponentOf} from '../gateway/protocol/index.js'
import {xmlSafe} from '../untrusted.js'
import {type Cell, type RowSink, type SummarySheet, cellText, summaryLines} from './cells.js'
import {toWorkbookText} from './workbook-cells.js'

const numberFormat = (currency: string) => {
  const decimals = exponentOf(currency) ?? 0
  return decimals ? `#,##0.${'0'.repeat(decimals)}` : '#,##0'
}

/** Text holding a CR, or something a reader would take for an escape (`_x000D_`). */
const NEEDS_ESCAPES = /\r|_x[0-9a-fA-F]{4}_/

/**
 * A text cell, kept exactly. Text with a CR (which XML reads as a new line) or with what reads as
 * an escape is an inline string with ECMA-376's escapes, which Excel, LibreOffice and exceljs
 * read (LibreOffice does not in a plain string cell, exceljs's usual form); other text as it is.
 */
function textCell(text: string): string | CellRichTextValue {
  const safe = xmlSafe(text)
  return NEEDS_ESCAPES.test(safe) ? {richText: [{text: toWorkbookText(safe)}]} : safe
}

/** Rows measured for the columns' widths before the first is written. */
const MEASURED_ROWS = 200

/** A column's width in characters: its widest cell (as shown, Thai and CJK counted wide enough), within 8 to 60. */
function widthOf(cells: readonly Cell[]): number {
  const widest = Math.max(0, ...cells.map((cell) => [...cellText(cell)].length))
  return Math.min(60, Math.max(8, widest + 2))
}

/** Adds a row of cells to a sheet and commits it. */
function addRow(sheet: Worksheet, cells: readonly Cell[], bold = false): void {
  const row: Row = sheet.addRow(
    cells.map((cell) => {
      if (cell === undefined) return null
      if (typeof cell === 'string') return textCell(cell)
      if (typeof cell === 'number') return cell
      if ('typed' in cell) return cell.typed
      return cell.minor / 10 ** (exponentOf(cell.currency) ?? 0)
    }),
  )
  cells.forEach((cell, i) => {
    if (!cell || typeof cell !== 'object') return
    const format = 'typed' in cell ? cell.numFmt : numberFormat(cell.currency)
    if (format) row.getCell(i + 1).numFmt = format
  })
  if (bold) row.font = {bold: true}
  row.commit()
}

/** A sheet whose columns are sized to `measured` (rows of cells), its rows down to `frozen` kept in view. */
function addSheet(workbook: Workbook, name: string, measured: readonly (readonly Cell[])[], frozen: number): Worksheet {
  const sheet = workbook.addWorksheet(name, {views: [frozen ? {state: 'frozen', ySplit: frozen} : {state: 'normal'}]})
  const width = Math.max(0, ...measured.map((row) => row.length))
  sheet.columns = Array.from({length: width}, (_, i) => ({width: widthOf(measured.map((row) => row[i]))}))
  return sheet
}

export async function workbookSink(stream: Writable, sheetName: string): Promise<RowSink> {
  const {default: ExcelJS} = await import('exceljs')
  // exceljs's writer calls Buffer() (Node's DEP0005 warning): noise on a user's terminal they cannot act on.
  process.noDeprecation = true
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({stream, useStyles: true, useSharedStrings: false})
  let held: {cells: Cell[]; header: boolean}[] | undefined = []
  let sheet: Worksheet | undefined
  /** The rows held to measure the columns go out (the header bold, and in view down to it), and the rest follow as they come. */
  const open = (): Worksheet => {
    if (sheet) return sheet
    const frozen = held!.findIndex((row) => row.header) + 1
    sheet = addSheet(
      workbook,
      sheetName,
      held!.map((row) => row.cells),
      frozen,
    )
    for (const row of held!) addRow(sheet, row.cells, row.header)
    held = undefined
    return sheet
  }
  return {
    async write(cells, header = false) {
      if (held && held.length < MEASURED_ROWS) held.push({cells, header})
      else addRow(open(), cells, header)
    },
    async end(summary?: SummarySheet) {
      open().commit()
      if (summary) {
        const lines = summaryLines(summary)
        const sheet = addSheet(workbook, 'summary', lines, 0)
        for (const line of lines) addRow(sheet, line, line === summary.header)
        sheet.commit()
      }
      await workbook.commit()
    },
    async destroy() {
      stream.destroy()
    },
  }
}
