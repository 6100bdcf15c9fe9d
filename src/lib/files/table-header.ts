/**
 * A table's header: the row that names the columns the command reads (the first of the first
 * rows that holds them, or the one most like a header), each field's column, the columns the
 * sheet hides (never read by their name), and what is wrong with it before any row is read.
 */
import {
  CURRENCIES,
  ORDER_NUMBER_FIELDS,
  currencyOfHeader,
  isCurrency,
  scaleOfHeader,
} from '../gateway/protocol/index.js'
import {quoted} from '../untrusted.js'
import {
  type Columns,
  columnFlag,
  columnHints,
  groupsNamed,
  gwColumnsOf,
  hintsFor,
  normalizeHeader,
  resolveColumns,
} from './columns.js'
import type {ReadOptions, SourceRecord, Table, TableHeader, TableRow, TableSource, UnseenColumn} from './table-model.js'
import {columnLetters} from './workbook-rows.js'

/** How many rows the header is looked for among. */
export const HEADER_SEARCH = 20

/** The header of `names` for the command's fields, when it holds every required group; undefined when not. */
export function headerOf(
  record: SourceRecord,
  options: ReadOptions,
  hidden: ReadonlyMap<number, string>,
): TableHeader | undefined {
  const names = record.record
  let columns
  try {
    columns = resolveColumns(names, options.fields, options.column, options.aliases, new Set(hidden.keys()))
  } catch {
    return undefined
  }
  const unseen = unseenColumns(names, columns, options, hidden)
  const found = (field: string) => columns.index.has(field) || unseen.some((u) => u.field === field)
  if (!(options.required ?? []).every((group) => group.some(found))) return undefined
  return headerWith(record.line, names, columns, options, hidden)
}

/**
 * The fields whose column the sheet hides: one named as the field (or an alias of it) that no
 * shown column reads, and one --column names. Never read silently (the caller refuses them).
 */
function unseenColumns(
  names: readonly string[],
  columns: Columns,
  options: ReadOptions,
  hidden: ReadonlyMap<number, string>,
): UnseenColumn[] {
  const unseen: UnseenColumn[] = []
  for (const [at, why] of hidden) {
    const key = normalizeHeader(names[at] ?? '')
    const mapped = [...columns.mapped].find(([, header]) => normalizeHeader(header) === key)?.[0]
    const field =
      mapped ??
      options.fields.find((f) => !columns.index.has(f) && (f === key || (options.aliases?.[f] ?? []).includes(key)))
    if (field) unseen.push({field, at, name: names[at]!, why, ...(mapped ? {mapped: true} : {})})
  }
  return unseen
}

/** The header of `names` read as `columns`, gw's own columns of an earlier output told apart from the file's. */
export function headerWith(
  line: number,
  names: string[],
  found: Columns,
  options: ReadOptions,
  hidden: ReadonlyMap<number, string>,
): TableHeader {
  const keys = names.map(normalizeHeader)
  // A field found by an alias is not read from a column of gw's own earlier output (a report's status).
  const byAlias = new Set((found.aliased ?? []).map((field) => found.index.get(field)!))
  const read = new Set([...found.index.values()].filter((at) => !byAlias.has(at)))
  const gwColumns = gwColumnsOf(keys, read, options.outputs ?? [])
  const index = new Map([...found.index].filter(([, at]) => !byAlias.has(at) || !gwColumns.includes(at)))
  const used = new Set(index.values())
  // The columns the sheet hides are not ignored ones of the file's: they are said apart (hiddenNote), never hinted.
  const columns = {...found, index, ignored: names.filter((n, i) => keys[i] !== '' && !used.has(i) && !hidden.has(i))}
  const ignored = gwColumns.length
    ? names.filter((n, i) => keys[i] !== '' && columns.ignored.includes(n) && !gwColumns.includes(i))
    : columns.ignored
  const unseen = unseenColumns(names, found, options, hidden)
  // A column --column named and the sheet hides is not read: it stands in `unseen`, for the caller to refuse.
  for (const {field, mapped} of unseen) if (mapped) index.delete(field)
  return {line, names, keys, ...columns, ignored, gwColumns, hidden, unseen}
}

/**
 * Of rows none of which holds the required columns, the one most like a header: the first that
 * names most of them, by name or by a column that looks like one ("Invoice No"), then the one of
 * more cells (a title is one), so that what is missing is said of it, with the --column that
 * would read it. The first row when none names any.
 */
export function likeliestHeader(seen: readonly SourceRecord[], options: ReadOptions): number {
  const named = (names: string[]) => {
    try {
      return groupsNamed(resolveColumns(names, options.fields), options.fields, options.required ?? [])
    } catch {
      // A header that cannot be read as one (two columns named as one field) still names its fields: it is the header, whose reading then says why.
      const keys = new Set(names.map(normalizeHeader))
      return (options.required ?? []).filter((group) => group.some((field) => keys.has(field))).length
    }
  }
  const scores = seen.map(({record}) => [named(record), record.filter((v) => v.trim()).length] as const)
  let best = 0
  scores.forEach(([count, cells], at) => {
    const [bestCount, bestCells] = scores[best]!
    if (count > bestCount || (count === bestCount && count > 0 && cells > bestCells)) best = at
  })
  return best
}

