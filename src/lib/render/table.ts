/** Tables for people; --json output never goes through here. */
import type TableConstructor from 'cli-table3'

import {shown} from '../untrusted.js'
import {cyan} from './style.js'

// Loaded on first use: commands that show no table do not pay for it at start. A literal require,
// which the bundle resolves at build time and runs only here: one built at run time would look
// for a node_modules that an installed gw does not have.
let Table: typeof TableConstructor | undefined

/** cli-table3's rule between rows, left out (it is the head's too: that one is drawn from the top border). */
const ROWS_UNRULED = {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''}

export function table(head: string[], rows: (string | number)[][]): string {
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
