/**
 * Which rows of a refund file a run takes, by the words beside them: a Status or Approval column
 * says whether finance approved each refund, and approval is not a payment state. A row is taken
 * when its word says approved (or the sale stood: paid); rows the user leaves out by name
 * (`--where 'Status=Approved'`, or a word mapped to rejected or pending with --status-map) are
 * left out and reported; a word that says rejected or waiting with neither stops the run,
 * counting each word, before anything is sent; a word gw does not know is a problem of its line.
 * A column is an approval by what it holds too, whatever its header ("OK to refund", "Decision",
 * "Freigabe"): one gw does not read whose every filled cell is an approval word, one of them not
 * approving, stops the run the same way. A comment on any cell of a row holds its row until the
 * user says what it means (--status-map TEXT=approved refunds the row, rejected leaves it out): a
 * comment is free text, written to the person who reads the sheet, and no list of words reads all
 * of it ("Somchai:\nRejected", "Please hold", "ไม่อนุมัติ", a word turned round by a bidi mark).
 */
import {shellWord, usageError} from '../../errors.js'
import {normalizeHeader} from '../../files/columns.js'
import type {SheetComment, TableHeader, TableRow} from '../../files/table.js'
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
  /** Rows --status-map left out by its words. */
  left: number
}

/**
 * A comment read on a cell, and what it did: held its row back (or the file: one outside the
 * rows that says not to refund), left its row out or let it be refunded by --status-map, or
 * nothing (one outside the rows that says nothing of refunding).
 */
export interface CommentRead extends SheetComment {
  did:
    | 'holds its row back'
    | 'holds the file back'
    | 'left out by --status-map'
    | 'refunded by --status-map'
    | 'says nothing of refunding'
}

/** Comments listed at most (the rest counted): a sheet of a comment a row is said in a few lines. */
const COMMENTS_LISTED = 1000

/** A comment's text on one line, as --status-map takes it (spaces and line ends as one space). */
const commentWords = (text: string) => shown(text.replace(/\s+/g, ' ').trim(), 1000)

export class RowsTaken {
  readonly #wheres: Where[]
  /** The comments read on the rows' cells (the first COMMENTS_LISTED), and how many there were. */
  readonly comments: CommentRead[] = []
  commentCount = 0
  /** The rows a note or a comment holds back, by line: why, in words (the plan shows them held). */
  readonly held = new Map<number, string>()
  /** The comments that hold their rows back (none --status-map said the meaning of), by what they say. */
  readonly #heldByComments = new Map<string, {count: number; cells: string[]}>()
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
        ? [{at, other: false, held: new Map(), left: 0, words: {column: name, words: new Map(), approving: new Map()}}]
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
    const byComment = this.#comments(row)
    if (byComment) return {left: byComment}
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
      if (approval?.mapped && approval.approval !== 'approved') {
        column.left++
        // A note that says not to refund holds its row: said so, whatever --status-map calls it.
        const said = this.statuses.holdsBack(word)
          ? `held by its note ${quoted(word)} (column ${quoted(column.words.column)})`
          : `${quoted(column.words.column)} is ${quoted(word)}`
        return {left: `${said}, ${approval.approval} (--status-map)`}
      }
      if (!word || approval?.mapped) continue
      // Its rejecting and waiting words are kept whatever else the column holds: in a note column
      // they are notes that hold their rows back ("Rejected" beside "customer cancelled").
      if (!approval) {
        column.other = true
        if (this.statuses.holdsBack(word)) {
          see(column.held, word, row.line)
          this.held.set(row.line, `held by its note ${quoted(word)} (column ${quoted(column.words.column)})`)
        }
      } else see(approval.approval === 'approved' ? column.words.approving : column.words.words, word, row.line)
    }
    return {}
  }

  /** The row's comments read: why --status-map leaves the row out by one, if it does; those that hold it back are counted. */
  #comments(row: TableRow): string | undefined {
    let left: string | undefined
    for (const comment of row.comments ?? []) {
      const words = commentWords(comment.text)
      const approval = this.statuses.approvalOf(words, {notes: false})
      const said = approval?.mapped ? approval.approval : undefined
      const did: CommentRead['did'] =
        said === undefined
          ? 'holds its row back'
          : said === 'approved'
            ? 'refunded by --status-map'
            : 'left out by --status-map'
      if (this.commentCount++ < COMMENTS_LISTED) this.comments.push({...comment, did})
      if (said !== undefined && said !== 'approved')
        left ??= `the comment on ${comment.cell} says ${quoted(comment.text)}, ${said} (--status-map)`
      if (said !== undefined) continue
      const seen = this.#heldByComments.get(words) ?? {count: 0, cells: []}
      seen.count++
      if (seen.cells.length < 5) seen.cells.push(comment.cell)
      this.#heldByComments.set(words, seen)
      this.held.set(row.line, `held by the comment on ${comment.cell}: ${quoted(comment.text)}`)
    }
    return left
  }

  #unknown(field: string, column: string, word: string) {
    const affirm = shellWord(shown(`${word}=approved`, 60))
    return `${field === 'approval' ? 'approval' : 'status'} ${quoted(word)} (column ${quoted(column)}) is not a word gw knows: say which rows to take with --where ${shellWord(`${column}=Approved`)}, or what it means with --status-map ${affirm} (or rejected, pending, paid, cancelled)`
  }

  /**
   * The columns gw does not read by name whose words it acted on (an approval column by what it
   * holds, notes that held rows back or that --status-map left out): said as read, not ignored.
   */
  wordColumns(): string[] {
    return this.#byContent
      .filter((c) => (!c.other && c.words.words.size + c.words.approving.size > 0) || c.held.size || c.left)
      .map((c) => c.words.column)
  }

  /** The problems of the whole file once every row is read: each column whose words do not all approve, each note that holds a row back, with the way out. */
  problems(): string[] {
    return [...this.#notApproved(), ...this.#heldBack(), ...this.#heldByComment()]
  }

  /** The comments on rows to refund, each with its cells: gw refunds none of the file before the user says what they mean. */
  #heldByComment(): string[] {
    if (!this.#heldByComments.size) return []
    const held = [...this.#heldByComments]
    // A sheet of a thousand such comments is said in a line: the first few, then how many more.
    const said = held
      .slice(0, 10)
      .map(
        ([text, {count, cells}]) =>
          `${quoted(text)} (${count === 1 ? 'cell' : 'cells'} ${cells.join(', ')}${count > cells.length ? ', …' : ''})`,
      )
    if (held.length > 10) said.push(`and ${held.length - 10} more`)
    const first = [...this.#heldByComments.keys()][0]!
    const one = this.#heldByComments.size === 1 && [...this.#heldByComments.values()][0]!.count === 1
    return [
      one
        ? `a comment on a row to refund: ${said[0]}; a comment can say anything, so gw refunds none of the file before you say what it means: read it, then --status-map ${shellWord(`${first}=rejected`)} leaves its row out (approved refunds it), or take the comment or the row out of the file`
        : `comments on rows to refund: ${said.join(', ')}; a comment can say anything, so gw refunds none of the file before you say what each means: read them, then say it of each, as in --status-map ${shellWord(`${first}=rejected`)} (it leaves out the rows that comment is on; approved refunds them), or take the comments or the rows out of the file`,
    ]
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
