/**
 * What a list selects, and how it is read: newest first, a page at a time, each page starting
 * where the last ended (one upper bound, so that the index's range starts at the page: two would
 * leave one a filter, and each page would read again every row of the pages before it).
 */
import type {Statement} from '../../io/database.js'

/** How many rows a list reads at a time. */
const PAGE = 1000

/** What a list selects. */
export interface Selection {
  since?: Date
  until?: Date
  channel?: string
  state?: string
  /** Of these amounts only, each in minor units of its currency (an order's total, a refund's amount). */
  amounts?: {fee: number; currency: string}[]
  /** Orders of this payer (openid) only, where a query or notification showed it. */
  payer?: string
}

/** A list's parameters, from its first row, for the records of one gateway. */
export const paramsOf = (gateway: number, selection: Selection) => ({
  gateway,
  since: selection.since?.getTime() ?? Number.MIN_SAFE_INTEGER,
  // Times are whole milliseconds: before `until` is at most until - 1.
  upto: selection.until ? selection.until.getTime() - 1 : Number.MAX_SAFE_INTEGER,
  channel: selection.channel ?? null,
  state: selection.state ?? null,
  amounts: selection.amounts ? JSON.stringify(selection.amounts.map((a) => `${a.currency}:${a.fee}`)) : null,
  payer: selection.payer ?? null,
  last_row: 0,
})

/** The rows of a list, a page at a time: no query stays open between pages, so whoever reads them may write meanwhile. */
export function* pages(page: Statement, params: ReturnType<typeof paramsOf>): Generator<Record<string, unknown>> {
  for (;;) {
    const rows = page.all(params) as Record<string, unknown>[]
    yield* rows
    if (rows.length < PAGE) return
    const last = rows.at(-1)!
    params.upto = last.at_ms as number
    params.last_row = last.row_id as number
  }
}

/** The SQL of a page of `table` newest first, after the row (@upto, @last_row) read last, of rows `where` selects. */
export const pageSql = (table: string, where: string) =>
  `SELECT rowid AS row_id, * FROM ${table} WHERE ${where} AND NOT (at_ms = @upto AND rowid <= @last_row)
     ORDER BY at_ms DESC, rowid LIMIT ${PAGE}`

/** A row as a record: SQL NULLs and the store's own columns left out. */
export function recordOf<T>(type: string, row: Record<string, unknown> | undefined, appid: string): T | undefined {
  if (!row) return undefined
  const record: Record<string, unknown> = {type, appid}
  for (const [key, value] of Object.entries(row))
    if (value !== null && key !== 'at_ms' && key !== 'row_id' && key !== 'gateway') record[key] = value
  return record as T
}
