/**
 * Notes finance writes under the rows, after a blank line ("Prepared by Somchai", "Checked 30/11"):
 * a line with no amount and no order number (one word: a sentence in the order column is none)
 * that follows a blank line, and the lines right after it, are notes: reported as they are,
 * never rows (and never problems). A line with an order number or an amount is a row again,
 * wherever it stands.
 */
import type {TableRow} from './table.js'

/** A note under the rows: its line and its text. */
export interface NoteLine {
  line: number
  text: string
}

export class NotesUnder {
  readonly found: NoteLine[] = []
  #lastEnd = 0
  #inNotes = false

  /** `fields`: the fields that make a line a row (its amounts); `orders`: the order number fields, a number of one word. */
  constructor(
    readonly fields: readonly string[],
    readonly orders: readonly string[],
  ) {}

  /** Whether `row` is a note (then recorded); every line the caller reads goes through here, in order. */
  take(row: TableRow): boolean {
    // An order number is one word: "Prepared by Somchai" in the order column is no order number.
    const isRow =
      this.fields.some((f) => row.get(f) !== '' || row.note(f) !== undefined) ||
      this.orders.some((f) => /^\S+$/.test(row.get(f)))
    const afterBlank = row.line > this.#lastEnd + 1 && this.#lastEnd > 0
    this.#inNotes = !isRow && (afterBlank || this.#inNotes)
    this.#lastEnd = row.end
    if (!this.#inNotes) return false
    this.found.push({line: row.line, text: row.values.filter((v) => v.trim()).join(' ')})
    return true
  }
}
