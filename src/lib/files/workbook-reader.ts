/**
 * The rows of an .xlsx workbook, streamed (exceljs's streaming reader: memory does not grow
 * with the sheet), each cell as the text a person sees in it and a CSV export would hold:
 * numbers as their format shows them (number-format), dates as ISO dates. A whole number past
 * 15 digits is marked inexact: Excel keeps only 15, so such an order number has lost digits.
 * Runs in a worker thread (workbook-worker), where a workbook that expands beyond reason
 * cannot exhaust gw's own memory.
 */
import type {CellValue} from 'exceljs'

import {GwError, usageError} from '../errors.js'
import {quoted} from '../untrusted.js'
import {MAX_FIELD, fieldTooLong} from './limits.js'
import type {TypedCells} from './cells.js'
import {formatNumber} from './number-format.js'

const pad = (n: number) => String(n).padStart(2, '0')

/** A date cell (exceljs gives the sheet's wall time as UTC) as 2026-11-20, or 2026-11-20 14:03:00 when it has a time. */
function dateText(date: Date): string {
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
  const seconds = date.getUTCHours() * 3600 + date.getUTCMinutes() * 60 + date.getUTCSeconds()
  return seconds === 0
    ? day
    : `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
}

/** A cell's value as text; `numFmt`, its number format. */
export function cellText(value: CellValue, numFmt?: string): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  if (typeof value === 'number') return formatNumber(value, numFmt)
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : dateText(value)
  if ('richText' in value) return value.richText.map((part) => part.text).join('')
  if ('error' in value) return String(value.error)
  if ('formula' in value || 'sharedFormula' in value) return cellText(value.result as CellValue, numFmt)
  if ('text' in value) return cellText(value.text as CellValue, numFmt)
  return ''
}

interface WorksheetReader extends AsyncIterable<{
  number: number
  cellCount: number
  getCell(n: number): {value: CellValue; numFmt?: string}
}> {
  name: string
}

/** A row of a sheet: its cells as text, its row number, and which cells hold a number past 15 digits. */
export interface WorkbookRecord {
  record: string[]
  line: number
  inexact?: number[]
  /** The number and date cells as typed, by column: a workbook report writes them back as they were. */
  typed?: TypedCells
}

/** A workbook's rows: the sheet read, the workbook's visible sheets, and the rows as they stream. */
export interface WorkbookRecords {
  sheet: string
  sheets: string[]
  records: AsyncGenerator<WorkbookRecord>
}

/** The heap a workbook may use while read (workbook-records): ten times what a 100,000-row sheet needs. */
export const WORKER_HEAP_MB = 512

/** A workbook that expands beyond what gw reads: its heap, or the longest text a JavaScript string holds. */
export const tooLarge = (path: string) =>
  usageError(
    `${path} expands to more than gw reads (over ${WORKER_HEAP_MB} MiB while reading): it is not an export of rows, or it is damaged.`,
    'Open it in Excel and export the sheet as CSV UTF-8, or save it again as .xlsx.',
  )

/** Whole numbers Excel cannot hold exactly (it keeps 15 significant digits). */
const EXACT_LIMIT = 1e15

/**
 * exceljs's streaming reader (over unzipper 0.10's streaming parse) now and then ends the
 * archive before its last entries when sheets are stored before workbook.xml, as exceljs and
 * Excel store them, and fails with "reading 'sheets'": about one read in two hundred when
 * readers are left unfinished, fewer when each parse is read to its end (measured with exceljs
 * alone; unzipper 0.12 fails more often). The file is not at fault: it is read again from the
 * start, before any row was taken, and every parse is read to its end.
 */
const READ_ATTEMPTS = 5
const isReaderRace = (error: unknown) => error instanceof TypeError && error.message.includes("reading 'sheets'")

/** Opens the sheet named `wanted` (any case), or the first visible sheet; rows stream as `records` is iterated. */
export async function readWorkbook(path: string, wanted: string | undefined): Promise<WorkbookRecords> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await openSheet(path, wanted)
    } catch (error) {
      if (!(error instanceof ReaderRace) || attempt === READ_ATTEMPTS)
        throw error instanceof ReaderRace ? error.usage : error
    }
  }
}

class ReaderRace extends Error {
  constructor(readonly usage: GwError) {
    super(usage.message)
  }
}

async function openSheet(path: string, wanted: string | undefined): Promise<WorkbookRecords> {
  const {default: ExcelJS} = await import('exceljs')
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(path, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  })
  const sheets = () =>
    ((reader as unknown as {model?: {sheets?: {name: string; state?: string}[]}}).model?.sheets ?? []).filter(
      (s) => s.state !== 'hidden' && s.state !== 'veryHidden',
    )
  const iterator = (reader as AsyncIterable<WorksheetReader>)[Symbol.asyncIterator]()
  const matches = (sheet: WorksheetReader, first: string | undefined) =>
    wanted ? sheet.name.trim().toLowerCase() === wanted.trim().toLowerCase() : !first || sheet.name === first
  let found: WorksheetReader | undefined
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (matches(next.value, sheets()[0]?.name)) {
        found = next.value
        break
      }
      // A sheet passed over is read through: exceljs removes its temporary file (a sheet stored
      // before the shared strings, as Excel stores them) as soon as we move on, while the
      // sheet's stream may still be opening it.
      for await (const _row of next.value) void _row
    }
  } catch (error) {
    if (error instanceof RangeError) throw tooLarge(path)
    const unreadable = usageError(
      `${path} is not a CSV or .xlsx file: it looks like a ZIP archive, but it cannot be read as a workbook (${quoted((error as Error).message)}).`,
      'Open it in Excel and save it again as .xlsx, or export the sheet as CSV UTF-8.',
    )
    throw isReaderRace(error) ? new ReaderRace(unreadable) : unreadable
  }
  const names = sheets().map((s) => s.name)
  if (!found && !wanted) {
    throw usageError(
      `${path} is not a CSV or .xlsx file: it is a ZIP archive without a worksheet.`,
      'Give the .xlsx workbook, or export the sheet as CSV UTF-8.',
    )
  }
  if (!found) {
    throw usageError(
      `${path} has no sheet named ${quoted(wanted)}; its sheets are: ${names.map((n) => quoted(n)).join(', ')}.`,
    )
  }
  const sheet = found
  async function* records(): AsyncGenerator<WorkbookRecord> {
    try {
      for await (const row of sheet) {
        const inexact: number[] = []
        const typed: TypedCells = []
        const record = Array.from({length: row.cellCount}, (_, i) => {
          const {value, numFmt} = row.getCell(i + 1)
          const number = typeof value === 'object' && value && 'result' in value ? value.result : value
          if (typeof number === 'number' && Math.abs(number) >= EXACT_LIMIT) inexact.push(i)
          if (typeof number === 'number' || (number instanceof Date && !Number.isNaN(number.getTime())))
            typed.push(numFmt ? {at: i, typed: number, numFmt} : {at: i, typed: number})
          const text = cellText(value, numFmt)
          // Checked here, in the worker: a huge cell is never copied to gw's own thread.
          if (text.length > MAX_FIELD) throw fieldTooLong(path, row.number, i + 1, text.length)
          return text
        })
        // Cells formatted but empty at the end of a row are not fields.
        while (record.length && record.at(-1)!.trim() === '') record.pop()
        if (record.length)
          yield {record, line: row.number, ...(inexact.length ? {inexact} : {}), ...(typed.length ? {typed} : {})}
      }
    } catch (error) {
      if (error instanceof GwError) throw error
      if (error instanceof RangeError) throw tooLarge(path)
      throw usageError(
        `${path}, sheet ${quoted(sheet.name)}: the workbook is damaged (${quoted((error as Error).message)}).`,
        'Open it in Excel and save it again, or export the sheet as CSV UTF-8.',
      )
    } finally {
      // The sheets after it are read through: exceljs cleans up only a parse read to its end.
      try {
        for (let next = await iterator.next(); !next.done; next = await iterator.next())
          for await (const _row of next.value) void _row
      } catch {
        // what follows the sheet read does not matter to it
      }
    }
  }
  return {sheet: sheet.name, sheets: names, records: records()}
}
