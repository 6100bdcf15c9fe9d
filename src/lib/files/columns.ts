/**
 * Which column of a file holds each field gw reads: a column named as the field (any case,
 * surrounding spaces ignored), or the one the user names with `--column FIELD=HEADER`. The
 * other columns are ignored, and said to be; one that looks like a field gw could use gets a
 * hint with the flag that would use it.
 */
import {shellWord, usageError} from '../errors.js'
import {quoted, shown} from '../untrusted.js'
import {withoutInvisible} from './invisible.js'

export interface Columns {
  /** Each field read, and the position of the column that holds it. */
  index: ReadonlyMap<string, number>
  /** Columns gw does not read, as the file names them. */
  ignored: string[]
  /** The fields given by --column, and the header each names. */
  mapped: ReadonlyMap<string, string>
  /** The fields found by another name than their own (an alias: a `Status` column for sale_status). */
  aliased?: readonly string[]
}

/** A header as a person reads it: line breaks (Alt+Enter in Excel) and runs of spaces as one space, invisible characters gone. */
const cleanHeader = (name: string) => withoutInvisible(name).replace(/\s+/g, ' ').trim()

/** A header as gw matches it: clean, in any case. */
export const normalizeHeader = (name: string) => cleanHeader(name).toLowerCase()

/** `FIELD=HEADER` values of --column, checked against the fields the command reads. */
function parseMapping(values: readonly string[], fields: readonly string[]): Map<string, string> {
  const mapping = new Map<string, string>()
  for (const value of values) {
    const at = value.indexOf('=')
    const field = normalizeHeader(value.slice(0, Math.max(0, at)))
    const header = value.slice(at + 1).trim()
    if (at === -1 || !field || !header)
      throw usageError(`--column ${quoted(value)}: write it as FIELD=HEADER, e.g. --column amount="Amount (THB)".`)
    if (!fields.includes(field))
      throw usageError(
        `--column ${quoted(value)}: ${quoted(field)} is not a field read here.`,
        `Fields: ${fields.join(', ')}.`,
      )
    if (mapping.has(field)) throw usageError(`--column ${field} is given twice; give each field once.`)
    mapping.set(field, header)
  }
  return mapping
}

/** The columns of a header for a command's fields; a usage error for a mapping that names no column, or a field found twice. */
export function resolveColumns(
  names: readonly string[],
  fields: readonly string[],
  given: readonly string[] = [],
  /** Other names a field answers to (normalised), when no column has its own. */
  aliases: Readonly<Record<string, readonly string[]>> = {},
  /** Columns the sheet hides: never read by their name (only when --column names one). */
  hidden: ReadonlySet<number> = new Set(),
): Columns {
  // A hidden column is not there to be found by its name: its key is blank, as an unnamed column's.
  const keys = names.map((name, at) => (hidden.has(at) ? '' : normalizeHeader(name)))
  const mapping = parseMapping(given, fields)
  const index = new Map<string, number>()
  const byKey = new Map<string, number[]>()
  keys.forEach((k, i) => {
    const at = byKey.get(k)
    if (at) at.push(i)
    else byKey.set(k, [i])
  })
  const positions = (key: string) => byKey.get(key) ?? []
  // --column names any column, shown or hidden (a hidden one is then the caller's to refuse).
  const named = (key: string) => names.flatMap((name, at) => (normalizeHeader(name) === key ? [at] : []))
  for (const [field, header] of mapping) {
    const found = named(normalizeHeader(header))
    if (found.length === 0)
      throw usageError(
        `--column ${field}=${shown(header, 60)}: the file has no column ${quoted(header)}.`,
        `Its columns are: ${names.map((n) => quoted(n)).join(', ')}.`,
      )
    if (found.length > 1)
      throw usageError(
        `--column ${field}=${shown(header, 60)}: the file has ${found.length} columns named ${quoted(header)}; rename all but one.`,
      )
    const other = [...index].find(([, at]) => at === found[0])
    if (other)
      throw usageError(`The column ${quoted(header)} is given for both ${other[0]} and ${field}; give it once.`)
    index.set(field, found[0]!)
  }
  const taken = new Set(index.values())
  const twice: string[] = []
  for (const field of fields) {
    if (mapping.has(field)) continue
    const found = positions(field).filter((at) => !taken.has(at))
    if (found.length > 1) twice.push(field)
    if (found.length) index.set(field, found[0]!)
  }
  if (twice.length)
    throw usageError(`Columns named twice: ${twice.join(', ')}.`, 'Rename or remove one of each, then run again.')
  const aliased: string[] = []
  for (const [field, names] of Object.entries(aliases)) {
    if (index.has(field) || !fields.includes(field)) continue
    const taken = new Set(index.values())
    const at = names.map((name) => positions(name).filter((i) => !taken.has(i))).find((found) => found.length === 1)
    if (!at) continue
    index.set(field, at[0]!)
    aliased.push(field)
  }
  const used = new Set(index.values())
  const ignored = names.filter((name, i) => !used.has(i) && keys[i] !== '')
  return {index, ignored, mapped: mapping, ...(aliased.length ? {aliased} : {})}
}

