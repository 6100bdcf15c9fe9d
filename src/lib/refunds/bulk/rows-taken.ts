/**
 * Which rows of a refund file a run takes, by the words beside them: a Status or Approval column
 * says whether finance approved each refund, and approval is not a payment state. A row is taken
 * when its word says approved (or the sale stood: paid); rows the user leaves out by name
 * (`--where 'Status=Approved'`, or a word mapped to rejected or pending with --status-map) are
 * left out and reported; a word that says rejected or waiting with neither stops the run,
 * counting each word, before anything is sent; a word gw does not know is a problem of its line.
 * A column is an approval by what it holds too, whatever its header ("OK to refund", "Decision",
 * "Freigabe"): one gw does not read whose every filled cell is an approval word, one of them not
 * approving, stops the run the same way.
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

/** Rows of a word: how many, and the first few lines (said in the message). */
interface Seen {
  count: number
  lines: number[]
}

/** A word not approving a row, with its rows: counted for the message that stops the run. */
interface Unsaid {
  column: string
  words: Map<string, Seen>
  /** The approving words of the column, with their rows. */
  approving: Map<string, Seen>
}

/** "2 rows: line 4, 9" */
const seenWords = ({count, lines}: Seen) =>
  `${plural(count, 'row')}: line ${lines.join(', ')}${count > lines.length ? ', …' : ''}`

const see = (words: Map<string, Seen>, word: string, line: number) => {
  const seen = words.get(word) ?? {count: 0, lines: []}
  seen.count++
  if (seen.lines.length < 5) seen.lines.push(line)
  words.set(word, seen)
}

/** A column gw does not read, judged by what it holds: an approval column while every filled cell is an approval word. */
interface ByContent {
  at: number
  words: Unsaid
  /** A cell that is no approval word was met: the column is something else (a reason, a note). */
  other: boolean
  /** Its notes that tell a person not to refund the row ("duplicate - skip"), with their rows. */
  held: Map<string, Seen>
}

export class RowsTaken {
  readonly #wheres: Where[]
  /** By field: the rejected or waiting words nobody said what to do with, and the approving ones. */
  readonly #unsaid = new Map<string, Unsaid>()
  /** The columns gw does not read (shown, not gw's own output), judged by their cells. */
  readonly #byContent: ByContent[]

  constructor(
    readonly header: TableHeader,
    readonly statuses: StatusWords,
    where: readonly string[] = [],
  ) {
    this.#wheres = wheresOf(header, where)
    const read = new Set([...header.index.values(), ...header.gwColumns, ...this.#wheres.map((w) => w.column)])
    this.#byContent = header.names.flatMap((name, at) =>
      name.trim() && !read.has(at) && !header.hidden.has(at)
        ? [{at, other: false, held: new Map(), words: {column: name, words: new Map(), approving: new Map()}}]
        : [],
    )
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
      const unsaid = this.#unsaid.get(field) ?? {column, words: new Map(), approving: new Map()}
      this.#unsaid.set(field, unsaid)
      if (approval.approval === 'approved') {
        see(unsaid.approving, word, row.line)
        continue
      }
      if (approval.mapped) return {left: `${quoted(column)} is ${quoted(word)}, ${approval.approval} (--status-map)`}
      see(unsaid.words, word, row.line)
    }
    for (const column of this.#byContent) {
      const word = (row.values[column.at] ?? '').trim()
      const approval = word ? this.statuses.approvalOf(word, {notes: false}) : undefined
      if (approval?.mapped && approval.approval !== 'approved')
        return {left: `${quoted(column.words.column)} is ${quoted(word)}, ${approval.approval} (--status-map)`}
      if (!word || approval?.mapped) continue
      // Its rejecting and waiting words are kept whatever else the column holds: in a note column
      // they are notes that hold their rows back ("Rejected" beside "customer cancelled").
      if (!approval) {
        column.other = true
        if (this.statuses.holdsBack(word)) see(column.held, word, row.line)
      } else see(approval.approval === 'approved' ? column.words.approving : column.words.words, word, row.line)
    }
    return {}
  }

  #unknown(field: string, column: string, word: string) {
    const affirm = shellWord(shown(`${word}=approved`, 60))
    return `${field === 'approval' ? 'approval' : 'status'} ${quoted(word)} (column ${quoted(column)}) is not a word gw knows: say which rows to take with --where ${shellWord(`${column}=Approved`)}, or what it means with --status-map ${affirm} (or rejected, pending, paid, cancelled)`
  }

  /** The problems of the whole file once every row is read: each column whose words do not all approve, each note that holds a row back, with the way out. */
  problems(): string[] {
    return [...this.#notApproved(), ...this.#heldBack()]
  }

  /** Each note column whose notes tell a person not to refund some rows: gw does not refund them unasked, nor guess. */
  #heldBack(): string[] {
    return this.#byContent
      .map(({words, held, other}) => ({column: words.column, held: other ? new Map([...words.words, ...held]) : held}))
      .filter(({held}) => held.size)
      .map(({column, held}) => {
        const said = [...held].map(([note, seen]) => `${quoted(note)} (${seenWords(seen)})`)
        const first = [...held.keys()][0]!
        return `column ${quoted(column)} has notes that say not to refund their rows: ${said.join(', ')}; gw refunds none of the file unasked: take those rows out of the file, or say what a note means with --status-map ${shellWord(`${first}=rejected`)} (rejected leaves the row out, approved refunds it)`
      })
  }

  #notApproved(): string[] {
    const columns = [...this.#unsaid.values(), ...this.#byContent.filter((c) => !c.other).map((c) => c.words)].filter(
      (unsaid) => unsaid.words.size,
    )
    return columns.map(({column, words, approving}) => {
      const said = [...words].map(([word, seen]) => `${quoted(word)} (${seenWords(seen)})`)
      const approved = [...approving].map(([word, {count}]) => `${quoted(word)} (${plural(count, 'row')})`)
      const first = [...approving.keys()][0] ?? 'Approved'
      return `column ${quoted(column)} says not every refund is approved: ${said.join(', ')}${approved.length ? ` beside ${approved.join(', ')}` : ''}; approval is not a payment state, and gw refunds none of these rows unasked: say which rows to take with --where ${shellWord(`${column}=${first}`)}, or what each word means with --status-map ${shellWord(`${[...words.keys()][0]}=rejected`)} (approved, rejected, pending)`
    })
  }
}
