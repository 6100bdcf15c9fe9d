/**
 * Text gw did not write (notification fields, gateway messages, CSV values, file names) shown
 * on a terminal: control characters and escape sequences are made visible instead of being
 * obeyed (a forged field cannot erase a line or paint "verified" green), and length is bounded.
 */

/** C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g

const visible = (c: string) => {
  const code = c.charCodeAt(0)
  if (c === '\n') return '\\n'
  if (c === '\r') return '\\r'
  if (c === '\t') return '\\t'
  return code <= 0xff
    ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`
    : `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`
}

/** A PEM private key, to its END line or as far as its base64 goes when cut short. */
const PEM_PRIVATE_KEY =
  /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\sA-Za-z0-9+/=]|\\n|\\r)*(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?/g
/**
 * A run of base64 longer than any identifier of the API (32 characters at most) that reads as
 * base64 of random bytes (a line of a key without its armour, or a piece of one): a tenth or
 * more in each case (random base64 has four tenths), and capitals followed by few small letters
 * (under one on average in random base64; three or more in the words of a path or a CamelCase
 * name, "Documents"). Hex (signatures) has one case. Measured on random 64-character lines: about
 * one in ten million is missed; the first rule (a fifth of each case, and a digit) missed one in
 * three thousand.
 */
const BASE64_RUN = /[A-Za-z0-9+/]{40,}={0,2}/g
const isKeyLike = (run: string) => {
  const words = run.match(/[A-Z][a-z]*/g) ?? []
  const small = words.reduce((sum, word) => sum + Math.min(word.length - 1, 6), 0)
  return (
    words.length >= run.length / 10 && (run.match(/[a-z]/g)?.length ?? 0) >= run.length / 10 && small < 3 * words.length
  )
}

/**
 * Text with any private key in it withheld: a key pasted where a flag or a command was
 * mistyped reaches error messages, which must never show it. Applied by `shown` and
 * `terminalSafe`, so by every message gw prints, and to errors in --json.
 */
export const withoutKeys = (text: string) =>
  text
    .replace(PEM_PRIVATE_KEY, '[private key withheld]')
    .replace(BASE64_RUN, (run) => (isKeyLike(run) ? '[key material withheld]' : run))

/** An untrusted value for a terminal: every control made visible, at most `max` characters (then "…"). */
export function shown(value: unknown, max = 120): string {
  const text = withoutKeys(String(value ?? ''))
  const characters = [...text]
  if (characters.length <= max) return text.replace(UNSAFE, visible)
  // Cut at the last space in reach, so a word is never split ("pro… (17 more)"); a long word alone is cut.
  const space = characters.lastIndexOf(' ', max)
  const keep = space > max * 0.6 ? space : max
  const cut = `${characters.slice(0, keep).join('').trimEnd()}… (${characters.length - keep} more)`
  return cut.replace(UNSAFE, visible)
}

/** A file name as the user gave it (it may hold anything, escape sequences too), shown whole and safely. */
export const fileShown = (path: string) => shown(path, 1000)

/** `"value"`, shown safely: for untrusted values quoted inside a message. */
export const quoted = (value: unknown, max = 60) => `"${shown(value, max)}"`

/**
 * gw's own styles (render/style: bold, dim, red, green, yellow, cyan, and their ends), which a
 * view may carry: colours only, never a cursor move, an erase or a title.
 */
// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const OWN_STYLE = /(\u001B\[(?:1|2|22|31|32|33|36|39)m)/

/** Controls made visible, but the new line and the tab, which move no cursor but to a line's or a column's start. */
const controlsVisible = (text: string) => text.replace(UNSAFE, (c) => (c === '\n' || c === '\t' ? c : visible(c)))

/**
 * A whole message for a terminal (an error, a note): controls made visible but its own new
 * lines and tabs kept (a piped list's lines are tab-separated), no bound. The last line of defence; untrusted values are also `shown` where
 * they are put into a message.
 */
export function terminalSafe(message: string): string {
  return controlsVisible(withoutKeys(message))
}

/**
 * A view's text for a terminal (a table, fields): as terminalSafe, but gw's own colours kept.
 * A view is made of values each `shown` (table and fields show every cell), so an untrusted
 * value's escapes never arrive here whole; a message, which may quote a file name as typed,
 * goes through terminalSafe.
 */
export function viewSafe(view: string): string {
  return withoutKeys(view)
    .split(OWN_STYLE)
    .map((part, i) => (i % 2 === 1 ? part : controlsVisible(part)))
    .join('')
}

/**
 * Text a spreadsheet may run as a formula when a CSV is opened: text starting with =, +, -, @, a
 * tab or a carriage return (OWASP's rule for CSV injection), a line feed, spaces before one of
 * = + - @ (importers that trim leading whitespace, or a CR read as a new line, leave the formula
 * first), or their full-width forms (＝＋－＠, which Apple Numbers reads as them).
 */
export const RUNS_AS_FORMULA = /^(?:[\t\r\n]|\s*[=+\-@\uff1d\uff0b\uff0d\uff20])/

/** Characters XML 1.0 cannot hold (most C0 controls, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** Text for a workbook cell: what XML cannot hold made visible (a workbook with them does not open). */
export const xmlSafe = (text: string) => text.replace(NOT_XML, visible)
