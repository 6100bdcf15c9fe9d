/**
 * The styles of an .ods that decide what a person sees: each cell style's number format, written
 * as an ECMA-376 format code (the model every workbook is rendered with: shown-number), whether it
 * strikes its text through, and which row heights, column widths and tables are hidden. ODF's
 * number styles (ODF 1.3, 16.29) map onto that grammar: `number:number` is its digits (decimal
 * places, grouping, a display factor of 1,000 as a scaling comma), `number:text` and
 * `number:currency-symbol` its literal text, `number:text-content` its `@`, a percentage style its
 * `%`, and `style:map` conditions its sections. A style that does not map (a display factor that is
 * not a power of 1,000, embedded text, three conditions) is marked, never rendered by a guess.
 */
import type {SaxesTagPlain} from 'saxes'

import {looksAlike, tooSmall} from './colours.js'
import {type Effect, formatEffect} from './rule-effects.js'
import {CELL_CURRENCY, COUNTRY_CURRENCIES, HOME_SYMBOLS, conditionOf, digitsOf, literal} from './ods-number-codes.js'
import {hexOf, isNarrow, isWhite, isZeroLength, pointsOf} from './ods-lengths.js'
import {type NumberFormat, numberFormat} from './shown-number.js'
import {attr} from './workbook-rows.js'

/** A number style as read: its family, the parts of its code in order, its conditions. */
interface DataStyle {
  family: string
  parts: string[]
  maps: {condition: string; style: string}[]
  unmappable?: string
}

/** A cell style: the data style it shows numbers with, whether its text is struck through, its parent. */
interface CellStyle {
  data?: string
  struck?: boolean
  /** Its font's colour (`rrggbb`), and its cell's background (`transparent`, or `rrggbb`). */
  colour?: string
  background?: string
  /** ODF 1.2's conditional styles (`style:map`): the style applied to a cell of this style when its condition holds. */
  maps?: {condition: string; style: string; base?: string}[]
  /** Its font's size as written (`10pt`, `0.35cm`, `50%` of its parent's). */
  size?: string
  /** Whether it shrinks its text to fit its column (`style:shrink-to-fit`). */
  shrink?: boolean
  parent?: string
}

/** The named style LibreOffice draws a cell that names no style in, which every style without a parent inherits (odfpy writes one). */
const DEFAULT_CELL_STYLE = 'Default'

/** LibreOffice's default font size, for a document whose default cell style names none. */
const DEFAULT_POINTS = 10

/** The styles of a workbook, read from styles.xml and content.xml's automatic styles. */
export class OdsStyles {
  readonly #data = new Map<string, DataStyle>()
  readonly #cells = new Map<string, CellStyle>()
  readonly #formats = new Map<string, NumberFormat | {unmappable: string}>()
  /** Table styles that hide their table, row styles of zero height, column styles of zero width or narrower than a digit. */
  readonly hiddenTables = new Set<string>()
  readonly zeroRows = new Set<string>()
  readonly zeroColumns = new Set<string>()
  readonly narrowColumns = new Set<string>()
  /** The width of each column style that says one, in points. */
  readonly columnWidths = new Map<string, number>()
  /** Text styles (of `text:span`s) that strike their text through, that write it white, and too small to read. */
  readonly struckText = new Set<string>()
  readonly whiteText = new Set<string>()
  readonly smallText = new Set<string>()
  /** The font size of the document's default cell style, in points. */
  #defaultPoints = DEFAULT_POINTS
  /** The country of the document's default cell style (its locale: `US`), whose currency a cell without one is in. */
  #country?: string
  #inDefault = false
  /** Inside office:automatic-styles: LibreOffice applies a conditional cell style (style:map) only there, never a common style's. */
  #inAutomatic = false

  #style?: {name: string; family?: string}
  #dataStyle?: DataStyle
  #text?: string

