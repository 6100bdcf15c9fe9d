/**
 * The cells gw writes to a table (a CSV or a workbook), shared by both writers: text, gw's
 * numbers, amounts in a currency, and the summary (audit) of a run.
 */
import {toDecimal} from '../gateway/protocol/index.js'

/** An amount in a currency gw knows: a decimal in a CSV, a number with the currency's decimals in a workbook. */
export interface Money {
  minor: number
  currency: string
}

/** A number or date cell of an input workbook, as it was typed and formatted there. */
export interface TypedCell {
  typed: number | Date
  numFmt?: string
}

/**
 * A row's typed cells, each with its column (0-based): a short list rather than an object keyed
 * by column, which costs three times the memory in a file held whole (a million-row dry run).
 */
export type TypedCells = (TypedCell & {at: number})[]

export type Cell = string | number | Money | TypedCell | undefined

/** The run's summary (audit): a second sheet of a workbook output, `<name>.summary.csv` beside a CSV one. */
export interface SummarySheet {
  /** Name and value of each fact of the run (file, account, times). */
  trail: [string, Cell][]
  /** The totals' header and rows. */
  header: string[]
  rows: Cell[][]
}

/** Every line of a summary, as a sheet or a CSV holds it: the trail, a blank line, the totals. */
export const summaryLines = (summary: SummarySheet): Cell[][] => [
  ...summary.trail.map(([name, value]) => [name, value]),
  [],
  summary.header,
  ...summary.rows,
]

/** Whether a cell is one of gw's amounts in a currency. */
export const isMoney = (value: Cell): value is Money =>
  typeof value === 'object' && value !== null && 'minor' in value && 'currency' in value

/** A cell as plain text: gw's amounts as decimals in their currency. */
export function cellText(value: Cell): string {
  if (value === undefined) return ''
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return value
  if ('typed' in value) return value.typed instanceof Date ? value.typed.toISOString() : String(value.typed)
  return toDecimal(value.minor, value.currency)
}

/** Where the cells of each row go: a CSV stringifier, or a workbook. */
export interface RowSink {
  /** `header`: the columns' header row (a workbook shows it bold and keeps it in view). */
  write(cells: Cell[], header?: boolean): Promise<void>
  end(summary?: SummarySheet): Promise<void>
  destroy(): Promise<void>
}
