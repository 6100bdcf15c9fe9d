/**
 * The sheets of an .xlsx and the rows of one, streamed: its relationships, shared strings and
 * cell styles first (xlsx-styles), then, for the sheet read, what it says after its rows (its
 * autofilter, merged ranges and conditional formats: xlsx-tail) and its rows (xlsx-rows).
 */
import {usageError} from '../errors.js'
import {type XlsxBook, xlsxRows} from './xlsx-rows.js'
import {sharedStrings} from './xlsx-strings.js'
import {cellStyles, relationships, themeColours} from './xlsx-styles.js'
import {type SheetEntry, attr, local, parseAll} from './workbook-rows.js'
import type {ZipParts} from './zip-parts.js'

const TRUE = ['1', 'true']

/** The workbook part: its sheets in order, the one it opens on, its date system and whether it must be calculated. */
async function workbookOf(zip: ZipParts, workbookPart: string) {
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
      if (name === 'workbookPr') date1904 = TRUE.includes(attr(tag, 'date1904') ?? '')
      if (name === 'calcPr') uncalculated = TRUE.includes(attr(tag, 'fullCalcOnLoad') ?? '')
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
  return {rels, sheets, active: listed[activeTab], date1904, uncalculated}
}

/** An .xlsx: its sheets in order, the one it opens on, and the rows of one, streamed. */
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
  const {rels, sheets, active, date1904, uncalculated} = await workbookOf(zip, workbookPart)
  const theme = await themeColours(zip, rels.byType.get('theme'))
  const {strings, marks} = await sharedStrings(zip, rels.byType.get('sharedStrings'), theme)
  const styles = await cellStyles(zip, rels.byType.get('styles'), theme)
  const book: XlsxBook = {strings, marks, styles, theme, date1904, uncalculated}
  return {sheets, rows: (sheet: SheetEntry) => xlsxRows(path, zip, book, sheet), active}
}
