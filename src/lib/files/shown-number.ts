/**
 * A number cell as its spreadsheet shows it: rendered by numfmt, an implementation of the whole
 * ECMA-376 number-format grammar (sections and conditions, colours, scaling commas, literal text,
 * `[$SYM-LCID]` currencies, fractions, exponents, percentages, `;;;`), chosen by measuring it and
 * SSF against LibreOffice's and Gnumeric's shown text (bench/number-formats.mjs). gw reads every
 * cell it uses from this text (render, then read), never from a subset of the grammar of its own.
 *
 * Two things a person sees depend on their machine, not on the file, and gw fixes them so:
 * separators are the format code's own (`,` groups, `.` marks decimals: the locale of a
 * `[$€-407]` does not regroup them, as it does not in Excel or LibreOffice, where the machine's
 * locale does); and General shows a whole number in full, where Excel shows as many digits as the
 * column is wide (an order number stored as a number is an identifier, exact below 10^15).
 */
import * as numfmt from 'numfmt'

/** A cell style's number format: its code (to render with), and whether it shows a date or a percentage. */
export interface NumberFormat {
  code: string
  kind?: 'date' | 'percent'
  /** A built-in currency format whose symbol and shape the machine showing it chooses: gw cannot render it. */
  localeCurrency?: number
  /** Why gw cannot render this format (a style of another grammar that does not map onto this one). */
  unrenderable?: string
}

/**
 * The number format of a style: its own code (`formatCode`), else the built-in id's (ECMA-376
 * 18.8.30, as numfmt resolves them). Some built-in ids are left by the standard to the machine's
 * locale: the currency ones (5 to 8, 42, 44) show `$` on one machine and `฿` on another.
 */
export function numberFormat(id: number, code: string | undefined): NumberFormat {
  const known = code ?? numfmt.getFormatFromId(id, 'en-US')
  const kind = numfmt.isDateFormat(known) ? 'date' : numfmt.isPercentFormat(known) ? 'percent' : undefined
  const localeCurrency =
    code === undefined &&
    !kind &&
    known !== numfmt.getFormatFromId(id, 'th-TH') &&
    /[$฿]/.test(known + numfmt.getFormatFromId(id, 'th-TH'))
  return {code: known, ...(kind ? {kind} : {}), ...(localeCurrency ? {localeCurrency: id} : {})}
}

/** A format code without the locales of its `[$SYM-LCID]` parts (their symbols kept): separators are the code's. */
function withoutLocales(code: string): string {
  if (!code.includes('[$')) return code
  let tokens
  try {
    tokens = numfmt.tokenize(code)
  } catch {
    return code
  }
  return tokens
    .map((token) => {
      if (token.type !== numfmt.TOKEN_LOCALE) return token.raw
      const symbol = String(token.value).split('-')[0]
      return symbol ? `[$${symbol}]` : ''
    })
    .join('')
}

const prepared = new Map<string, string>()

/** An invalid code shows numfmt's `######`, as Excel shows an error: no amount, and refused as one. */
const INVALID = '######'

/** `code` as gw renders it (its locales left out), kept for the next cell of the style. */
function patternOf(code: string): string {
  let pattern = prepared.get(code)
  if (pattern === undefined) {
    pattern = withoutLocales(code)
    if (prepared.size < 10_000) prepared.set(code, pattern)
  }
  return pattern
}

const RENDERING = {locale: 'en-US', throws: false, invalid: INVALID, nbsp: false} as const

/** The text `value` shows under `code`: numfmt's rendering, with the two choices above. */
export function showNumber(value: number, code = 'General'): string {
  const pattern = patternOf(code)
  if (/^(general|@)?$/i.test(pattern.trim()) && Number.isSafeInteger(value)) return String(value)
  return numfmt.format(pattern, value, RENDERING)
}

/**
 * The text a text cell shows under `code`: its format's text section (`;;;` shows nothing,
 * `0.00;-0.00;0.00;"see note"` shows the words, `"INV-"@` adds to it); a format of no text
 * section (neither a fourth section nor `@`) shows the text as it is.
 */
export function showText(text: string, code = 'General'): string {
  if (!code.includes(';') && !code.includes('@')) return text
  const shown = numfmt.format(patternOf(code), text, RENDERING)
  // An accounting format's text section (`_-@_-`) only pads the text: it is the text as held.
  return shown.trim() === text.trim() ? text : shown
}
