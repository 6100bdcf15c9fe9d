/**
 * Conditional formats that can strike a row out or hide its cells, as a person sees them: a rule
 * over a range, in Excel's form (`cellIs`, `expression`, text and blank rules) or LibreOffice's
 * (`calcext:condition`), evaluated on each row read. gw evaluates the rules people write to cross
 * lines out: one cell compared with a literal (`=$D2="no"`, `cellIs equal "Rejected"`, `> 0`,
 * between two numbers), a text contained, begun or ended with, a blank. A rule of any other shape
 * that can strike or hide cells is never guessed: it is said, and the file is a problem. What a
 * rule does to its cells is rule-effects'.
 */
import {unseenOn, untoldOn} from './colours.js'
import {type CellColours, type Effect, effectWords, isPaints} from './rule-effects.js'
import {showNumber} from './shown-number.js'
import type {CellNote} from './workbook-cells.js'
import {indexOf} from './rule-ranges.js'
import {columnOf, rangeOf} from './workbook-rows.js'

type Operator = '=' | '<>' | '<' | '>' | '<=' | '>='

/** A reference to a cell of the row, relative to the rule's first cell unless `$`-anchored. */
interface CellReference {
  column: number
  absolute: boolean
  row: number
  absoluteRow: boolean
}

type Test =
  | {kind: 'compare'; of?: CellReference; operator: Operator; value: string | number}
  | {kind: 'between'; low: number; high: number; negate: boolean}
  | {kind: 'text'; how: 'contains' | 'notContains' | 'begins' | 'ends'; text: string}
  | {kind: 'blank'; negate: boolean}

/** A rule gw can evaluate: the ranges it covers (their first cell is what relative references count from). */
export interface ConditionalRule {
  ranges: {top: number; bottom: number; left: number; right: number}[]
  /** The cell relative references count from, when not the first range's first (a conditional cell style's base cell). */
  anchor?: {top: number; left: number}
  test: Test
  effect: Effect
  /** The rule as written, for messages. */
  written: string
}

/** A rule gw cannot evaluate, in words: its range, its effect and its condition. */
export type UnevaluatedRule = string

/** A cell's value as a rule sees it: its shown text, and its number when it holds one. */
interface RuleCell {
  text: string
  number?: number
}

const OPERATORS: Record<string, Operator> = {
  equal: '=',
  notEqual: '<>',
  lessThan: '<',
  greaterThan: '>',
  lessThanOrEqual: '<=',
  greaterThanOrEqual: '>=',
}

/** A literal of a formula: `"no"` (with `""` for a quote), or a number. */
function literalOf(text: string): string | number | undefined {
  const trimmed = text.trim()
  const quoted = /^"((?:[^"]|"")*)"$/.exec(trimmed)
  if (quoted) return quoted[1]!.replace(/""/g, '"')
  if (/^-?(?:\d+\.?\d*|\.\d+)(?:E[+-]?\d+)?$/i.test(trimmed)) return Number(trimmed)
  return undefined
}

/** `$D2`, `D$2`, `D2` (ODF's `[.$D2]` and `.D2` alike). */
function referenceOf(text: string): CellReference | undefined {
  const match = /^\[?\.?(\$?)([A-Z]{1,3})(\$?)(\d+)\]?$/i.exec(text.trim())
  if (!match) return undefined
  return {
    column: columnOf(match[2]!)!,
    absolute: match[1] === '$',
    row: Number(match[4]),
    absoluteRow: match[3] === '$',
  }
}

/** `$D2="no"`, `D2<>"yes"`, `$E2>0`: one cell compared with a literal (either way round). */
function comparisonOf(formula: string): Test | undefined {
  const match = /^\s*=?\s*(.+?)\s*(<>|<=|>=|=|<|>|!=)\s*(.+?)\s*$/.exec(formula)
  if (!match) return undefined
  const [, left, written, right] = match
  const operator = (written === '!=' ? '<>' : written) as Operator
  const reversed: Record<Operator, Operator> = {'=': '=', '<>': '<>', '<': '>', '>': '<', '<=': '>=', '>=': '<='}
  const ref = referenceOf(left!)
  const value = literalOf(right!)
  if (ref && value !== undefined) return {kind: 'compare', of: ref, operator, value}
  const flippedRef = referenceOf(right!)
  const flippedValue = literalOf(left!)
  if (flippedRef && flippedValue !== undefined)
    return {kind: 'compare', of: flippedRef, operator: reversed[operator], value: flippedValue}
  return undefined
}