  /** The SAX handlers that read a part's styles into this. */
  readonly handlers = {
    open: (tag: SaxesTagPlain) => this.#open(tag),
    close: (name: string) => this.#close(name),
    text: (text: string) => {
      if (this.#text !== undefined) this.#text += text
    },
  }

  #open(tag: SaxesTagPlain) {
    const name = tag.name
    if (name === 'style:default-style') this.#inDefault = attr(tag, 'style:family') === 'table-cell'
    else if (name === 'office:automatic-styles') this.#inAutomatic = true
    else if (name === 'style:text-properties' && this.#inDefault) {
      this.#country ??= attr(tag, 'fo:country')
      this.#defaultPoints = pointsOf(attr(tag, 'fo:font-size')) ?? this.#defaultPoints
    }
    if (name === 'style:style') {
      this.#style = {name: attr(tag, 'style:name') ?? '', family: attr(tag, 'style:family')}
      if (this.#style.family === 'table-cell') {
        const style = {data: attr(tag, 'style:data-style-name'), parent: attr(tag, 'style:parent-style-name')}
        this.#cells.set(this.#style.name, style)
        // A style is named by its name (`ConditionalStyle_5f_1`) or, in conditions, its display name (`ConditionalStyle_1`).
        const shown = attr(tag, 'style:display-name')
        if (shown) this.#cells.set(shown, style)
      }
      return
    }
    if (/^number:[a-z]+-style$/.test(name)) {
      this.#dataStyle = {family: name.slice(7, -6), parts: [], maps: []}
      this.#data.set(attr(tag, 'style:name') ?? '', this.#dataStyle)
      return
    }
    const data = this.#dataStyle
    if (data) {
      if (name === 'number:number') {
        const digits = digitsOf(tag)
        if (typeof digits === 'string') data.parts.push(digits)
        else data.unmappable = digits.unmappable
      } else if (name === 'number:text' || name === 'number:currency-symbol') this.#text = ''
      else if (name === 'number:text-content') data.parts.push('@')
      else if (name === 'number:scientific-number') {
        const places = Number(attr(tag, 'number:decimal-places') ?? 0)
        const exponent = Number(attr(tag, 'number:min-exponent-digits') ?? 2)
        data.parts.push(`0${places ? `.${'0'.repeat(places)}` : ''}E+${'0'.repeat(exponent)}`)
      } else if (name === 'number:fraction') {
        const denominator = attr(tag, 'number:denominator-value')
        const digits = '?'.repeat(Number(attr(tag, 'number:min-numerator-digits') ?? 1))
        data.parts.push(
          `# ${digits}/${denominator ?? '?'.repeat(Number(attr(tag, 'number:min-denominator-digits') ?? 1))}`,
        )
      } else if (name === 'number:embedded-text') data.unmappable = 'text inside the number'
      else if (name === 'style:map')
        data.maps.push({
          condition: attr(tag, 'style:condition') ?? '',
          style: attr(tag, 'style:apply-style-name') ?? '',
        })
      return
    }
    const style = this.#style
    if (!style) return
    const cell = style.family === 'table-cell' ? this.#cells.get(style.name) : undefined
    if (cell && name === 'style:map' && this.#inAutomatic)
      (cell.maps ??= []).push({
        condition: attr(tag, 'style:condition') ?? '',
        style: attr(tag, 'style:apply-style-name') ?? '',
        base: attr(tag, 'style:base-cell-address'),
      })
    else if (cell && name === 'style:table-cell-properties') {
      const background = attr(tag, 'fo:background-color')
      if (background !== undefined) cell.background = hexOf(background) ?? 'transparent'
      const shrink = attr(tag, 'style:shrink-to-fit')
      if (shrink !== undefined) cell.shrink = shrink === 'true'
    }
    const width = name === 'style:table-column-properties' ? pointsOf(attr(tag, 'style:column-width')) : undefined
    if (width !== undefined) this.columnWidths.set(style.name, width)
    if (name === 'style:table-properties' && style.family === 'table' && attr(tag, 'table:display') === 'false')
      this.hiddenTables.add(style.name)
    else if (name === 'style:table-row-properties' && isZeroLength(attr(tag, 'style:row-height')))
      this.zeroRows.add(style.name)
    else if (name === 'style:table-column-properties' && isZeroLength(attr(tag, 'style:column-width')))
      this.zeroColumns.add(style.name)
    else if (name === 'style:table-column-properties' && isNarrow(attr(tag, 'style:column-width')))
      this.narrowColumns.add(style.name)
    else if (name === 'style:text-properties') this.#textProperties(tag, style, cell)
  }

  /** A style's text: struck through, its colour, its font's size; for a text style (a span's), whether it strikes, whitens or shrinks its text. */
  #textProperties(tag: SaxesTagPlain, style: {name: string; family?: string}, cell: CellStyle | undefined) {
    const through = attr(tag, 'style:text-line-through-style')
    const struck = through !== undefined && through !== 'none'
    if (struck && cell) cell.struck = true
    if (struck && style.family === 'text') this.struckText.add(style.name)
    const colour = attr(tag, 'fo:color')
    if (colour !== undefined && cell) cell.colour = hexOf(colour) ?? 'automatic'
    if (isWhite(colour) && style.family === 'text') this.whiteText.add(style.name)
    const size = attr(tag, 'fo:font-size')
    if (size !== undefined && cell) cell.size = size
    if (tooSmall(pointsOf(size)) && style.family === 'text') this.smallText.add(style.name)
  }

