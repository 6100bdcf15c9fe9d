/**
 * The desk's pages are written with one template tag, `html`, which escapes every value put into
 * it: text from the gateway, a file, the history or the address bar can never become markup, an
 * attribute or a script. Only another `html` fragment goes in as it is. Keys never reach a page:
 * every value is also passed through withoutKeys, as every message gw prints is.
 */
import {withoutKeys} from '../untrusted.js'

/** Markup gw built (by `html`, or an SVG the QR library drew): the only thing `html` puts into a page unescaped. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

const ESCAPES: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}

/**
 * Controls that have no place in a page's text (they could not be seen, or reorder what is read:
 * the same set the terminal's views make visible), shown by their code.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSEEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g

/** Text as a page shows it: escaped for HTML (text and quoted attributes alike), controls made visible, keys withheld. */
export function escaped(value: unknown): string {
  return withoutKeys(String(value ?? ''))
    .replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
    .replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

/** What a page's template takes: markup as it is, anything else escaped. */
export type Value = Html | string | number | boolean | undefined | null | readonly Value[]

function piece(value: Value): string {
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(piece).join('')
  if (value === undefined || value === null || value === false) return ''
  return escaped(value)
}

/** A fragment of a page: the template's own text as written, every value escaped (a fragment as it is). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0]!
  for (let i = 0; i < values.length; i++) text += piece(values[i]!) + strings[i + 1]!
  return new Html(text)
}

/** A value for a URL's query or path, inside an attribute (html escapes it again, as it must). */
export const urlPart = (value: string) => encodeURIComponent(value)
