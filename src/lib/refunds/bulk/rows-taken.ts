/**
 * Which rows of a refund file a run takes, by the words beside them: a Status or Approval column
 * says whether finance approved each refund, and approval is not a payment state. A row is taken
 * when its word says approved (or the sale stood: paid); rows the user leaves out by name
 * (`--where 'Status=Approved'`, or a word mapped to rejected or pending with --status-map) are
 * left out and reported; a word that says rejected or waiting with neither stops the run,
 * counting each word, before anything is sent; a word gw does not know is a problem of its line.
 */
import {shellWord, usageError} from '../../errors.js'
import {normalizeHeader} from '../../files/columns.js'
import type {TableHeader, TableRow} from '../../files/table.js'
import type {StatusWords} from '../../orders/status-words.js'
import {plural} from '../../plural.js'
import {quoted, shown} from '../../untrusted.js'

/** The fields whose words say whether a row is to be refunded. */
export const WORD_FIELDS = ['sale_status', 'approval'] as const

/** --where's `COLUMN=VALUE[,VALUE]`: the column (by header) and the values a row taken holds there. */
interface Where {
  column: number
  name: string
  values: Set<string>
  written: string
}

const keyOf = (value: string) => value.trim().toLowerCase()

/** --where values, each naming a column of the header. */
function wheresOf(header: TableHeader, given: readonly string[]): Where[] {
  return given.map((written) => {
    const at = written.indexOf('=')
    const [name, values] = [written.slice(0, Math.max(at, 0)).trim(), written.slice(at + 1)]
    if (at <= 0 || !values.trim())
      throw usageError(`--where ${quoted(written)}: write it as COLUMN=VALUE, e.g. --where 'Status=Approved'.`)
    const column = header.names.findIndex(
      (n, i) => normalizeHeader(n) === normalizeHeader(name) && !header.hidden.has(i),
    )
    if (column === -1)
      throw usageError(
        `--where ${quoted(written)}: the file has no column ${quoted(name)}.`,
        `Its columns are: ${header.names.map((n) => quoted(n)).join(', ')}.`,
      )
    return {column, name: header.names[column]!, values: new Set(values.split(',').map(keyOf)), written}
  })
}

/** A word not approving a row, with its rows: counted for the message that stops the run. */
interface Unsaid {
  field: string
  column: string
  words: Map<string, number[]>
}

export class RowsTaken {
  readonly #wheres: Where[]
  /** By field: rejected or waiting words nobody said what to do with. */
  readonly #unsaid = new Map<string, Unsaid>()
  /** By field: the approving words seen, with how many rows (said beside the others). */
  readonly #approving = new Map<string, Map<string, number>>()

  constructor(
    readonly header: TableHeader,
    readonly statuses: StatusWords,
    where: readonly string[] = [],
  ) {
    this.#wheres = wheresOf(header, where)
  }

  /** What --where says of the row: why it is left out, or undefined when it is taken. */
  leftOut(row: TableRow): string | undefined {
    for (const where of this.#wheres) {
      const value = (row.values[where.column] ?? '').trim()
      if (!where.values.has(keyOf(value)))
        return `not taken by --where ${shown(where.written, 60)} (${quoted(where.name)} is ${quoted(value)})`
    }
    return undefined
  }

  /** Whether --where chooses by the column of `field`. */
  #chosen(field: string) {
    const at = this.header.index.get(field)
    return this.#wheres.some((w) => w.column === at)
  }

  /**
   * The row's words: a problem for a word gw does not know, why it is left out for a word the
   * user mapped to rejected or pending; rejected or waiting words nobody said are counted.
   */
  judge(row: TableRow): {problem?: string; left?: string} {
    for (const field of WORD_FIELDS) {
      const word = row.get(field)
      if (!word || this.#chosen(field)) continue
      const column = this.header.names[this.header.index.get(field)!]!
      const approval = this.statuses.approvalOf(word)
      if (!approval) {
        // A payment word (paid, cancelled) is the sale's status, judged where the row is read.
        if (field === 'sale_status' && this.statuses.meaningOf(word)) continue
        return {problem: this.#unknown(field, column, word)}
      }
      if (approval.approval === 'approved') {
        const seen = this.#approving.get(field) ?? new Map<string, number>()
        seen.set(word, (seen.get(word) ?? 0) + 1)
        this.#approving.set(field, seen)
        continue
      }
      if (approval.mapped) return {left: `${quoted(column)} is ${quoted(word)}, ${approval.approval} (--status-map)`}
      const unsaid = this.#unsaid.get(field) ?? {field, column, words: new Map<string, number[]>()}
      unsaid.words.set(word, [...(unsaid.words.get(word) ?? []), row.line])
      this.#unsaid.set(field, unsaid)
    }
    return {}
  }

  #unknown(field: string, column: string, word: string) {
    const affirm = shellWord(shown(`${word}=approved`, 60))
    return `${field === 'approval' ? 'approval' : 'status'} ${quoted(word)} (column ${quoted(column)}) is not a word gw knows: say which rows to take with --where ${shellWord(`${column}=Approved`)}, or what it means with --status-map ${affirm} (or rejected, pending, paid, cancelled)`
  }

  /** The problems of the whole file once every row is read: each column whose words do not all approve, with the way out. */
  problems(): string[] {
    return [...this.#unsaid.values()].map(({column, field, words}) => {
      const said = [...words].map(
        ([word, lines]) =>
          `${quoted(word)} (${plural(lines.length, 'row')}: line ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''})`,
      )
      const approving = [...(this.#approving.get(field) ?? [])].map(
        ([word, count]) => `${quoted(word)} (${plural(count, 'row')})`,
      )
      const first = approving.length ? [...(this.#approving.get(field) ?? new Map()).keys()][0] : 'Approved'
      return `column ${quoted(column)} says not every refund is approved: ${said.join(', ')}${approving.length ? ` beside ${approving.join(', ')}` : ''}; approval is not a payment state, and gw refunds none of these rows unasked: say which rows to take with --where ${shellWord(`${column}=${first}`)}, or what each word means with --status-map ${shellWord(`${[...words.keys()][0]}=rejected`)} (approved, rejected, pending)`
    })
  }
}
