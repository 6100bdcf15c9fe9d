/**
 * A table's rows as they stream: each field read from its column, what the sheet hides or
 * strikes of the row said, and each row let go once its amount columns' decimal marks are settled.
 */
import type {AmountContext} from '../gateway/protocol/index.js'
import {type DecimalMarks, HOLD_LIMIT} from './decimal-marks.js'
import type {SheetComment, SourceRecord, TableHeader, TableRow, TableSource} from './table-model.js'
import {trimmed} from './invisible.js'
import {SMALLEST_READABLE} from './colours.js'
import {columnLetters} from './workbook-rows.js'

const cellsOf = (columns: number[], line: number) =>
  `${columns.length === 1 ? 'cell' : 'cells'} ${columns.map((at) => `${columnLetters(at)}${line}`).join(', ')}`

/**
 * A row the person sees crossed out or blanked: a cell gw reads (`read`) struck through (its
 * font, a conditional format, every run of its text) or partly, or every shown filled cell
 * struck; a cell gw reads that looks empty (white on white, a conditional format's `;;;` or
 * white), or shows less than it holds (some runs of its text white). Cells partly struck that
 * gw does not read are said once (source.partlyStruck).
 */
function crossedOut(
  header: TableHeader,
  source: TableSource,
  read: Set<number>,
  {record, struck, partlyStruck, blanked, partlyBlanked, untold, small, shrunk, partlySmall, line}: SourceRecord,
): string | undefined {
  const blank = (blanked ?? []).filter((at) => read.has(at))
  const notTold = blank.filter((at) => untold?.includes(at))
  if (notTold.length)
    return `taken as unseen (${cellsOf(notTold, line)}: a conditional format colours them in a colour gw cannot tell, such as a theme colour the workbook does not define)`
  if (blank.length)
    return `shown empty by its format or a conditional format (${cellsOf(blank, line)}: white on white, or ;;;)`
  const tiny = (small ?? []).filter((at) => read.has(at))
  const narrow = tiny.filter((at) => shrunk?.includes(at))
  if (narrow.length)
    return `written too small to read (${cellsOf(narrow, line)}: shrunk to fit a column too narrow for its text, under ${SMALLEST_READABLE} pt)`
  if (tiny.length)
    return `written too small to read (${cellsOf(tiny, line)}: a font under ${SMALLEST_READABLE} pt shows as a dot)`
  const partlyTiny = (partlySmall ?? []).filter((at) => read.has(at))
  if (partlyTiny.length)
    return `partly written too small to read (${cellsOf(partlyTiny, line)}): the sheet shows less than the cell holds`
  const partlyBlank = (partlyBlanked ?? []).filter((at) => read.has(at))
  if (partlyBlank.length)
    return `partly written white on white (${cellsOf(partlyBlank, line)}): the sheet shows less than the cell holds`
  const partly = (partlyStruck ?? []).filter((at) => read.has(at))
  if (partly.length) return `partly struck through (${cellsOf(partly, line)})`
  for (const at of partlyStruck ?? []) {
    const cells = (source.partlyStruck ??= [])
    if (cells.length < 20) cells.push(`${columnLetters(at)}${line}`)
  }
  if (!struck) return undefined
  const filled = record.flatMap((v, i) => (v.trim() && !header.hidden.has(i) ? [i] : []))
  const shown = struck.filter((at) => read.has(at))
  if (!shown.length && !filled.every((at) => struck.includes(at))) return undefined
  return `struck through (${cellsOf(shown.length ? shown : struck, line)})`
}

/** The comments of a record, each on its cell. */
export const commentsOf = ({line, comments}: SourceRecord): SheetComment[] =>
  (comments ?? []).map(({at, text}) => ({line, cell: `${columnLetters(at)}${line}`, text}))

/** The rows of a table, each a field reader of its record; blank lines (and lines gw alone wrote in) left out. */
export async function* rowsOf(
  header: TableHeader,
  source: TableSource,
  first: SourceRecord,
  rest: AsyncGenerator<SourceRecord>,
  includeHidden: boolean,
): AsyncGenerator<HeldRow> {
  const {index, names} = header
  const width = names.length
  const gw = new Set(header.gwColumns)
  // A line of an earlier report that only gw wrote in (its not_a_row beside a blank line) is blank.
  const blank = ({record, notes}: SourceRecord) =>
    gw.size > 0 && !notes && record.every((v, i) => gw.has(i) || v.trim() === '')
  const read = new Set(index.values())
  const row = (from: SourceRecord): HeldRow => {
    const {record: values, line, end, inexact, notes, typed, merged} = from
    const [hidden, struck] = includeHidden ? [] : [from.hidden, crossedOut(header, source, read, from)]
    return {
      line,
      end: end ?? line,
      values,
      typed,
      ...(from.comments ? {comments: commentsOf(from)} : {}),
      ...(hidden ? {hidden} : {}),
      ...(struck ? {struck} : {}),
      merged: (field) => {
        const at = index.get(field)
        return at === undefined ? undefined : merged?.[at]
      },
      contexts: {},
      amountContext(field) {
        return this.contexts[field] ?? {}
      },
      // Asked of every row: most have no notes at all (every CSV row, a workbook's text cells).
      formulas: () =>
        notes
          ? [...index].flatMap(([field, at]) => {
              const note = notes[at]
              return note?.kind === 'formula' ? [{field, address: note.address}] : []
            })
          : [],
      extra: values.slice(width).filter((v) => v.trim() !== '').length,
      get: (field) => {
        const at = index.get(field)
        return at === undefined ? '' : trimmed(values[at] ?? '')
      },
      has: (field) => index.has(field),
      inexact: (field) => {
        const at = index.get(field)
        return at !== undefined && Boolean(inexact?.includes(at))
      },
      note: (field) => {
        const at = index.get(field)
        return at === undefined ? undefined : notes?.[at]
      },
    }
  }
  // A line of nothing but comments is no row: its comments are the file's, as a title's are.
  const loose = (record: SourceRecord) => {
    if (!record.comments || record.record.some((v) => v.trim() !== '')) return false
    ;(source.looseComments ??= []).push(...commentsOf(record))
    return true
  }
  if (!loose(first) && !blank(first)) yield row(first)
  for await (const record of rest) if (!loose(record) && !blank(record)) yield row(record)
}

/** A row as it streams, its amounts' contexts set when it is let go (settledRows). */
type HeldRow = TableRow & {contexts: Record<string, AmountContext>}

/**
 * The rows in order, each let go once the decimal mark of every amount column it has a cell of
 * two readings in is settled (or the file ends, or HOLD_LIMIT rows wait), with the contexts its
 * amounts are then read in.
 */
export async function* settledRows(rows: AsyncGenerator<HeldRow>, marks: DecimalMarks): AsyncGenerator<TableRow> {
  const held: HeldRow[] = []
  const go = (row: HeldRow) => {
    for (const field of marks.fields) row.contexts[field] = marks.contextOf(field)
    return row
  }
  try {
    for await (const row of rows) {
      const waits = marks.see(
        row.line,
        (f) => row.get(f),
        (f) => row.note(f) === undefined,
      )
      if (!held.length && !waits) {
        yield go(row)
        continue
      }
      held.push(row)
      if (held.length >= HOLD_LIMIT) marks.giveUp()
      if (marks.waiting) continue
      for (const waiting of held) yield go(waiting)
      held.length = 0
    }
    marks.giveUp()
    for (const waiting of held) yield go(waiting)
  } finally {
    await rows.return(undefined)
  }
}
