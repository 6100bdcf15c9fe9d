/**
 * What a conditional format does to the cells it applies to (conditional-formats evaluates where
 * it applies): strikes them, hides them, writes them too small to read, colours them, or shows
 * their numbers by a format of its own.
 */
import {unseenOn} from './colours.js'
import {showNumber} from './shown-number.js'

/**
 * What a rule's format does to the cells it applies to: strikes them, hides them, or shows their
 * numbers by a format of its own (`reformats`) that shows another number (`#,##0.00,` in
 * thousands, `0%`, a date) than the cell holds.
 */
export type Effect = 'struck' | 'hidden' | 'small' | {readonly reformats: string} | Paints

/**
 * A rule that colours its cells: their text (`text`), their fill (`fill`), as `rrggbb`; and the
 * number format it shows them by, when it has one that shows another number. White text shows on
 * a dark fill a rule adds, and a rule's white text hides on no fill (colours' unseenOn).
 */
export interface Paints {
  readonly paints: {readonly text?: string; readonly fill?: string}
  readonly reformats?: string
}

export const isPaints = (effect: Effect): effect is Paints => typeof effect === 'object' && 'paints' in effect

/**
 * Whether a rule gw cannot evaluate matters: one that only colours its cells in colours that show
 * (red text, a yellow fill) hides nothing, and is left alone as it was before rules coloured cells.
 */
export const mayHide = (effect: Effect) =>
  !isPaints(effect) ||
  effect.reformats !== undefined ||
  (effect.paints.text !== undefined && unseenOn(effect.paints.text, effect.paints.fill))

/**
 * What a number format a rule applies does to the number a person reads: hides it (`;;;`), shows
 * another (scaled, a percentage, a date: `reformats`), or nothing that matters (decimals,
 * grouping, a currency's symbol: undefined).
 */
export function formatEffect(code: string): Effect | undefined {
  if (showNumber(1, code) === '' && showNumber(-1, code) === '') return 'hidden'
  const probe = 123_456.78
  const digits = Number(showNumber(probe, code).replace(/[^\d.]/g, ''))
  return Math.abs(digits - probe) < 1 ? undefined : {reformats: code}
}

/** The effect in words, for a rule gw cannot evaluate. */
export const effectWords = (effect: Effect) =>
  effect === 'struck'
    ? 'strikes its cells through'
    : effect === 'hidden'
      ? 'hides its cells'
      : effect === 'small'
        ? 'writes its cells too small to read'
        : isPaints(effect)
          ? 'colours its cells'
          : `shows its numbers as ${effect.reformats}`

/** The colours a cell is drawn in: its text's (undefined: automatic), its fill's (undefined: none), and whether they alone blank it. */
export interface CellColours {
  text?: string
  ground?: string
  byColour?: boolean
}
