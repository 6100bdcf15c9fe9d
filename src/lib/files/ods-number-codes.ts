/**
 * ODF's number styles (ODF 1.3, 16.29) as pieces of an ECMA-376 format code, the grammar every
 * workbook's cells are rendered with (shown-number): `number:number`'s digits, literal text, the
 * currency a style shows, and `style:map`'s conditions. ods-styles reads a style's parts in order
 * and joins them; what does not map is marked, never rendered by a guess.
 */
import type {SaxesTagPlain} from 'saxes'

import {attr} from './workbook-rows.js'

/** Where a style shows the currency of the cell it formats (an empty `number:currency-symbol`). */
export const CELL_CURRENCY = '"\u0000"'

/** The symbol a currency's own locale shows, for a cell of that currency whose style names none (else its code). */
export const HOME_SYMBOLS: Readonly<Record<string, string>> = {
  THB: '฿',
  MYR: 'RM',
  JPY: '¥',
  USD: '$',
  EUR: '€',
  GBP: '£',
}

/** The currency of a document's country, for a currency cell that names none (its locale's). */
export const COUNTRY_CURRENCIES: Readonly<Record<string, string>> = {
  TH: 'THB',
  MY: 'MYR',
  JP: 'JPY',
  AE: 'AED',
  US: 'USD',
  GB: 'GBP',
  ...Object.fromEntries(['DE', 'FR', 'IT', 'ES', 'NL', 'BE', 'AT', 'FI', 'IE', 'PT'].map((c) => [c, 'EUR'])),
}

/** Text as a quoted literal of a format code (a `"` in it escaped character by character). */
export const literal = (text: string) =>
  text === '' ? '' : text.includes('"') ? [...text].map((c) => `\\${c}`).join('') : `"${text}"`

/** `number:number`'s digits as a format code: `#,##0.00`, `000000`, `#,##0,` (a display factor of 1,000). */
export function digitsOf(tag: SaxesTagPlain): string | {unmappable: string} {
  const number = (name: string) => {
    const value = attr(tag, name)
    return value === undefined ? undefined : Number(value)
  }
  const places = number('number:decimal-places')
  const min = number('number:min-decimal-places') ?? number('loext:min-decimal-places') ?? places ?? 0
  const integers = number('number:min-integer-digits') ?? 0
  const grouping = attr(tag, 'number:grouping') === 'true'
  const factor = number('number:display-factor') ?? 1
  const replacement = attr(tag, 'number:decimal-replacement')
  if (places === undefined && !grouping && factor === 1) return 'General'
  if (replacement) return {unmappable: `a decimal replacement (${replacement})`}
  const commas = Math.log10(factor) / 3
  if (!Number.isInteger(commas) || commas < 0) return {unmappable: `a display factor of ${factor}`}
  const whole = '0'.repeat(integers) || '#'
  const fraction =
    (places ?? 0) > 0 ? `.${'0'.repeat(Math.min(min, places!))}${'#'.repeat(places! - Math.min(min, places!))}` : ''
  return `${grouping ? `#,${whole}` : whole}${fraction}${','.repeat(commas)}`
}

/** `value()>=0` as `>=0`; undefined for a condition of another shape. */
export const conditionOf = (condition: string) => /^\s*value\(\)\s*(<=|>=|!=|<>|=|<|>)\s*(-?[\d.]+)\s*$/.exec(condition)
