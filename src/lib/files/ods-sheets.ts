/**
 * The tables of an .ods (LibreOffice's own format) and the rows of one, streamed from its
 * content.xml: a first pass for its styles (ods-styles), its tables, their filters and the
 * conditional formats that strike or hide cells; then the rows of the table read (ods-rows).
 */
import {odfMapRule, odfRule} from './conditional-formats.js'
import {mayHide} from './rule-effects.js'
import {type OdsOutline, odsRows} from './ods-rows.js'
import {OdsStyles} from './ods-styles.js'
import {type SheetEntry, attr, columnOf, parseAll} from './workbook-rows.js'
import type {ZipParts} from './zip-parts.js'

/** Whether the package is an OpenDocument spreadsheet (.ods), by its mimetype. */
export async function isOds(zip: ZipParts): Promise<boolean> {
  if (!zip.has('mimetype') || !zip.has('content.xml')) return false
  return (await zip.text('mimetype')).trim() === 'application/vnd.oasis.opendocument.spreadsheet'
}

/** The first pass over styles.xml and content.xml: the tables in order, and what the rows' reading needs of each. */
async function outlineOf(zip: ZipParts): Promise<OdsOutline & {sheets: SheetEntry[]}> {
  const styles = new OdsStyles()
  if (zip.has('styles.xml')) await parseAll(zip, 'styles.xml', styles.handlers)
  const outline: OdsOutline & {sheets: SheetEntry[]} = {
    styles,
    sheets: [],
    filters: new Map(),
    conditional: new Map(),
    calcext: new Set(),
  }
  const {sheets, filters, conditional} = outline
  let range: {sheet: string; left: number} | undefined
  let table = ''
  // LibreOffice writes a table's conditional formats after its rows, inside it.
  let target: string | undefined
  const maps = new UnevaluatedMaps(styles)
  await parseAll(zip, 'content.xml', {
    open(tag) {
      styles.handlers.open(tag)
      if (tag.name === 'table:table') {
        const name = attr(tag, 'table:name') ?? ''
        if (!target) table = name
        sheets.push({name, hidden: styles.hiddenTables.has(attr(tag, 'table:style-name') ?? ''), part: name})
      } else if (tag.name === 'table:table-cell') maps.see(table, attr(tag, 'table:style-name'))
      else if (tag.name === 'table:table-column') maps.see(table, attr(tag, 'table:default-cell-style-name'))
      else if (tag.name === 'calcext:conditional-format') {
        target = attr(tag, 'calcext:target-range-address') ?? ''
        outline.calcext.add(table)
      } else if (tag.name === 'calcext:condition' && target !== undefined) {
        const effect = styles.effectOf(attr(tag, 'calcext:apply-style-name'))
        if (!effect) return
        const rules = conditional.get(table) ?? {rules: [], unevaluated: []}
        const rule = odfRule(target, attr(tag, 'calcext:value') ?? '', effect)
        if (typeof rule !== 'string') rules.rules.push(rule)
        else if (mayHide(effect)) rules.unevaluated.push(rule)
        conditional.set(table, rules)
      } else if (tag.name === 'table:database-range') {
        // "'Refunds'.A1:'Refunds'.D7": the sheet and the first column of the range.
        const [, sheet = '', cell = ''] =
          /^'?(.*?)'?\.\$?([A-Z]+)/.exec(attr(tag, 'table:target-range-address') ?? '') ?? []
        range = {sheet: sheet.replace(/''/g, "'"), left: columnOf(cell) ?? 0}
      } else if (tag.name === 'table:filter-condition' && range) {
        const columns = filters.get(range.sheet) ?? []
        columns.push(range.left + Number(attr(tag, 'table:field-number') ?? 0))
        filters.set(range.sheet, columns)
      }
    },
    close(name) {
      styles.handlers.close(name)
      if (name === 'table:database-range') range = undefined
      else if (name === 'calcext:conditional-format') target = undefined
    },
    text: styles.handlers.text,
  })
  for (const [table, words] of maps.unevaluated)
    if (!outline.calcext.has(table)) {
      const rules = conditional.get(table) ?? {rules: [], unevaluated: []}
      rules.unevaluated.push(...words)
      conditional.set(table, rules)
    }
  return outline
}

/** The conditional cell styles (`style:map`) of each table's cells that gw cannot evaluate, in words (each style looked at once a table). */
class UnevaluatedMaps {
  readonly #checked = new Set<string>()
  readonly unevaluated = new Map<string, string[]>()

  constructor(readonly styles: OdsStyles) {}

  see(table: string, style: string | undefined): void {
    if (style === undefined || this.#checked.has(`${table}\u0000${style}`)) return
    this.#checked.add(`${table}\u0000${style}`)
    for (const map of this.styles.mapsOf(style)) {
      const rule = odfMapRule(style, map, map.effect)
      if (typeof rule === 'string' && mayHide(map.effect))
        this.unevaluated.set(table, [...(this.unevaluated.get(table) ?? []), rule])
    }
  }
}

/** An .ods: its tables in order, the one it opens on, and the rows of one, streamed. */
export async function openOds(path: string, zip: ZipParts) {
  const outline = await outlineOf(zip)
  const {sheets} = outline
  const active = zip.has('settings.xml') ? await activeTable(zip) : undefined
  return {
    sheets,
    rows: (sheet: SheetEntry) => odsRows(path, zip, outline, sheet),
    active: sheets.find((s) => s.name === active),
  }
}

/** The sheet an .ods opens on: its settings' ActiveTable. */
async function activeTable(zip: ZipParts): Promise<string | undefined> {
  let inActive = false
  let found: string | undefined
  await parseAll(zip, 'settings.xml', {
    open(tag) {
      inActive = found === undefined && tag.name === 'config:config-item' && attr(tag, 'config:name') === 'ActiveTable'
      if (inActive) found = ''
    },
    close() {
      inActive = false
    },
    text(text) {
      if (inActive) found += text
    },
  })
  return found
}
