/** Tables for people; --json output never goes through here. */
import {stripVTControlCharacters} from 'node:util'

import type TableConstructor from 'cli-table3'

import type {OutputForm} from '../io/streams.js'
import {shown} from '../untrusted.js'
import {cyan} from './style.js'

// Loaded on first use: commands that show no table do not pay for it at start. A literal require,
// which the bundle resolves at build time and runs only here: one built at run time would look
// for a node_modules that an installed gw does not have.
let Table: typeof TableConstructor | undefined

/** cli-table3's rule between rows, left out (it is the head's too: that one is drawn from the top border). */
const ROWS_UNRULED = {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''}

interface TableFit {
  /** The columns that may be left out to fit, by head, the least useful first. */
  drop?: readonly string[]
  /** What holds the columns left out, said with them: "--json or --out". */
  whole?: string
  /** The columns never wrapped, by head: the numbers a person copies (an order's, a refund's). */
  unwrapped?: readonly string[]
}

/** `colWidths`: each column's width, its padding and text within it wrapped (a table fitted to a terminal). */
function drawn(head: string[], rows: (string | number)[][], colWidths?: number[]): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled at build time, run on first use (above)
  Table ??= require('cli-table3') as typeof TableConstructor
  // Heads coloured as gw colours anything (NO_COLOR, FORCE_COLOR, a terminal), never by the table's own rule.
  // A rule under the head only: ruled between every row, a 10-row plan took 23 lines.
  const heads = head.map((h) => cyan(h))
  const style = {head: [], border: []}
  // Fitted, the cells wrap within their columns and the heads stay whole (as a first row: the
  // table's own head wraps its colours' codes with its words).
  const t = colWidths
    ? new Table({style, chars: ROWS_UNRULED, colWidths, wordWrap: true, wrapOnWordBoundary: false})
    : new Table({head: heads, style, chars: ROWS_UNRULED})
  if (colWidths) t.push(heads.map((content) => ({content, wordWrap: false})))
  t.push(...rows.map((r) => r.map((cell) => shown(cell, 200))))
  const [top, headLine, ...body] = t.toString().split('\n')
  const rule = top!.replace('┌', '├').replaceAll('┬', '┼').replace('┐', '┤')
  return [top, headLine, rule, ...body].join('\n')
}

const widthOf = (text: string) => Math.max(...text.split('\n').map((line) => stripVTControlCharacters(line).length))

/** A column is never wrapped narrower than this (its padding included): "150.50" stays whole. */
const NARROWEST = 8

/**
 * The widths that fit `width`: each column as wide as its widest cell, the one with the most room
 * narrowed a character at a time until the table fits. A column keeps its head whole (the rule
 * under the head is drawn under its one line) and is never narrower than NARROWEST; one of
 * `whole` is never narrowed (a number copied whole is never split over two lines).
 */
function fittedWidths(
  head: string[],
  rows: (string | number)[][],
  width: number,
  whole: readonly string[] = [],
): number[] {
  const widths = head.map((h, i) => Math.max(widthOf(h), ...rows.map((row) => widthOf(shown(row[i] ?? '', 200)))) + 2)
  const floors = head.map((h, i) => (whole.includes(h) ? widths[i]! : Math.max(NARROWEST, widthOf(h) + 2)))
  // The borders: one before each column and one after the last.
  let total = widths.reduce((sum, w) => sum + w, 0) + widths.length + 1
  while (total > width) {
    const room = widths.map((w, i) => w - floors[i]!)
    const most = room.indexOf(Math.max(...room))
    if (room[most]! <= 0) break
    widths[most]! -= 1
    total -= 1
  }
  return widths
}

/** How long a cell of a piped table may be: whole, in practice, but never a megabyte on one line. */
const PIPED_CELL = 1000

/** Rows as a pipe takes them: one line each, its cells tab-separated (a tab or newline inside one shown visibly). */
const tabbed = (rows: (string | number)[][]) =>
  rows.map((row) => row.map((cell) => shown(cell, PIPED_CELL)).join('\t')).join('\n')

/**
 * A table of a report (a list's items go through `listed`). On a terminal: drawn, and when
 * narrower than it, the columns `fit.drop` names are left out, the least useful first, until it
 * fits, and which were left out is said under it; still wider, its widest cells are wrapped
 * within their columns. Piped or written to a file: its head line, then one line per row, the
 * cells tab-separated (as gh writes tables for scripts), nothing left out.
 */
export function table(head: string[], rows: (string | number)[][], form: OutputForm, fit: TableFit = {}): string {
  return form.terminal ? fittedTable(head, rows, fit, form.width).text : tabbed([head, ...rows])
}

/** A table as `table` draws it on a terminal of `width` columns, and the columns it left out to fit (by head). */
function fittedTable(
  head: string[],
  rows: (string | number)[][],
  fit: TableFit,
  width: number | undefined,
): {text: string; left: string[]} {
  let text = drawn(head, rows)
  if (width === undefined || widthOf(text) <= width) return {text, left: []}
  const left: string[] = []
  let kept = head.map((_, i) => i)
  const keptHead = () => kept.map((i) => head[i]!)
  const keptRows = () => rows.map((row) => kept.map((i) => row[i] ?? ''))
  for (const name of fit.drop ?? []) {
    const at = head.indexOf(name)
    if (at === -1) continue
    kept = kept.filter((i) => i !== at)
    left.push(name)
    text = drawn(keptHead(), keptRows())
    if (widthOf(text) <= width) break
  }
  if (widthOf(text) > width)
    text = drawn(keptHead(), keptRows(), fittedWidths(keptHead(), keptRows(), width, fit.unwrapped))
  if (!left.length) return {text, left}
  return {text: `${text}\n(left out to fit: ${left.join(', ')}${fit.whole ? `; all in ${fit.whole}` : ''})`, left}
}

/** A footnote of a list: said always, or of one column (by head), said only where the column is shown. */
type Footnote = string | {note: string; of: string} | undefined

/**
 * A list's items shown as gh shows its lists. On a terminal: the table, fitted to its width,
 * with the footnotes under it. Piped or written to a file: one line per item, its cells
 * tab-separated in the table's order (cut -f2 is the second column), no head, nothing left out
 * and nothing else on stdout; the footnotes are notes, on stderr. Cells are shown safely
 * either way: a tab or a newline inside one is made visible, so a line is always one item.
 */
export function listed(
  head: string[],
  rows: (string | number)[][],
  fit: TableFit,
  form: OutputForm,
  footnotes: Footnote[],
): {text: string; notes: string[]} {
  const said = (left: readonly string[]) =>
    footnotes.flatMap((note) =>
      note === undefined || note === ''
        ? []
        : typeof note === 'string'
          ? [note]
          : left.includes(note.of)
            ? []
            : [note.note],
    )
  if (!form.terminal) return {text: tabbed(rows), notes: said([])}
  // A footnote of a column the table left out to fit is not said: it would speak of what is not shown.
  const drawnTable = fittedTable(head, rows, fit, form.width)
  return {text: [drawnTable.text, ...said(drawnTable.left)].join('\n'), notes: []}
}
