/**
 * What a cell of an .ods looks like: what its cell style does to it (strikes it, writes it white
 * on no background or too small to read, fills it, colours it, its conditional styles), what the
 * runs of its text do (`text:span`s of a text style that strikes, whitens or shrinks them), and
 * what the two make of the cell once its text is read.
 */
import {type ConditionalRule, odfMapRule} from './conditional-formats.js'
import {isPaints} from './rule-effects.js'
import type {OdsStyles} from './ods-styles.js'
import type {ReadCell} from './workbook-cells.js'

/** What a cell style does to how a cell looks: strikes it, writes it white on no background or too small to read, fills it, its conditional styles. */
export interface CellLooks {
  struck: boolean
  unseen: boolean
  small: boolean
  /** Its font's size (points) where it shrinks its text to fit its column (`style:shrink-to-fit`); undefined where it does not. */
  shrink: number | undefined
  filled: boolean
  /** Its text's colour (undefined: automatic) and its background's (undefined: none), for rules that colour cells. */
  colours: {text?: string; ground?: string}
  /** Its conditional styles (`style:map`) gw evaluates; those it cannot are the outline's `unevaluated`. */
  rules: ConditionalRule[]
}

/** Whether a rule colours the cells it holds for. */
export const paints = (rule: ConditionalRule) => isPaints(rule.effect)

/** How cells of `style` look (each style's looks worked out once per table). */
export function looksOf(styles: OdsStyles, style: string | undefined): CellLooks {
  const rules = styles.mapsOf(style).flatMap((map) => {
    const rule = odfMapRule(style ?? '', map, map.effect)
    return typeof rule === 'string' ? [] : [rule]
  })
  return {
    struck: styles.struck(style),
    unseen: styles.unseen(style),
    small: styles.small(style),
    shrink: styles.shrinks(style) ? styles.points(style) : undefined,
    filled: styles.filled(style),
    colours: styles.coloursOf(style),
    rules,
  }
}

/** The runs of one cell's text as they come: how many of its characters are in struck runs, white ones and ones too small to read. */
export class CellRuns {
  struck = 0
  white = 0
  small = 0
  /** The depth of each kind of run open (a run inside one is of it). */
  #inStruck = 0
  #inWhite = 0
  #inSmall = 0

  constructor(readonly styles: OdsStyles) {}

  /** A `text:span` of text style `style` opens. */
  open(style: string): void {
    if (this.#inStruck || this.styles.struckText.has(style)) this.#inStruck++
    if (this.#inWhite || this.styles.whiteText.has(style)) this.#inWhite++
    if (this.#inSmall || this.styles.smallText.has(style)) this.#inSmall++
  }

  /** A `text:span` closes. */
  close(): void {
    if (this.#inStruck) this.#inStruck--
    if (this.#inWhite) this.#inWhite--
    if (this.#inSmall) this.#inSmall--
  }

  /** Text of the cell, in the runs open. */
  text(text: string): void {
    const length = text.trim().length
    if (this.#inStruck) this.struck += length
    if (this.#inWhite) this.white += length
    if (this.#inSmall) this.small += length
  }
}

/**
 * What a cell's looks and its runs make of `read` (its text as shown, `text` as written): struck
 * (by its style, or every run of its text) or partly, partly white, partly small, marked on it;
 * and whether it looks empty (`unseen`: white on no background, by its style or every run), is
 * too small to read, and is drawn white in every run (for rules that colour it).
 */
export function marksOf(
  read: ReadCell,
  text: string,
  looks: CellLooks,
  runs: CellRuns,
): {unseen: boolean; small: boolean; white: boolean} {
  const filled = text.trim().length
  if (read.text !== '' && (looks.struck || (filled > 0 && runs.struck >= filled))) read.struck = true
  else if (read.text !== '' && runs.struck > 0) read.partlyStruck = true
  // White on white (the cell's style, or every run of its text, on no background): the cell looks empty.
  const white = looks.filled ? 0 : runs.white
  const shown = read.text.trim() !== ''
  const unseen = shown && (looks.unseen || (filled > 0 && white >= filled))
  if (!unseen && shown && white > 0) read.partlyBlanked = true
  const small = shown && (looks.small || (filled > 0 && runs.small >= filled))
  if (!small && shown && runs.small > 0) read.partlySmall = true
  return {unseen, small, white: filled > 0 && white >= filled}
}
