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

/** An untrusted value for a terminal: every control made visible, at most `max` characters (then "…"). */
export function shown(value: unknown, max = 120): string {
  const text = String(value ?? '')
  const characters = [...text]
  const cut = characters.length > max ? `${characters.slice(0, max).join('')}… (${characters.length - max} more)` : text
  return cut.replace(UNSAFE, visible)
}

/** `"value"`, shown safely: for untrusted values quoted inside a message. */
export const quoted = (value: unknown, max = 60) => `"${shown(value, max)}"`

/**
 * A whole message for a terminal (an error, a note): controls made visible but its own new
 * lines kept, no bound. The last line of defence; untrusted values are also `shown` where
 * they are put into a message.
 */
export function terminalSafe(message: string): string {
  return message.replace(UNSAFE, (c) => (c === '\n' ? c : visible(c)))
}

/** Characters XML 1.0 cannot hold (most C0 controls, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** Text for a workbook cell: what XML cannot hold made visible (a workbook with them does not open). */
export const xmlSafe = (text: string) => text.replace(NOT_XML, visible)
