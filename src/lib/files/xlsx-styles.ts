/**
 * What an .xlsx's shared parts say of how its cells look: the relationships that find its parts,
 * its theme's colours, and its styles (each
 * cell style's number format, whether its font strikes the text through or writes it white on
 * white; each differential format, which conditional formats apply, and whether it strikes or hides).
 */
import {posix} from 'node:path'

import type {SaxesTagPlain} from 'saxes'

import {looksAlike, tooSmall, UNTOLD} from './colours.js'
import {type Effect, formatEffect} from './rule-effects.js'
import {type NumberFormat, numberFormat} from './shown-number.js'
import {attr, local, parseAll} from './workbook-rows.js'
import type {ZipParts} from './zip-parts.js'

/** `Target` of a relationship, resolved from the part that has it (absolute targets as they are). */
const resolvePart = (from: string, target: string) =>
  target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(posix.dirname(from), target))

/** The relationships of a part: id to part name, and type (its last word) to part name. */
export async function relationships(zip: ZipParts, part: string) {
  const rels = posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`)
  const byId = new Map<string, string>()
  const byType = new Map<string, string>()
  if (!zip.has(rels)) return {byId, byType}
  await parseAll(zip, rels, {
    open(tag) {
      if (local(tag) !== 'Relationship' || attr(tag, 'TargetMode') === 'External') return
      const target = resolvePart(part, attr(tag, 'Target') ?? '')
      byId.set(attr(tag, 'Id') ?? '', target)
      byType.set((attr(tag, 'Type') ?? '').split('/').pop()!, target)
    },
  })
  return {byId, byType}
}

/** The legacy palette's white and black (`indexed` 1 and 9, 0 and 8, as Excel and openpyxl write them), and the theme's first two (Background 1, Text 1) where a workbook has no theme. */
const INDEXED: Readonly<Record<string, string>> = {'0': '000000', '1': 'ffffff', '8': '000000', '9': 'ffffff'}
const THEMED: readonly string[] = ['ffffff', '000000']

/**
 * The colours of a workbook's theme (`xl/theme/theme1.xml`) by the index a cell's `theme` names:
 * Excel numbers Background 1, Text 1, Background 2, Text 2 before the accents, while the theme
 * lists them dark before light (dk1, lt1, dk2, lt2): the first two pairs are swapped.
 */
export async function themeColours(zip: ZipParts, part: string | undefined): Promise<string[]> {
  const listed: string[] = []
  if (!part || !zip.has(part)) return [...THEMED]
  let depth = 0
  await parseAll(zip, part, {
    open(tag) {
      const name = local(tag)
      if (name === 'clrScheme') depth = 1
      // A theme names twelve colours; a part that lists more is held to them.
      else if (depth === 1 && listed.length < 12) [depth, listed[listed.length]] = [2, UNTOLD]
      else if (depth === 2 && (name === 'srgbClr' || name === 'sysClr')) {
        const colour = /^[0-9a-f]{6}$/i.exec(attr(tag, name === 'srgbClr' ? 'val' : 'lastClr') ?? '')?.[0]
        listed[listed.length - 1] = colour?.toLowerCase() ?? UNTOLD
      }
    },
    close(tag) {
      const name = local(tag)
      if (name === 'clrScheme') depth = 0
      else if (depth === 2 && /^(dk|lt|accent)\d$|^(hlink|folHlink)$/.test(name)) depth = 1
    },
  })
  const [dk1, lt1, dk2, lt2, ...rest] = listed
  return [lt1, dk1, lt2, dk2, ...rest].map((colour) => colour ?? UNTOLD)
}

/**
 * A colour lightened or darkened by `tint` (-1 to 1) as Excel draws it: its lightness in HSL
 * scaled towards black (below 0) or towards white (above 0).
 */
export function tinted(colour: string, tint: number): string {
  if (!tint) return colour
  const [r, g, b] = [0, 2, 4].map((at) => parseInt(colour.slice(at, at + 2), 16) / 255) as [number, number, number]
  const max = Math.max(r, g, b)
  const min = Math.min(r, g, b)
  const light = (max + min) / 2
  const chroma = max - min
  const saturation = chroma === 0 ? 0 : chroma / (1 - Math.abs(2 * light - 1))
  const hue =
    chroma === 0 ? 0 : max === r ? ((g - b) / chroma + 6) % 6 : max === g ? (b - r) / chroma + 2 : (r - g) / chroma + 4
  const lighter = tint < 0 ? light * (1 + tint) : light * (1 - tint) + tint
  const c = (1 - Math.abs(2 * lighter - 1)) * saturation
  const x = c * (1 - Math.abs((hue % 2) - 1))
  const m = lighter - c / 2
  const sector = Math.floor(hue) % 6
  const rgb = [
    [c, x, 0],
    [x, c, 0],
    [0, c, x],
    [0, x, c],
    [x, 0, c],
    [c, 0, x],
  ][sector]!
  return rgb
    .map((v) =>
      Math.round((v + m) * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')
}

/**
 * A colour of the file as `rrggbb`: `rgb` (its alpha left off), the palette's white or black, or
 * the theme's, each with its tint; undefined for automatic, UNTOLD for a palette colour gw does
 * not keep or a theme colour the workbook's theme does not say.
 */
function colourOf(tag: SaxesTagPlain, theme: readonly string[]): string | undefined {
  const rgb = /^(?:[0-9a-f]{2})?([0-9a-f]{6})$/i.exec(attr(tag, 'rgb') ?? '')?.[1]?.toLowerCase()
  const [indexed, themed] = [attr(tag, 'indexed'), attr(tag, 'theme')]
  const base =
    rgb ??
    // Index 64 is the system's text colour: automatic.
    (indexed !== undefined && indexed !== '64' ? (INDEXED[indexed] ?? UNTOLD) : undefined) ??
    (themed !== undefined ? (theme[Number(themed)] ?? UNTOLD) : undefined)
  const tint = Number(attr(tag, 'tint') ?? 0)
  if (base === undefined || base === UNTOLD) return base
  return Number.isFinite(tint) ? tinted(base, Math.max(-1, Math.min(1, tint))) : UNTOLD
}

const TRUE = ['1', 'true']
export const isTrue = (tag: SaxesTagPlain, name: string) => TRUE.includes(attr(tag, name) ?? '')

/** The size of a font that says none: Excel's default (Calibri 11). */
const DEFAULT_POINTS = 11

/** A font's size in points (`<sz val="11"/>`). */
export const sizeOf = (tag: SaxesTagPlain) => {
  const size = Number(attr(tag, 'val'))
  return Number.isFinite(size) ? size : undefined
}

/** White, or as near it as a reader cannot tell. */
export const isWhite = (tag: SaxesTagPlain, theme: readonly string[]) => {
  const colour = colourOf(tag, theme)
  return colour !== undefined && colour !== UNTOLD && looksAlike(colour, 'ffffff')
}

/** The styles of a workbook: each cell style's number format and strike, and what each differential format does. */
export interface CellStyles {
  numbers: NumberFormat[]
  struck: boolean[]
  /** Whether a cell style writes its text in the colour it is drawn on (white on no fill, black on black): it does not show. */
  unseen: boolean[]
  /** Whether a cell style fills the cell with a colour (white runs of its text then show). */
  filled: boolean[]
  /** Whether a cell style's font is too small to read (1 pt shows as a dot). */
  small: boolean[]
  /** The font size (points) of each cell style that shrinks its text to fit its column (`shrinkToFit`); undefined for one that does not. */
  shrink: (number | undefined)[]
  /** The colours each cell style draws its text in (undefined: automatic) and on (undefined: no fill). */
  colours: {text?: string; ground?: string}[]
  /** By differential format (a conditional format's `dxfId`): whether it strikes its cells or hides them (`;;;`). */
  effects: (Effect | undefined)[]
}

/** A differential format being read, and which of its parts (`font`, `fill`, `border`) it is in. */
interface Dxf {
  struck: boolean
  code?: string
  text?: string
  fill?: string
  small?: boolean
  in?: string
}

const struckBy = (tag: SaxesTagPlain) => !['0', 'false'].includes(attr(tag, 'val') ?? '1')

/** Reads element `name` of a differential format into `dxf`. */
function readDxf(dxf: Dxf, name: string, tag: SaxesTagPlain, theme: readonly string[]): void {
  if (name === 'strike') dxf.struck = struckBy(tag)
  else if (name === 'numFmt') dxf.code = attr(tag, 'formatCode')
  else if (name === 'sz') dxf.small = tooSmall(sizeOf(tag))
  else if (['font', 'fill', 'border', 'alignment', 'protection'].includes(name)) dxf.in = name
  // Only a font's colour is the text's: a border's or a gradient stop's is not.
  else if (dxf.in === 'font' && name === 'color') dxf.text = colourOf(tag, theme)
  // A rule's solid fill is its pattern's background colour (its foreground, when it names none);
  // a gradient's is no one colour gw can tell.
  else if (dxf.in === 'fill' && (name === 'bgColor' || (name === 'fgColor' && dxf.fill === undefined)))
    dxf.fill = colourOf(tag, theme) ?? UNTOLD
  else if (dxf.in === 'fill' && name === 'gradientFill') dxf.fill = UNTOLD
}

/**
 * What a differential format does: a strike strikes the cell; a format that shows nothing of a
 * number (`;;;`) hides it; a font too small to read shrinks it; colours paint it (white text hides
 * on no fill, shows on a dark one); a format that shows another number reformats it.
 */
function dxfEffect(dxf: Dxf): Effect | undefined {
  const format = dxf.code !== undefined ? formatEffect(dxf.code) : undefined
  const reformats = typeof format === 'object' && 'reformats' in format ? format.reformats : undefined
  const colours = dxf.text !== undefined || dxf.fill !== undefined
  const paints = {paints: {text: dxf.text, fill: dxf.fill}, ...(reformats ? {reformats} : {})}
  return dxf.struck ? 'struck' : format === 'hidden' ? 'hidden' : dxf.small ? 'small' : colours ? paints : format
}

/** Each cell style (`s`): its number format's code and kind, and whether its font strikes the text through. */
export async function cellStyles(
  zip: ZipParts,
  part: string | undefined,
  theme: readonly string[],
): Promise<CellStyles> {
  const codes = new Map<number, string>()
  const styles: CellStyles = {
    numbers: [],
    struck: [],
    unseen: [],
    filled: [],
    small: [],
    shrink: [],
    colours: [],
    effects: [],
  }
  /** Each font: its strike, its size, and its colour when the file names one (an automatic colour is drawn to show). */
  const fonts: {struck: boolean; colour?: string; size?: number}[] = []
  /** Each fill: whether it colours the cell (a pattern of a colour other than white), and its colour. */
  const fills: {filled: boolean; colour?: string}[] = []
  if (!part || !zip.has(part)) return styles
  let inCellXfs = false
  let inFonts = false
  let inFills = false
  let dxf: Dxf | undefined
  /** The font size of the cell style being read. */
  let points = DEFAULT_POINTS
  await parseAll(zip, part, {
    open(tag) {
      const name = local(tag)
      if (name === 'dxf') dxf = {struck: false}
      else if (dxf) readDxf(dxf, name, tag, theme)
      else if (name === 'numFmt') codes.set(Number(attr(tag, 'numFmtId')), attr(tag, 'formatCode') ?? '')
      else if (name === 'fonts') inFonts = true
      else if (name === 'font' && inFonts) fonts.push({struck: false})
      else if (name === 'strike' && inFonts) fonts[fonts.length - 1]!.struck = struckBy(tag)
      else if (name === 'color' && inFonts) fonts[fonts.length - 1]!.colour = colourOf(tag, theme)
      else if (name === 'sz' && inFonts) fonts[fonts.length - 1]!.size = sizeOf(tag)
      else if (name === 'fills') inFills = true
      else if (name === 'patternFill' && inFills)
        fills.push({filled: !['none', undefined].includes(attr(tag, 'patternType'))})
      else if (name === 'fgColor' && inFills) {
        const fill = fills[fills.length - 1]!
        fill.colour = colourOf(tag, theme)
        if (fill.colour !== undefined && looksAlike(fill.colour, 'ffffff')) fill.filled = false
      } else if (name === 'cellXfs') inCellXfs = true
      else if (name === 'xf' && inCellXfs) {
        const id = Number(attr(tag, 'numFmtId') ?? 0)
        const font = fonts[Number(attr(tag, 'fontId') ?? 0)]
        styles.numbers.push(numberFormat(id, codes.get(id)))
        styles.struck.push(font?.struck ?? false)
        const fill = fills[Number(attr(tag, 'fillId') ?? 0)]
        const filled = Boolean(fill?.filled)
        // Drawn on its fill's colour, or on the sheet's white: unseen when the two look alike.
        const ground = filled ? fill?.colour : 'ffffff'
        styles.unseen.push(font?.colour !== undefined && ground !== undefined && looksAlike(font.colour, ground))
        styles.filled.push(filled)
        styles.small.push(tooSmall(font?.size))
        styles.shrink.push(undefined)
        points = font?.size ?? fonts[0]?.size ?? DEFAULT_POINTS
        styles.colours.push({text: font?.colour, ground: filled ? fill?.colour : undefined})
      } else if (name === 'alignment' && inCellXfs && isTrue(tag, 'shrinkToFit'))
        styles.shrink[styles.shrink.length - 1] = points
    },
    close(tag) {
      const name = local(tag)
      if (name === 'cellXfs') inCellXfs = false
      else if (name === 'fonts') inFonts = false
      else if (name === 'fills') inFills = false
      else if (dxf && name === dxf.in) dxf.in = undefined
      else if (name === 'dxf' && dxf) {
        styles.effects.push(dxfEffect(dxf))
        dxf = undefined
      }
    },
  })
  return styles
}
