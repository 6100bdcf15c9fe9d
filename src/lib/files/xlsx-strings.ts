/**
 * An .xlsx's shared strings, each with how much of its text its runs strike through, write white
 * or write too small to read (run by run: a rich-text cell can show less than it holds), and the
 * same marks of a cell's inline string (xlsx-rows).
 */
import type {SaxesTagPlain} from 'saxes'

import {tooSmall} from './colours.js'
import {fromWorkbookText} from './workbook-cells.js'
import {attr, local, parseAll} from './workbook-rows.js'
import {isWhite, sizeOf} from './xlsx-styles.js'
import {PartTooLarge, type ZipParts} from './zip-parts.js'

/**
 * What the shared strings of a workbook may unpack to, and hold: a sheet of Excel's most rows
 * with a few distinct texts a row holds far less. Past either, the workbook is not an export of
 * rows (a ZIP bomb: megabytes that unpack to gigabytes of strings), and it is refused before
 * the strings fill the reader's memory (WORKER_HEAP_MB).
 */
const MAX_SHARED_STRINGS_BYTES = 512 * 1024 * 1024
const MAX_SHARED_STRINGS_TEXT = 96 * 1024 * 1024

/** How much of a string's text its runs strike through: none, some (a warning), or all of it (struck). */
export type Strike = 'none' | 'part' | 'all'

/** How much of a string's text its runs strike through, write white, and write too small to read: none, some, or all of it. */
export interface RunMarks {
  strike: Strike
  white: Strike
  small: Strike
}

export const NO_MARKS: RunMarks = {strike: 'none', white: 'none', small: 'none'}

const share = (marked: number, shown: number): Strike => (marked === 0 ? 'none' : marked >= shown ? 'all' : 'part')

/**
 * A string's text and its marks, from the characters of its runs struck (`<r><rPr><strike/>`)
 * or written white (`<r><rPr><color rgb="FFFFFFFF"/>`: on a cell of no fill, unseen), spaces aside.
 */
export class RunStrikes {
  /** The workbook's theme colours (themeColours), which a run's colour may name. */
  constructor(readonly theme: readonly string[]) {}

  #struck = 0
  #white = 0
  #small = 0
  #shown = 0
  #inRun = false
  #runStruck = false
  #runWhite = false
  #runSmall = false

  open(name: string, tag: SaxesTagPlain): void {
    if (name === 'r') [this.#inRun, this.#runStruck, this.#runWhite, this.#runSmall] = [true, false, false, false]
    else if (name === 'strike' && this.#inRun) this.#runStruck = !['0', 'false'].includes(attr(tag, 'val') ?? '1')
    else if (name === 'color' && this.#inRun) this.#runWhite = isWhite(tag, this.theme)
    else if (name === 'sz' && this.#inRun) this.#runSmall = tooSmall(sizeOf(tag))
  }

  close(name: string): void {
    if (name === 'r') this.#inRun = false
  }

  text(text: string): void {
    const shown = text.replace(/\s/g, '').length
    this.#shown += shown
    if (this.#inRun && this.#runStruck) this.#struck += shown
    if (this.#inRun && this.#runWhite) this.#white += shown
    if (this.#inRun && this.#runSmall) this.#small += shown
  }

  /** The marks of the string read since the last call, and a fresh count for the next. */
  take(): RunMarks {
    const marks =
      this.#struck || this.#white || this.#small
        ? {
            strike: share(this.#struck, this.#shown),
            white: share(this.#white, this.#shown),
            small: share(this.#small, this.#shown),
          }
        : NO_MARKS
    this.#struck = this.#white = this.#small = this.#shown = 0
    return marks
  }
}

/** The strings of a part's `si` items (shared strings), without phonetic runs, each with its runs' marks; PartTooLarge past the limits above. */
export async function sharedStrings(
  zip: ZipParts,
  part: string | undefined,
  theme: readonly string[],
): Promise<{strings: string[]; marks: Map<number, RunMarks>}> {
  const strings: string[] = []
  const marks = new Map<number, RunMarks>()
  if (!part || !zip.has(part)) return {strings, marks}
  if (zip.size(part) > MAX_SHARED_STRINGS_BYTES) throw new PartTooLarge(part)
  let held = 0
  let current = ''
  let inText = false
  let phonetic = 0
  const runs = new RunStrikes(theme)
  await parseAll(zip, part, {
    open(tag) {
      const name = local(tag)
      if (name === 'si') current = ''
      else if (name === 'rPh') phonetic++
      else if (name === 't' && !phonetic) inText = true
      runs.open(name, tag)
    },
    close(tag) {
      const name = local(tag)
      runs.close(name)
      if (name === 'si') {
        held += current.length
        if (held > MAX_SHARED_STRINGS_TEXT) throw new PartTooLarge(part)
        const marked = runs.take()
        if (marked !== NO_MARKS) marks.set(strings.length, marked)
        strings.push(fromWorkbookText(current))
      } else if (name === 'rPh') phonetic--
      else if (name === 't') inText = false
    },
    text(text) {
      if (!inText) return
      current += text
      runs.text(text)
    },
  })
  return {strings, marks}
}
