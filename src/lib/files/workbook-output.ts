/**
 * An annotated output as an .xlsx workbook, streamed (exceljs's streaming writer): text as
 * text cells (a 23-digit order number keeps every digit; text is never a formula in a
 * workbook), gw's numbers as numbers, amounts as numbers with the currency's decimals, the
 * header row frozen, and the run's summary on a second sheet.
 */
import type {Writable} from 'node:stream'

import type {Row, Workbook, Worksheet} from 'exceljs'

import {exponentOf} from '../gateway/protocol/index.js'
import {xmlSafe} from '../untrusted.js'
import type {Cell, RowSink, SummarySheet} from './annotated-output.js'

const numberFormat = (currency: string) => {
  const decimals = exponentOf(currency) ?? 0
  return decimals ? `#,##0.${'0'.repeat(decimals)}` : '#,##0'
}

/** Adds a row of cells to a sheet and commits it. */
function addRow(sheet: Worksheet, cells: readonly Cell[], bold = false): void {
  const row: Row = sheet.addRow(
    cells.map((cell) => {
      if (cell === undefined) return null
      if (typeof cell === 'string') return xmlSafe(cell)
      if (typeof cell === 'number') return cell
      return cell.minor / 10 ** (exponentOf(cell.currency) ?? 0)
    }),
  )
  cells.forEach((cell, i) => {
    if (cell && typeof cell === 'object') row.getCell(i + 1).numFmt = numberFormat(cell.currency)
  })
  if (bold) row.font = {bold: true}
  row.commit()
}

function addSheet(workbook: Workbook, name: string, header: string[]): Worksheet {
  const sheet = workbook.addWorksheet(name, {views: [{state: 'frozen', ySplit: 1}]})
  sheet.columns = header.map((title) => ({width: Math.min(40, Math.max(12, title.length + 2))}))
  addRow(sheet, header, true)
  return sheet
}

export async function workbookSink(stream: Writable, columns: string[], sheetName: string): Promise<RowSink> {
  const {default: ExcelJS} = await import('exceljs')
  // exceljs's writer calls Buffer() (Node's DEP0005 warning): noise on a user's terminal they cannot act on.
  process.noDeprecation = true
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({stream, useStyles: true, useSharedStrings: false})
  const sheet = addSheet(workbook, sheetName, columns)
  return {
    async write(cells) {
      addRow(sheet, cells)
    },
    async end(summary?: SummarySheet) {
      sheet.commit()
      if (summary) {
        const sheet = addSheet(workbook, 'summary', summary.header)
        for (const row of summary.rows) addRow(sheet, row)
        sheet.commit()
      }
      await workbook.commit()
    },
    async destroy() {
      stream.destroy()
    },
  }
}
