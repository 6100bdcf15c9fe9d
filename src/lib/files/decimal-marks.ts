/**
 * The decimal mark of each amount column, settled by evidence: a text cell that reads only one
 * way (`1,234.50` and `0.30` say point; `12,34`, `1 500,00` and `1.234,50` say comma) settles its
 * column, from its line on and for the rows held before it; `--decimal-mark` settles every column
 * at once. A cell that reads two ways (`1,500`, `1.500`, `82,305`) waits for its column to be
 * settled: its row is held back (the rows keep their order) until a later cell settles it, the
 * file ends, or HOLD_LIMIT rows wait; it is then read with the column's mark, or, with none, is a
 * problem of its line giving both readings. Number cells of a workbook are numbers, not text:
 * they say nothing of a mark. The same in every file: comma, tab or semicolon separated, or a
 * workbook's text cells.
 */
import {AmbiguousAmount, type AmountContext, type DecimalMark, readAmountText} from '../gateway/protocol/index.js'
import {quoted} from '../untrusted.js'

/** Rows held back at most while a column's mark is unknown: memory stays bounded whatever the file. */
export const HOLD_LIMIT = 10_000

/** How a column's mark was settled: by `--decimal-mark`, or by the cell on `line` (its text). */
export interface ColumnMark {
  field: string
  mark: DecimalMark
  line?: number
  text?: string
}

/** What each amount column's cells have shown so far. */
export class DecimalMarks {
  readonly #marks = new Map<string, ColumnMark>()
  /** The fields with a held cell that reads two ways. */
  readonly #waiting = new Set<string>()

  /** `settled`: where each column's settlement is recorded as it happens (the table's source, for notes). */
  constructor(
    readonly fields: readonly string[],
    readonly settled: ColumnMark[],
    given?: DecimalMark,
    /** Shift_JIS or CP932 text: `\` before an amount is the yen sign. */
    readonly yen = false,
  ) {
    if (given) for (const field of fields) this.#settle({field, mark: given})
  }

  #settle(mark: ColumnMark) {
    this.#marks.set(mark.field, mark)
    this.settled.push(mark)
    this.#waiting.delete(mark.field)
  }

  /**
   * Learns from a row's text cells `get(field)` (skipping those `isText` says are not text);
   * true when the row has a cell that reads two ways in a column not settled (it must wait).
   */
  see(line: number, get: (field: string) => string, isText: (field: string) => boolean): boolean {
    let waits = false
    for (const field of this.fields) {
      const text = get(field)
      if (!text || !isText(field)) continue
      let shows: DecimalMark | undefined
      try {
        shows = readAmountText(text, undefined, this.yen ? {yen: true} : {}).mark
      } catch (error) {
        if (!(error instanceof AmbiguousAmount) || this.#marks.has(field)) continue
        this.#waiting.add(field)
        waits = true
      }
      if (shows && !this.#marks.has(field)) this.#settle({field, mark: shows, line, text})
    }
    return waits
  }

  /** Whether a held row may go: no column it waits on is still unsettled. */
  get waiting(): boolean {
    return this.#waiting.size > 0
  }

  /** The rows held go on unsettled (the file ended, or too many wait): their cells that read two ways are problems. */
  giveUp(): void {
    this.#waiting.clear()
  }

  /** How a field's text is read now: with its column's mark, and what settled it. */
  contextOf(field: string): AmountContext {
    const mark = this.#marks.get(field)
    const by = mark && (mark.line === undefined ? '--decimal-mark' : `line ${mark.line} shows it: ${quoted(mark.text)}`)
    return {...(mark ? {mark: mark.mark, by} : {}), ...(this.yen ? {yen: true} : {})}
  }
}