/** Why a header cannot name orders (with the --column that would fix it when a column looks right), or undefined. */
export function missingOrderColumn(
  table: Pick<Table, 'header' | 'source'>,
  fields: readonly string[],
): string | undefined {
  const {header, source} = table
  if (ORDER_NUMBER_FIELDS.some((c) => header.index.has(c))) return undefined
  const hint = columnHints(header, fields, [[...ORDER_NUMBER_FIELDS]]).find((h) => h.includes('mch_order_no'))
  const names = header.names.map((n) => quoted(n)).join(', ') || 'nothing'
  return `no order number column${sheetNote(source)}: the header needs one of ${ORDER_NUMBER_FIELDS.join(', ')} (it has ${names}); name yours with ${hint ? hint.slice(hint.indexOf('--column')) : columnFlag('mch_order_no', 'Your header')}`
}

/**
 * What of the sheet's header gw would read and the person cannot see, each a problem of the
 * header line that stops the command before anything is sent: a field whose column is hidden
 * (with the shown column that looks meant, and the --column that reads it), and a conditional
 * format that can strike or hide cells that gw cannot evaluate. `anyOf`: fields of which one is
 * enough (the order numbers; the amounts).
 */
export function unseenProblems(
  table: Pick<Table, 'header' | 'source'>,
  fields: readonly string[],
  anyOf: readonly string[][] = [],
): string[] {
  const {header, source} = table
  const hints = hintsFor(header, fields, anyOf)
  const problems = header.unseen.map(({field, at, name, why, mapped}) => {
    const column = `column ${columnLetters(at)} (${quoted(name)})`
    const shown = hints.get(field)
    const wayOut = shown
      ? `; the shown ${quoted(shown.name)} looks like ${shown.what}: name the column to read with ${columnFlag(field, shown.name)}`
      : mapped
        ? ': show the column in the sheet, or add --include-hidden to read what it hides'
        : `: name the column to read with ${columnFlag(field, 'Your header')}, or add --include-hidden to read the hidden one`
    return `${column} is ${why} in the sheet, so gw does not read ${field} from it${wayOut}`
  })
  for (const rule of source.unevaluated ?? [])
    problems.push(
      `the sheet has ${rule}, which gw cannot evaluate: it may cross out rows gw would read; remove the conditional format, or add --include-hidden to read every row as written`,
    )
  return problems
}

/** " in sheet "Orders" (the workbook also has "Data": --sheet NAME reads another)", or '' for a CSV. */
export function sheetNote(source: TableSource): string {
  const others = (source.sheets ?? []).filter((s) => s !== source.sheet)
  if (!source.sheet) return ''
  const also = others.length
    ? `; the workbook also has ${others.map((s) => quoted(s)).join(', ')}: --sheet NAME reads another`
    : ''
  return ` (sheet ${quoted(source.sheet)}${also})`
}

/** The currency an amount column's header names (`Refund (JPY)`), with that header, by field. */
export type ColumnCurrencies = Partial<Record<string, {currency: string; header: string}>>

/**
 * What the headers of a table's amount columns (and its titles) say of their amounts: each
 * column's currency (`Refund (JPY)`, `ยอดคืน (บาท)`), and the problems of the file: a currency
 * the gateway does not take, a scale (`in thousands`: gw never scales an amount).
 */
export function amountHeaders(
  table: Pick<Table, 'header' | 'source'>,
  fields: readonly string[],
): {currencies: ColumnCurrencies; problems: string[]} {
  const {header, source} = table
  const currencies: ColumnCurrencies = {}
  const problems: string[] = []
  const names = fields.flatMap((field) => {
    const at = header.index.get(field)
    return at === undefined ? [] : [{field, name: header.names[at]!}]
  })
  for (const {field, name} of names) {
    const said = currencyOfHeader(name)
    if (!said) continue
    if (isCurrency(said.currency)) currencies[field] = {currency: said.currency, header: name}
    else
      problems.push(
        `column ${quoted(name)} says its amounts are in ${said.currency}, which the gateway does not take (${CURRENCIES.join(', ')})`,
      )
  }
  const scaled = [...names.map((n) => n.name), ...(source.titles ?? []).map((t) => t.text)].find(scaleOfHeader)
  if (scaled)
    problems.push(
      `${quoted(scaled)} says the amounts are in ${scaleOfHeader(scaled)}: gw reads an amount as it is written and never scales it; write each amount in full (1,500,000.00, not 1,500)`,
    )
  return {currencies, problems}
}

/** The currency the header of the row's amount column names, when the row fills that column. */
export const columnCurrency = (row: TableRow, fields: readonly string[], columns: ColumnCurrencies) =>
  columns[fields.find((f) => row.get(f) !== '' || row.note(f) !== undefined) ?? '']
