/** What gw says of a file it reads: how it was read when that is not the plain default, and the columns it ignores. */
import type {TableSource} from '../files/table.js'
import {quoted} from '../untrusted.js'

const SEPARATORS: Record<string, string> = {';': 'semicolons', '\t': 'tabs', '|': 'bars'}

/** "reading sheet "Orders" (the workbook also has "Notes")", "columns separated by semicolons", "encoding windows-874". */
export function sourceNotes(source: TableSource): string[] {
  const notes: string[] = []
  const others = (source.sheets ?? []).filter((s) => s !== source.sheet)
  if (source.sheet && others.length)
    notes.push(
      `reading sheet ${quoted(source.sheet)} (the workbook also has ${others.map((s) => quoted(s)).join(', ')}; --sheet picks another)`,
    )
  const read = [
    source.encoding && source.encoding !== 'utf-8' ? `encoding ${source.encoding}` : '',
    source.delimiter && SEPARATORS[source.delimiter] ? `columns separated by ${SEPARATORS[source.delimiter]}` : '',
  ].filter(Boolean)
  if (read.length) notes.push(`reading ${read.join(', ')}`)
  return notes
}

/** "ignored columns: Customer, Total", then a hint per column that looks like a field gw could read. */
export function ignoredNote(ignored: readonly string[], hints: readonly string[]): string | undefined {
  if (!ignored.length) return undefined
  return [`ignored columns: ${ignored.map((n) => quoted(n)).join(', ')}`, ...hints.map((h) => `  ${h}`)].join('\n')
}
