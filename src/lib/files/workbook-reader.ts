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
import {GwError, usageError} from '../errors.js'
import {quoted} from '../untrusted.js'
import {isOds, openOds} from './ods-sheets.js'
import type {WorkbookRecord} from './workbook-rows.js'
import {openXlsx} from './xlsx-sheets.js'
import {PartTooLarge, type ZipParts, openZip} from './zip-parts.js'

/** A workbook's rows: the sheet read, the workbook's visible sheets, the one it opens on, and the rows as they stream. */
export interface WorkbookRecords {
  sheet: string
  sheets: string[]
  /** The sheet the workbook opens on (its active tab), when it is a visible one. */
  active?: string
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
    // The sheet the workbook opens on (its active tab) when it is shown, else the first shown.
    const opensOn = book.active && !book.active.hidden ? book.active : undefined
    const found = wanted
      ? book.sheets.find((s) => s.name.trim().toLowerCase() === wanted.trim().toLowerCase())
      : (opensOn ?? visible[0])
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
    return {sheet: found.name, sheets: names, ...(opensOn ? {active: opensOn.name} : {}), records: records()}
  } catch (error) {
    zip.close()
    throw asUsage(path, error)
  }
}
