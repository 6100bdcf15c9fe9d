/** Workbooks made and read by tests with exceljs, the library gw reads and writes them with (its whole-file API, not gw's streaming code). */
import ExcelJS from 'exceljs'

interface SheetSpec {
  name: string
  rows: unknown[][]
  /** Number formats by cell address, e.g. {B2: '#,##0.00'}. */
  formats?: Record<string, string>
  state?: 'visible' | 'hidden'
}

export async function writeWorkbook(path: string, sheets: SheetSpec[]): Promise<string> {
  const workbook = new ExcelJS.Workbook()
  for (const spec of sheets) {
    const sheet = workbook.addWorksheet(spec.name, {state: spec.state ?? 'visible'})
    for (const row of spec.rows) sheet.addRow(row)
    for (const [address, format] of Object.entries(spec.formats ?? {})) sheet.getCell(address).numFmt = format
  }
  await workbook.xlsx.writeFile(path)
  return path
}

interface ReadCell {
  value: unknown
  /** exceljs's ValueType: 2 number, 3 string. */
  type: number
  numFmt?: string
}

/** Every sheet of a workbook: its name, frozen rows, and its rows of cells (1-based columns as 0-based arrays). */
export async function readWorkbook(path: string) {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(path)
  return workbook.worksheets.map((sheet) => {
    const rows: ReadCell[][] = []
    sheet.eachRow((row) => {
      const cells: ReadCell[] = []
      row.eachCell({includeEmpty: true}, (cell, n) => {
        cells[n - 1] = {value: cell.value, type: cell.type, numFmt: cell.numFmt || undefined}
      })
      rows.push(cells)
    })
    const view = sheet.views[0] as {state?: string; ySplit?: number} | undefined
    return {name: sheet.name, frozenRows: view?.state === 'frozen' ? view.ySplit : 0, rows}
  })
}
