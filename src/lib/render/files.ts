/** What gw says of a file it reads: how it was read when that is not the plain default, and the columns it ignores. */
import type {TableHeader, TableSource} from '../files/table.js'
import {type TotalsRow, totalsVerdict} from '../files/totals.js'
import {columnLetters as columnLetter} from '../files/workbook-rows.js'
import {plural} from '../plural.js'
import {quoted} from '../untrusted.js'

const SEPARATORS: Record<string, string> = {';': 'semicolons', '\t': 'tabs', '|': 'bars'}

/** "reading sheet "Orders" (the workbook also has "Notes")", "columns separated by semicolons", "encoding windows-874". */
export function sourceNotes(source: TableSource): string[] {
  const notes: string[] = []
  const others = (source.sheets ?? []).filter((s) => s !== source.sheet)
  const first = source.sheets?.[0]
  if (source.active && source.active === source.sheet && first !== source.sheet)
    notes.push(
      `reading sheet ${quoted(source.sheet)}, the one the workbook opens on, not its first (${quoted(first)}); the workbook also has ${others.map((s) => quoted(s)).join(', ')}; --sheet picks another`,
    )
  else if (source.sheet && others.length)
    notes.push(
      `reading sheet ${quoted(source.sheet)} (the workbook also has ${others.map((s) => quoted(s)).join(', ')}; --sheet picks another)`,
    )
  const read = [
    source.encoding && source.encoding !== 'utf-8' ? `encoding ${source.encoding}` : '',
    source.delimiter && SEPARATORS[source.delimiter] ? `columns separated by ${SEPARATORS[source.delimiter]}` : '',
  ].filter(Boolean)
  if (read.length) notes.push(`reading ${read.join(', ')}`)
  if (source.titles?.length) {
    const lines = source.titles.map((t) => `line ${t.line} (${quoted(t.text, 60)})`).join(', ')
    notes.push(`skipped ${plural(source.titles.length, 'title row')} above the header: ${lines}`)
  }
  if (source.unusual)
    notes.push(
      `warning: line ${source.unusual.line} decodes to characters unusual in ${source.encoding}: ${quoted(source.unusual.text, 80)}; check --encoding`,
    )
  return notes
}

/** How each amount column's decimal mark was settled: "amounts in "Refund" read with a decimal comma (line 4 shows it: "12,34")". */
export function markNotes(source: TableSource, header: TableHeader): string[] {
  return source.marks.map(({field, mark, line, text}) => {
    const column = header.names[header.index.get(field)!]
    const why = line === undefined ? 'as --decimal-mark says' : `line ${line} shows it: ${quoted(text, 30)}`
    return `amounts in ${quoted(column)} read with a decimal ${mark} (${why})`
  })
}

/** The rows left out, by the flag that left them out: each line and why. */
export function leftOutNotes(left: readonly {line: number; why: string; by: string}[]): string[] {
  const by = new Map<string, {line: number; why: string}[]>()
  for (const row of left) by.set(row.by, [...(by.get(row.by) ?? []), row])
  return [...by].map(([flag, rows]) => {
    const shown = rows.slice(0, 20).map((l) => `  line ${l.line}: ${l.why}`)
    const more = rows.length > 20 ? [`  ... and ${rows.length - 20} more (all are in --json and the report)`] : []
    const what =
      flag === '--only-visible' ? `${plural(rows.length, 'row')} the sheet does not show` : plural(rows.length, 'row')
    return [`${what}, left out (${flag}): not sent`, ...shown, ...more].join('\n')
  })
}

/** Each note under the rows (after a blank line): read as a note, not a row. */
export const noteLines = (notes: readonly {line: number; text: string}[]) =>
  notes.map((n) => `line ${n.line}: a note under the rows (${quoted(n.text, 60)}), not a row`)

/** Each totals row: never sent or queried, and whether it agrees with the rows above it. */
export function totalsNotes(totals: readonly TotalsRow[]): string[] {
  return totals.map((t) => {
    const said = `line ${t.line}: a totals row${t.label ? ` (${quoted(t.label, 40)})` : ''}${t.amount ? ` of ${quoted(t.amount, 30)}` : ''}, not acted on; ${totalsVerdict(t)}`
    return t.agrees === false ? `warning: ${said}` : said
  })
}

/** The columns the sheet hides, not read (those gw would have read are problems, said apart): "columns the sheet hides, not read: C ("Old amount", hidden)". */
export function hiddenNote(header: TableHeader): string | undefined {
  const unseen = new Set(header.unseen.map((u) => u.at))
  const others = [...header.hidden].filter(([at]) => !unseen.has(at) && (header.names[at] ?? '').trim())
  if (!others.length) return undefined
  const named = cut(others.map(([at, why]) => `${columnLetter(at)} (${quoted(header.names[at])}, ${why})`))
  return `columns the sheet hides, not read: ${named.join(', ')}`
}

/** The cells partly struck through that gw read as written (cells gw reads that are partly struck are problems of their rows). */
export function partlyStruckNote(source: TableSource): string | undefined {
  const cells = source.partlyStruck ?? []
  if (!cells.length) return undefined
  return `warning: ${plural(cells.length, 'cell')} partly struck through, read as written (gw reads none of them): ${cells.join(', ')}${cells.length >= 20 ? ' and maybe more' : ''}; check what the strike means`
}

/** The columns of gw's own earlier output in a file fed back in (a report's status, advice, the gateway's answers), said once. */
export function earlierOutputNote(header: TableHeader): string | undefined {
  if (!header.gwColumns.length) return undefined
  const names = header.gwColumns.map((at) => quoted(header.names[at]))
  return `gw's own columns of an earlier report or list, not read: ${names.join(', ')}; every row is checked again`
}

/** Ignored columns named, and hints given, at most: a sheet of 16,384 columns is said in a few lines. */
const NAMED_AT_MOST = 20

/** The first NAMED_AT_MOST of `items`, then how many more. */
const cut = (items: readonly string[]) =>
  items.length > NAMED_AT_MOST
    ? [...items.slice(0, NAMED_AT_MOST), `and ${(items.length - NAMED_AT_MOST).toLocaleString('en-US')} more`]
    : [...items]

/** "ignored columns: Customer, Total", then a hint per column that looks like a field gw could read; long lists cut with a count. */
export function ignoredNote(ignored: readonly string[], hints: readonly string[]): string | undefined {
  if (!ignored.length) return undefined
  const names = cut(ignored.map((n) => quoted(n)))
  return [`ignored columns: ${names.join(', ')}`, ...cut(hints).map((h) => `  ${h}`)].join('\n')
}