/**
 * The columns of gw's own earlier output that a file fed back in holds (a report, a reconcile
 * output, a list export): `outputs` are the column sets of the outputs the command knows, and a
 * file holding every column of one (by its name, or as `gw_NAME` where that output renamed it
 * beside a column of the file's own) is that output. Its columns not read as fields are gw's
 * words about an earlier run (a status, advice, the gateway's answers), not the file's data:
 * their positions. Where both `status` and `gw_status` are there, gw's is the renamed one.
 */
export function gwColumnsOf(
  keys: readonly string[],
  read: ReadonlySet<number>,
  outputs: readonly (readonly string[])[],
): number[] {
  const found = new Set<number>()
  for (const output of outputs) {
    const positions = output.map((column) => {
      const named = new RegExp(`^(gw_)*${column}$`)
      let best: number | undefined
      keys.forEach((key, at) => {
        if (named.test(key) && (best === undefined || key.length > keys[best]!.length)) best = at
      })
      return best
    })
    if (positions.every((at) => at !== undefined)) for (const at of positions) if (!read.has(at!)) found.add(at!)
  }
  return [...found].sort((a, b) => a - b)
}

/** What a column's name suggests it holds, and the fields that would read it. */
const LOOKS_LIKE: readonly {pattern: RegExp; what: string; fields: readonly string[]}[] = [
  {
    pattern:
      /order|invoice|\binv\b|bill|receipt|commande|facture|n°|pedido|factura|encomenda|bestell|rechnung|auftrag|เลขที่|คำสั่งซื้อ|ใบสั่ง|注文|订单|رقم الطلب/,
    what: 'order numbers',
    fields: ['mch_order_no'],
  },
  {
    pattern:
      /amount|total|sum|price|value|baht|thb|montant|rembours|importe|reembolso|valor|betrag|erstattung|ยอด|จำนวนเงิน|ราคา|金額|金额|المبلغ/,
    what: 'amounts',
    fields: ['amount', 'refund_amount'],
  },
  {
    pattern: /currency|ccy|devise|moneda|moeda|währung|สกุลเงิน|通貨|货币|العملة/,
    what: 'currencies',
    fields: ['fee_type'],
  },
  {pattern: /status|state|statut|estado|สถานะ|状态|ステータス|الحالة/, what: 'states', fields: ['status']},
  {pattern: /channel|wallet|canal|ช่องทาง/, what: 'channels', fields: ['channel']},
]

/** A cell that reads as a value, not a header: one word with a digit (INV-1001, 50.00, 2026-11-30), or a number. */
const looksLikeValue = (name: string) => /^\S*\d\S*$|^[\d\s.,'’+-]+$/.test(name)

/** The flag that maps `field` to `header`, ready to paste. */
export const columnFlag = (field: string, header: string) =>
  `--column ${field}=${shellWord(shown(cleanHeader(header), 60))}`

/** An ignored column that looks like a field the command reads and the file lacks, and that field. */
interface Hint {
  name: string
  what: string
  field: string
}

/** The hints of `columnHints`, as facts. */
function hintsOf(columns: Columns, fields: readonly string[], anyOf: readonly string[][]): Hint[] {
  const has = (field: string) =>
    columns.index.has(field) || anyOf.some((group) => group.includes(field) && group.some((f) => columns.index.has(f)))
  const hints: Hint[] = []
  // Counted once: a header of thousands of ignored columns is read in linear time.
  const counts = new Map<string, number>()
  for (const name of columns.ignored) counts.set(normalizeHeader(name), (counts.get(normalizeHeader(name)) ?? 0) + 1)
  const twice = (name: string) => counts.get(normalizeHeader(name))! > 1
  for (const name of columns.ignored) {
    // A name two columns share cannot be mapped: no hint that would fail.
    if (twice(name)) continue
    const key = normalizeHeader(name)
    if (looksLikeValue(key)) continue
    const guess = LOOKS_LIKE.find((g) => g.pattern.test(key))
    const field = guess?.fields.find((f) => fields.includes(f) && !has(f))
    if (guess && field) hints.push({name, what: guess.what, field})
  }
  return hints
}

/** For each field the file lacks, the first ignored column that looks like it (its name, and what it looks like). */
export const hintsFor = (columns: Columns, fields: readonly string[], anyOf: readonly string[][] = []) =>
  new Map(
    hintsOf(columns, fields, anyOf)
      .reverse()
      .map((h) => [h.field, h] as const),
  )

/**
 * For each ignored column that looks like a field the command reads and the file lacks:
 * `"Total" looks like amounts: --column amount=Total`. `anyOf`: fields of which one is enough
 * (the three order numbers).
 */
export const columnHints = (columns: Columns, fields: readonly string[], anyOf: readonly string[][] = []): string[] =>
  hintsOf(columns, fields, anyOf).map((h) => `${quoted(h.name)} looks like ${h.what}: ${columnFlag(h.field, h.name)}`)

/**
 * How many of `groups` (fields of which one is needed) a header gives, by name or by a column
 * that looks like one (a hint): a title row above the header gives none.
 */
export function groupsNamed(
  columns: Columns,
  fields: readonly string[],
  groups: readonly (readonly string[])[],
): number {
  const hinted = new Set(
    hintsOf(
      columns,
      fields,
      groups.map((g) => [...g]),
    ).map((h) => h.field),
  )
  return groups.filter((group) => group.some((field) => columns.index.has(field) || hinted.has(field))).length
}
