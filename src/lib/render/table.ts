/** Tables for people; --json output never goes through here. */
import {stripVTControlCharacters} from 'node:util'

import type TableConstructor from 'cli-table3'

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
  /** The width to fit: the terminal's when stdout is one (a pipe or a file takes the whole table). */
  width?: number
}

const terminalWidth = () => (process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : undefined)

function drawn(head: string[], rows: (string | number)[][]): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled at build time, run on first use (above)
  Table ??= require('cli-table3') as typeof TableConstructor
  // Heads coloured as gw colours anything (NO_COLOR, FORCE_COLOR, a terminal), never by the table's own rule.
  // A rule under the head only: ruled between every row, a 10-row plan took 23 lines.
  const t = new Table({head: head.map((h) => cyan(h)), style: {head: [], border: []}, chars: ROWS_UNRULED})
  t.push(...rows.map((r) => r.map((cell) => shown(cell, 200))))
  const [top, heads, ...body] = t.toString().split('\n')
  const rule = top!.replace('┌', '├').replaceAll('┬', '┼').replace('┐', '┤')
  return [top, heads, rule, ...body].join('\n')
}

const widthOf = (text: string) => Math.max(...text.split('\n').map((line) => stripVTControlCharacters(line).length))

/**
 * A table; on a terminal narrower than it, the columns `fit.drop` names are left out, the least
 * useful first, until it fits (or none is left to drop), and which were left out is said under it.
 */
export function table(head: string[], rows: (string | number)[][], fit: TableFit = {}): string {
  const width = fit.width ?? terminalWidth()
  let text = drawn(head, rows)
  if (width === undefined || widthOf(text) <= width) return text
  const left: string[] = []
  let kept = head.map((_, i) => i)
  for (const name of fit.drop ?? []) {
    const at = head.indexOf(name)
    if (at === -1) continue
    kept = kept.filter((i) => i !== at)
    left.push(name)
    text = drawn(
      kept.map((i) => head[i]!),
      rows.map((row) => kept.map((i) => row[i] ?? '')),
    )
    if (widthOf(text) <= width) break
  }
  if (!left.length) return text
  return `${text}\n(left out to fit: ${left.join(', ')}${fit.whole ? `; all in ${fit.whole}` : ''})`
}