/** The ranges of an `sqref` (`A2:D20 F2:F20`) or an ODF target range (`Sheet1.A2:Sheet1.D20 Sheet1.F2:Sheet1.F9`). */
function rangesOf(ref: string): ConditionalRule['ranges'] {
  return ref
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((part) => {
      const cells = part
        .replace(/\$/g, '')
        .replace(/(?:^|:)(?:'[^']*'|[^.:]*)\./g, (m) => (m.startsWith(':') ? ':' : ''))
      const range = rangeOf(cells)
      return range ? [range] : []
    })
}

/**
 * A rule whose test is of the row it formats: its reference, relative to the rule's first row,
 * names that row (`$D2` over `A2:D9`); `$D1`, or `$D$2` over many rows, reaches another row.
 */
function ruled(
  ranges: ConditionalRule['ranges'],
  test: Test | undefined,
  effect: Effect,
  written: string,
  unevaluated: UnevaluatedRule,
): ConditionalRule | UnevaluatedRule {
  if (!test || !ranges.length) return unevaluated
  const of = test.kind === 'compare' ? test.of : undefined
  const top = ranges[0]!.top
  const oneRow = !of || (of.absoluteRow ? ranges.every((r) => r.top === of.row && r.bottom === of.row) : of.row === top)
  return oneRow ? {ranges, test, effect, written} : unevaluated
}

/** An Excel rule (`cfRule`): its type, operator, formulas and text, over `sqref`. */
export function excelRule(
  sqref: string,
  rule: {type: string; operator?: string; text?: string; formulas: string[]},
  effect: Effect,
): ConditionalRule | UnevaluatedRule {
  const ranges = rangesOf(sqref)
  const written =
    `${rule.type}${rule.operator ? ` ${rule.operator}` : ''} ${rule.formulas.join(', ') || rule.text || ''}`.trim()
  const unevaluated = `a conditional format on ${sqref} that ${effectWords(effect)} when ${written}`
  let test: Test | undefined
  const [first = '', second = ''] = rule.formulas
  if (rule.type === 'cellIs' && rule.operator && OPERATORS[rule.operator]) {
    const value = literalOf(first)
    if (value !== undefined) test = {kind: 'compare', operator: OPERATORS[rule.operator]!, value}
  } else if (rule.type === 'cellIs' && (rule.operator === 'between' || rule.operator === 'notBetween')) {
    const [low, high] = [literalOf(first), literalOf(second)]
    if (typeof low === 'number' && typeof high === 'number')
      test = {
        kind: 'between',
        low: Math.min(low, high),
        high: Math.max(low, high),
        negate: rule.operator === 'notBetween',
      }
  } else if (rule.type === 'expression') test = comparisonOf(first)
  else if (
    ['containsText', 'notContainsText', 'beginsWith', 'endsWith'].includes(rule.type) &&
    rule.text !== undefined
  ) {
    const how = (
      {containsText: 'contains', notContainsText: 'notContains', beginsWith: 'begins', endsWith: 'ends'} as const
    )[rule.type as 'containsText']
    test = {kind: 'text', how, text: rule.text}
  } else if (rule.type === 'containsBlanks' || rule.type === 'notContainsBlanks')
    test = {kind: 'blank', negate: rule.type === 'notContainsBlanks'}
  return ruled(ranges, test, effect, written, unevaluated)
}

/** A LibreOffice condition (`calcext:value`: `="no"`, `formula-is($D2="no")`, `between(1,5)`, `begins-with("x")`), over its target range. */
export function odfRule(target: string, value: string, effect: Effect): ConditionalRule | UnevaluatedRule {
  const ranges = rangesOf(target)
  const unevaluated = `a conditional format on ${target} that ${effectWords(effect)} when ${value}`
  const call = /^\s*([a-z-]+)\((.*)\)\s*$/is.exec(value)
  let test: Test | undefined
  if (call) {
    const [, name, args] = call
    const parts = args!.split(/[;,]/)
    if (name === 'formula-is') test = comparisonOf(args!)
    else if (name === 'between' || name === 'not-between') {
      const [low, high] = parts.map(literalOf)
      if (typeof low === 'number' && typeof high === 'number')
        test = {kind: 'between', low: Math.min(low, high), high: Math.max(low, high), negate: name === 'not-between'}
    } else if (['contains-text', 'not-contains-text', 'begins-with', 'ends-with'].includes(name!)) {
      const text = literalOf(args!)
      const how = (
        {
          'contains-text': 'contains',
          'not-contains-text': 'notContains',
          'begins-with': 'begins',
          'ends-with': 'ends',
        } as const
      )[name as 'contains-text']
      if (typeof text === 'string') test = {kind: 'text', how, text}
    }
  } else {
    const match = /^\s*(<>|!=|<=|>=|=|<|>)\s*(.+)$/.exec(value)
    const literal = match && literalOf(match[2]!)
    if (match && literal !== undefined && literal !== null)
      test = {kind: 'compare', operator: (match[1] === '!=' ? '<>' : match[1]) as Operator, value: literal}
  }
  return ruled(ranges, test, effect, value, unevaluated)
}

/**
 * An ODF 1.2 conditional cell style (`style:map`, as odfpy writes them, and LibreOffice beside its
 * own): its condition (`cell-content()>15`, `cell-content-is-between(1,5)`, `is-true-formula($D2="no")`
 * counted from its base cell) as a rule for the cells of the style `name`, placed on each such
 * cell as it is read (`placed`); a condition of another shape in words.
 */
export function odfMapRule(
  name: string,
  map: {condition: string; base?: string},
  effect: Effect,
): ConditionalRule | UnevaluatedRule {
  const value = map.condition
    .trim()
    .replace(/^cell-content\(\)\s*/, '')
    .replace(/^cell-content-is-(not-)?between\(/, (_, not: string | undefined) => `${not ?? ''}between(`)
    .replace(/^is-true-formula\(/, 'formula-is(')
  const known = !/^[a-z-]+\(/.test(value) || /^(not-between|between|formula-is)\(/.test(value)
  const rule = known ? odfRule(map.base ?? 'A1', value, effect) : undefined
  if (rule === undefined || typeof rule === 'string')
    return `a conditional cell style "${name}" that ${effectWords(effect)} when ${map.condition}`
  const {top, left} = rule.ranges[0]!
  return {...rule, anchor: {top, left}}
}

/** `rule` (of odfMapRule) placed on the cells `left` to `right` of row `line`. */
export const placed = (rule: ConditionalRule, line: number, left: number, right: number): ConditionalRule => ({
  ...rule,
  ranges: [{top: line, bottom: line, left, right}],
})

function compare(cell: RuleCell, operator: Operator, value: string | number): boolean {
  let order: number
  if (typeof value === 'number') {
    const number = cell.number ?? (cell.text.trim() === '' ? 0 : Number(cell.text.replace(/,/g, '')))
    // Text compared with a number: never equal (Excel), and text ranks above numbers.
    if (Number.isNaN(number)) return operator === '<>' || operator === '>' || operator === '>='
    order = Math.sign(number - value)
  } else {
    const [a, b] = [cell.text.trim().toLowerCase(), value.toLowerCase()]
    order = a < b ? -1 : a > b ? 1 : 0
  }
  return {'=': order === 0, '<>': order !== 0, '<': order < 0, '>': order > 0, '<=': order <= 0, '>=': order >= 0}[
    operator
  ]
}

/** Whether a rule's test holds for the cell at `column` of row `line`, whose cells `cellAt` gives. */
function holds(rule: ConditionalRule, line: number, column: number, cellAt: (column: number) => RuleCell): boolean {
  const test = rule.test
  const first = rule.anchor ?? rule.ranges[0]!
  const own = cellAt(column)
  switch (test.kind) {
    case 'compare': {
      if (!test.of) return compare(own, test.operator, test.value)
      const of = test.of
      const at = of.absolute ? of.column : of.column + (column - first.left)
      const row = of.absoluteRow ? of.row : of.row + (line - first.top)
      // Rules of one row only are kept (ruled): the reference names this row.
      return row === line && compare(cellAt(at), test.operator, test.value)
    }
    case 'between': {
      const number = own.number ?? Number(own.text)
      const inside = !Number.isNaN(number) && number >= test.low && number <= test.high
      return test.negate ? !inside : inside
    }
    case 'text': {
      const text = own.text.toLowerCase()
      const wanted = test.text.toLowerCase()
      if (test.how === 'contains') return text.includes(wanted)
      if (test.how === 'notContains') return !text.includes(wanted)
      if (test.how === 'begins') return text.startsWith(wanted)
      return text.endsWith(wanted)
    }
    case 'blank':
      return (own.text.trim() === '') !== test.negate
  }
}

/** The cells of row `line` each effect applies to, by column; `reformatted`: the format a rule shows a column's number by. */
function applyRules(
  rules: readonly ConditionalRule[],
  line: number,
  width: number,
  cellAt: (column: number) => RuleCell,
) {
  const struck = new Set<number>()
  const hidden = new Set<number>()
  const small = new Set<number>()
  const reformatted = new Map<number, string>()
  /** Each cell's colours as the rules that hold paint it: the first rule (by priority) to set each. */
  const painted = new Map<number, {text?: string; fill?: string}>()
  for (const {rule, range} of indexOf(rules).covering(line)) {
    for (let column = range.left; column <= Math.min(range.right, width - 1); column++) {
      if (!holds(rule, line, column, cellAt)) continue
      if (rule.effect === 'struck') struck.add(column)
      else if (rule.effect === 'hidden') hidden.add(column)
      else if (rule.effect === 'small') small.add(column)
      else {
        if (isPaints(rule.effect)) {
          const paint = painted.get(column) ?? {}
          painted.set(column, {
            text: paint.text ?? rule.effect.paints.text,
            fill: paint.fill ?? rule.effect.paints.fill,
          })
        }
        // The first rule that holds formats the cell (Excel's order of priority, as the rules are listed).
        const code = rule.effect.reformats
        if (code !== undefined && !reformatted.has(column)) reformatted.set(column, code)
      }
    }
  }
  return {struck: [...struck], hidden: [...hidden], small: [...small], reformatted, painted}
}

/** A row being read, as the rules mark it: its line, its cells' text and notes, and the cells struck or hidden so far. */
interface MarkedRow {
  line: number
  cells: string[]
  notes: Record<number, CellNote>
  struck: number[]
  blanked: number[]
  small?: number[]
  /** Cells refused as unseen because a rule paints them in a colour gw cannot tell (colours' UNTOLD), by column. */
  untold?: number[]
  /** The colours a cell is drawn in, by column, where the sheet's rules may colour it: its text's (automatic: undefined) and its fill's. */
  colours?: Map<number, CellColours>
}

/**
 * Marks the filled cells of `row` that the rules strike or hide, and shows a number a rule
 * formats as that format shows it (the amount read is then what the person sees, and a held
 * value that disagrees is said); `numbers`: the numbers its cells hold, by column.
 */
export function markRow(
  row: MarkedRow,
  rules: readonly ConditionalRule[],
  numbers: Readonly<Record<number, number>>,
): void {
  if (!rules.length) return
  const cellAt = (at: number) => ({text: row.cells[at] ?? '', number: numbers[at]})
  const applied = applyRules(rules, row.line, Math.max(row.cells.length, 1), cellAt)
  const filled = (at: number) => (row.cells[at] ?? '').trim() !== ''
  for (const at of applied.struck) if (filled(at) && !row.struck.includes(at)) row.struck.push(at)
  for (const at of applied.hidden) if (filled(at)) row.blanked.push(at)
  for (const at of applied.small) if (filled(at) && !row.small?.includes(at)) (row.small ??= []).push(at)
  for (const [at, paint] of applied.painted) {
    if (!filled(at) || applied.hidden.includes(at)) continue
    const drawn = row.colours?.get(at) ?? {}
    const [text, ground] = [paint.text ?? drawn.text, paint.fill ?? drawn.ground]
    const unseen = unseenOn(text, ground)
    if (untoldOn(text, ground)) (row.untold ??= []).push(at)
    const blanked = row.blanked.indexOf(at)
    // A cell blanked by its colours alone shows on the fill a rule adds; one a rule paints out is blanked.
    if (unseen && blanked === -1) row.blanked.push(at)
    else if (!unseen && blanked !== -1 && drawn.byColour) row.blanked.splice(blanked, 1)
  }
  for (const [at, code] of applied.reformatted) {
    const note = row.notes[at]
    // A cell another set of rules formatted first keeps that format (the sheet's rules before its cells' styles').
    if (numbers[at] === undefined || note?.kind !== 'number' || note.byRule) continue
    row.cells[at] = showNumber(numbers[at], code)
    row.notes[at] = {...note, format: code, byRule: true}
  }
}
