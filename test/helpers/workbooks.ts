/** Workbooks made and read by tests with exceljs, the library gw reads and writes them with (its whole-file API, not gw's streaming code). */
import ExcelJS from 'exceljs'

interface SheetSpec {
  name: string
  rows: unknown[][]
  /** Number formats by cell address, e.g. {B2: '#,##0.00'}. */
  formats?: Record<string, string>
  state?: 'visible' | 'hidden'
  /** Notes (Excel's legacy comments) by cell address, e.g. {B2: 'Somchai:\nRejected'}. */
  notes?: Record<string, string>
}

export async function writeWorkbook(path: string, sheets: SheetSpec[]): Promise<string> {
  const workbook = new ExcelJS.Workbook()
  for (const spec of sheets) {
    const sheet = workbook.addWorksheet(spec.name, {state: spec.state ?? 'visible'})
    for (const row of spec.rows) sheet.addRow(row)
    for (const [address, format] of Object.entries(spec.formats ?? {})) sheet.getCell(address).numFmt = format
    for (const [address, note] of Object.entries(spec.notes ?? {})) sheet.getCell(address).note = note
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
    const widths = (sheet.columns ?? []).map((column) => column.width ?? 0)
    return {name: sheet.name, frozenRows: view?.state === 'frozen' ? view.ySplit : 0, rows, widths}
  })
}

/**
 * A ZIP archive written as it streams (archiver): `entries` maps a name to its content, or to
 * a size in MiB of one repeated letter between two texts (a bomb: megabytes on disk,
 * gigabytes unpacked).
 */
export async function writeZip(
  path: string,
  entries: Record<string, string | {repeatMiB: number; before: string; after: string; unit?: string}>,
): Promise<string> {
  const {default: archiver} = await import('archiver')
  const {createWriteStream} = await import('node:fs')
  const {Readable} = await import('node:stream')
  const zip = archiver('zip', {zlib: {level: 1}})
  const done = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path)
    out.on('close', () => resolve())
    zip.on('error', reject)
    zip.pipe(out)
  })
  for (const [name, content] of Object.entries(entries)) {
    if (typeof content === 'string') {
      zip.append(content, {name})
      continue
    }
    const {before, after, repeatMiB, unit = 'a'} = content
    const chunk = Buffer.alloc(1024 * 1024, unit)
    async function* body() {
      yield Buffer.from(before)
      for (let i = 0; i < repeatMiB; i++) yield chunk
      yield Buffer.from(after)
    }
    zip.append(Readable.from(body()), {name})
  }
  await zip.finalize()
  await done
  return path
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships'
const DOC = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

/** A workbook of one sheet whose header cell is a shared string of `mib` MiB: a ZIP bomb. */
export const writeWorkbookBomb = (path: string, mib: number) =>
  writeRawWorkbook(
    path,
    {
      repeatMiB: mib,
      before: `<?xml version="1.0"?><sst xmlns="${MAIN}" count="1" uniqueCount="1"><si><t>`,
      after: '</t></si></sst>',
    },
    '<row r="1"><c r="A1" t="s"><v>0</v></c></row>',
  )

/**
 * A workbook of one sheet whose shared strings are `mib` MiB of strings of 1 KiB each (the
 * issue's bomb: each string far below any cell's limit, gigabytes of them). `declaredMiB`: the
 * size its central directory says the part unpacks to, when that is to be more than it does.
 */
export async function writeSharedStringsBomb(path: string, mib: number, declaredMiB?: number): Promise<string> {
  const unit = `<si><t>${'A'.repeat(1024 - '<si><t></t></si>'.length)}</t></si>`
  await writeRawWorkbook(
    path,
    {repeatMiB: mib, unit, before: `<?xml version="1.0"?><sst xmlns="${MAIN}">`, after: '</sst>'},
    '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>',
  )
  if (declaredMiB === undefined) return path
  // The central directory's record of the part: its uncompressed size (32 bits at offset 24).
  const {readFileSync, writeFileSync} = await import('node:fs')
  const zip = readFileSync(path)
  const name = Buffer.from('xl/sharedStrings.xml')
  for (
    let at = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    at > 0;
    at = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at - 1)
  ) {
    if (!zip.subarray(at + 46, at + 46 + name.length).equals(name)) continue
    zip.writeUInt32LE(declaredMiB * 1024 * 1024, at + 24)
    break
  }
  writeFileSync(path, zip)
  return path
}

/** A workbook of one sheet, its XML as a producer wrote it: the shared strings part (as writeZip takes it) and the sheet's rows. */
export function writeRawWorkbook(
  path: string,
  sharedStrings: Parameters<typeof writeZip>[1][string],
  rows: string,
): Promise<string> {
  return writeZip(path, {
    '[Content_Types].xml': `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${DOC}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${DOC}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    'xl/sharedStrings.xml': sharedStrings,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`,
  })
}
