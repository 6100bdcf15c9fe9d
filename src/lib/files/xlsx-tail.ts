/**
 * What an .xlsx sheet says after its rows (ECMA-376 puts `autoFilter`, `mergeCells` and
 * `conditionalFormatting` after `sheetData`), read before its rows are: the part's text is
 * scanned, not parsed, up to the end of its rows, then the rest is kept and read.
 */
import {type ConditionalRule, type UnevaluatedRule, excelRule} from './conditional-formats.js'
import {type Effect, mayHide} from './rule-effects.js'
import {MergedCells, rangeOf} from './workbook-rows.js'
import type {ZipParts} from './zip-parts.js'

/** An autofilter: its range, and the columns it filters, each with the values it shows when it lists them. */
export interface AutoFilter {
  top: number
  bottom: number
  columns: {column: number; values?: Set<string>; blank: boolean}[]
}

/** What a sheet's tail says: its filter, merged ranges, and the conditional formats that strike or hide cells. */
interface SheetTail {
  filter?: AutoFilter
  merged: MergedCells
  rules: ConditionalRule[]
  /** Conditional formats that can strike or hide cells and that gw cannot evaluate, in words. */
  unevaluated: UnevaluatedRule[]
}

/** The text of `&amp;`-escaped XML. */
const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, name: string) => {
    const named: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', apos: "'"}
    if (named[name]) return named[name]
    return String.fromCodePoint(name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1)))
  })
const attributeIn = (tag: string, name: string) => {
  const value = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(tag)
  return value ? unescapeXml(value[1] ?? value[2]!) : undefined
}
/** Elements named `name` (any namespace prefix), whole: `<x:cfRule ...>...</x:cfRule>` or self-closed. */
const elements = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<(?:[\\w.-]+:)?${name}\\b[^>]*?(?:/>|>[\\s\\S]*?</(?:[\\w.-]+:)?${name}>)`, 'g'))].map(
    (m) => m[0],
  )
const startTag = (xml: string, name: string) => new RegExp(`<(?:[\\w.-]+:)?${name}\\b[^>]*>`).exec(xml)?.[0]

/** The XML after a sheet's rows, kept at most this long: its autofilter, merged ranges and conditional formats are there. */
const MAX_SHEET_TAIL = 8 * 1024 * 1024

const SHEET_DATA = Buffer.from('sheetData>')

/** Where `</sheetData>` (or `</x:sheetData>`) starts in `bytes`, or -1: not the start tag, `<sheetData>`. */
function endOfRows(bytes: Buffer): number {
  for (let at = bytes.indexOf(SHEET_DATA); at !== -1; at = bytes.indexOf(SHEET_DATA, at + 1)) {
    const open = bytes.lastIndexOf(0x3c, at) // '<'
    if (open !== -1 && bytes[open + 1] === 0x2f /* '/' */ && at - open < 40) return open
  }
  return -1
}

/** The XML of a sheet after its rows. */
async function tailOf(zip: ZipParts, part: string): Promise<string | undefined> {
  // Searched as bytes (the end tag is ASCII): a sheet of a million rows is not decoded twice.
  const kept: Buffer[] = []
  let size = 0
  let last: Buffer | undefined
  for await (const chunk of zip.chunks(part)) {
    if (kept.length) {
      if (size < MAX_SHEET_TAIL) kept.push(chunk)
      size += chunk.length
      continue
    }
    // The end tag may straddle two chunks: the previous chunk's last bytes are looked at with this one.
    const seam = last ? Buffer.concat([last.subarray(-40), chunk.subarray(0, 40)]) : undefined
    const across = seam ? endOfRows(seam) : -1
    const at = across !== -1 ? -1 : endOfRows(chunk)
    if (across !== -1) kept.push(seam!.subarray(across), chunk.subarray(40))
    else if (at !== -1) kept.push(chunk.subarray(at))
    size = kept.reduce((n, b) => n + b.length, 0)
    last = chunk
  }
  return kept.length ? Buffer.concat(kept).toString('utf8') : undefined
}

/** The autofilter of a sheet's tail, with the values each filtered column shows when it lists them. */
function filterOf(tail: string): AutoFilter | undefined {
  const filterXml = elements(tail, 'autoFilter')[0]
  const range = filterXml && rangeOf(attributeIn(filterXml, 'ref') ?? '')
  if (!filterXml || !range) return undefined
  const columns = elements(filterXml, 'filterColumn').map((xml) => {
    const column = range.left + Number(attributeIn(xml, 'colId') ?? 0)
    const filters = startTag(xml, 'filters')
    if (!filters) return {column, blank: false}
    const values = new Set(
      [...xml.matchAll(/<(?:[\w.-]+:)?filter\b[^>]*>/g)].flatMap((m) => attributeIn(m[0], 'val')?.toLowerCase() ?? []),
    )
    return {column, values, blank: ['1', 'true'].includes(attributeIn(filters, 'blank') ?? '')}
  })
  return {top: range.top, bottom: range.bottom, columns}
}

/**
 * The conditional formats of a sheet's tail whose format (`dxfId`, by `effects`) strikes or
 * hides cells: those gw evaluates, and the rest in words. Excel 2010's own (`x14:`, in the
 * extension list, with their format inside) are never evaluated: one that strikes is said.
 */
function conditionalRules(tail: string, effects: readonly (Effect | undefined)[]) {
  const rules: ConditionalRule[] = []
  const unevaluated: UnevaluatedRule[] = []
  for (const block of elements(tail, 'conditionalFormatting')) {
    const open = startTag(block, 'conditionalFormatting')!
    const extension = /^<x14:/.test(open)
    const sqref = attributeIn(open, 'sqref') ?? /<(?:[\w.-]+:)?sqref>([^<]*)</.exec(block)?.[1] ?? ''
    for (const xml of elements(block, 'cfRule')) {
      const tag = startTag(xml, 'cfRule')!
      const effect = extension
        ? /<(?:[\w.-]+:)?strike\b/.test(xml)
          ? 'struck'
          : undefined
        : effects[Number(attributeIn(tag, 'dxfId') ?? -1)]
      if (!effect) continue
      const formulas = [...xml.matchAll(/<(?:[\w.-]+:)?f(?:ormula)?>([\s\S]*?)<\//g)].map((m) => unescapeXml(m[1]!))
      const rule = {
        type: attributeIn(tag, 'type') ?? '',
        operator: attributeIn(tag, 'operator'),
        text: attributeIn(tag, 'text'),
        formulas,
      }
      const read = extension
        ? `a conditional format of Excel 2010 on ${sqref} that strikes its cells through`
        : excelRule(sqref, rule, effect)
      if (typeof read !== 'string') rules.push(read)
      else if (mayHide(effect)) unevaluated.push(read)
    }
  }
  return {rules, unevaluated}
}

/** What a sheet says after its rows: its filter, merged ranges and conditional formats. */
export async function sheetTail(
  zip: ZipParts,
  part: string,
  effects: readonly (Effect | undefined)[],
): Promise<SheetTail> {
  const tail = await tailOf(zip, part)
  if (!tail) return {merged: new MergedCells([]), rules: [], unevaluated: []}
  const merges = [...tail.matchAll(/<(?:[\w.-]+:)?mergeCell\b[^>]*>/g)].flatMap((m) => attributeIn(m[0], 'ref') ?? [])
  return {filter: filterOf(tail), merged: new MergedCells(merges), ...conditionalRules(tail, effects)}
}