  #close(name: string) {
    if (name === 'style:default-style') this.#inDefault = false
    else if (name === 'office:automatic-styles') this.#inAutomatic = false
    if (name === 'style:style') this.#style = undefined
    else if (/^number:[a-z]+-style$/.test(name)) this.#dataStyle = undefined
    else if ((name === 'number:text' || name === 'number:currency-symbol') && this.#text !== undefined) {
      const text = this.#text
      this.#text = undefined
      const data = this.#dataStyle
      if (!data) return
      // An empty symbol is the currency the cell says it is in (office:currency), shown in its place.
      if (name === 'number:currency-symbol' && !text.trim()) {
        data.parts.push(CELL_CURRENCY)
        return
      }
      // A percentage style's `%` is the operator that shows the value a hundred times.
      const at = data.family === 'percentage' ? text.indexOf('%') : -1
      data.parts.push(at === -1 ? literal(text) : `${literal(text.slice(0, at))}%${literal(text.slice(at + 1))}`)
    }
  }

  /** A cell style and those it inherits, nearest first: its parents, and last the named style "Default" (DEFAULT_CELL_STYLE). */
  *#lineage(name: string | undefined): Generator<CellStyle> {
    let at = name ?? DEFAULT_CELL_STYLE
    for (let seen = 0; seen < 16; seen++) {
      const style = this.#cells.get(at)
      if (!style) return
      yield style
      if (style.parent === undefined && at === DEFAULT_CELL_STYLE) return
      at = style.parent ?? DEFAULT_CELL_STYLE
    }
  }

  /** What a cell style inherits: its own, else its lineage's (#lineage). */
  #cellStyle<K extends keyof CellStyle>(name: string | undefined, key: K): CellStyle[K] | undefined {
    for (const style of this.#lineage(name)) if (style[key] !== undefined) return style[key]
    return undefined
  }

  /**
   * A cell's rendered text with its currency where its style shows the cell's (an empty symbol):
   * the one the cell names (office:currency), else the document's country's; and that currency.
   */
  withCellCurrency(text: string, named: string | undefined): {text: string; currency?: string} {
    if (!text.includes('\u0000')) return {text}
    const currency = named ?? COUNTRY_CURRENCIES[this.#country ?? '']
    return {text: text.split('\u0000').join(HOME_SYMBOLS[currency ?? ''] ?? currency ?? ''), currency}
  }

  /**
   * What a cell style applied by a conditional format does: strike its text, write it too small
   * to read, colour it (its font's colour, its background: white text hides on no background and
   * shows on a dark one), hide it (`;;;`) or show another number (its format), or neither.
   */
  effectOf(cellStyle: string | undefined): Effect | undefined {
    if (this.struck(cellStyle)) return 'struck'
    if (this.small(cellStyle)) return 'small'
    const format = this.formatOf(cellStyle)
    const effect = 'unmappable' in format || format.code === 'General' ? undefined : formatEffect(format.code)
    const {ground} = this.coloursOf(cellStyle)
    // Its text's colour only where it sets one itself: a rule's style inherits the document's
    // default colour (black), and gw never reads a white cell as shown on a guess of which applies.
    const own = this.#cells.get(cellStyle ?? '')?.colour
    const text = own === 'automatic' ? undefined : own
    const fill = ground ?? (this.#cellStyle(cellStyle, 'background') === undefined ? undefined : 'ffffff')
    if (effect === 'hidden' || (text === undefined && fill === undefined)) return effect
    const reformats = typeof effect === 'object' && 'reformats' in effect ? effect.reformats : undefined
    return {paints: {text, fill}, ...(reformats ? {reformats} : {})}
  }

  /** The colours a cell style draws its text in (undefined: automatic) and on (undefined: no background). */
  coloursOf(cellStyle: string | undefined): {text?: string; ground?: string} {
    const colour = this.#cellStyle(cellStyle, 'colour')
    const background = this.#cellStyle(cellStyle, 'background')
    return {
      ...(colour !== undefined && colour !== 'automatic' ? {text: colour} : {}),
      ...(background !== undefined && background !== 'transparent' ? {ground: background} : {}),
    }
  }

  /** Whether a cell style writes its text in the colour it is drawn on (white on no background, black on black): it does not show. */
  unseen(cellStyle: string | undefined): boolean {
    const colour = this.#cellStyle(cellStyle, 'colour')
    const background = this.#cellStyle(cellStyle, 'background')
    const ground = background === undefined || background === 'transparent' ? 'ffffff' : background
    return colour !== undefined && colour !== 'automatic' && looksAlike(colour, ground)
  }

  /** Whether a cell style gives its cell a background of a colour other than white: white text shows on it. */
  filled(cellStyle: string | undefined): boolean {
    const background = this.#cellStyle(cellStyle, 'background')
    return background !== undefined && background !== 'transparent' && !looksAlike(background, 'ffffff')
  }

  /** The conditional styles (`style:map`) of a cell style that strike, hide or reformat its cells, with their conditions. */
  mapsOf(cellStyle: string | undefined): {condition: string; style: string; base?: string; effect: Effect}[] {
    const maps = this.#cellStyle(cellStyle, 'maps') ?? []
    return maps.flatMap((map) => {
      const effect = this.effectOf(map.style)
      return effect ? [{...map, effect}] : []
    })
  }

  /**
   * The size of a cell style's font in points: its own or its parent's (a percentage of the
   * parent's), else the document's default.
   */
  points(cellStyle: string | undefined): number {
    let scale = 1
    for (const style of this.#lineage(cellStyle)) {
      const percent = /^\s*(\d*\.?\d+)\s*%\s*$/.exec(style.size ?? '')
      if (percent) scale *= Number(percent[1]) / 100
      else if (style.size !== undefined) return (pointsOf(style.size) ?? DEFAULT_POINTS) * scale
    }
    return this.#defaultPoints * scale
  }

  /** Whether a cell style writes its text too small to read (its font's size, points). */
  small(cellStyle: string | undefined): boolean {
    return tooSmall(this.points(cellStyle))
  }

  /** Whether a cell style shrinks its text to fit its column. */
  shrinks(cellStyle: string | undefined): boolean {
    return Boolean(this.#cellStyle(cellStyle, 'shrink'))
  }

  /** Whether a cell style strikes its text through. */
  struck(cellStyle: string | undefined): boolean {
    return Boolean(this.#cellStyle(cellStyle, 'struck'))
  }

  /** The number format a cell style shows its numbers with (General when it names none). */
  formatOf(cellStyle: string | undefined): NumberFormat | {unmappable: string} {
    const data = this.#cellStyle(cellStyle, 'data')
    if (!data) return numberFormat(0, undefined)
    let format = this.#formats.get(data)
    if (!format) {
      const code = this.#code(data)
      format = typeof code === 'string' ? numberFormat(164, code) : code
      this.#formats.set(data, format)
    }
    return format
  }

  /** A data style's format code, its conditions as sections; or why it does not map. */
  #code(name: string, depth = 0): string | {unmappable: string} {
    const style = this.#data.get(name)
    if (!style) return 'General'
    if (style.unmappable) return {unmappable: style.unmappable}
    if (['date', 'time'].includes(style.family)) return 'yyyy-mm-dd'
    const own = style.parts.join('') || (style.family === 'text' ? '@' : '')
    if (!style.maps.length || depth > 2) return own
    const sections: string[] = []
    const maps = style.maps.map((m) => ({...m, test: conditionOf(m.condition)}))
    if (maps.length > 3 || maps.some((m) => !m.test))
      return {unmappable: `the conditions ${maps.map((m) => m.condition).join(', ')}`}
    for (const map of maps) {
      const code = this.#code(map.style, depth + 1)
      if (typeof code !== 'string') return code
      sections.push(code)
    }
    const tests = maps.map((m) => `${m.test![1]}${m.test![2]}`).join(' ')
    // The shapes LibreOffice writes for Excel's sections: positive;negative, positive;negative;zero, and with text.
    if (tests === '>=0') return `${sections[0]};${own}`
    if (tests === '>0 <0') return `${sections[0]};${sections[1]};${own}`
    if (tests === '>0 <0 =0') return `${sections[0]};${sections[1]};${sections[2]};${own}`
    if (maps.length > 2) return {unmappable: `the conditions ${maps.map((m) => m.condition).join(', ')}`}
    const conditioned = maps.map((m, i) => `[${m.test![1] === '!=' ? '<>' : m.test![1]}${m.test![2]}]${sections[i]}`)
    return [...conditioned, own].join(';')
  }
}
