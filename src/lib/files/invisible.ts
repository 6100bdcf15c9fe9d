/**
 * Characters a person cannot see in a cell (zero-width spaces and joiners, direction marks, the
 * word joiner, a BOM, a soft hyphen), which copying from a web page or a chat brings along.
 * Around a value they are dropped, as spaces are; inside one they are named, never sent.
 */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\u00ad]/
const AROUND =
  /^[\s\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\u00ad]+|[\s\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\u00ad]+$/g

/** `text` without spaces and invisible characters at its ends. */
export const trimmed = (text: string) => (INVISIBLE.test(text) ? text.replace(AROUND, '') : text.trim())

/** The first invisible character inside `text`, as U+200B; undefined when it has none. */
export function invisibleIn(text: string): string | undefined {
  const found = INVISIBLE.exec(text)?.[0]
  return found && `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}

/** `text` without any invisible character (a header, read as a person reads it). */
export const withoutInvisible = (text: string) => text.replace(new RegExp(INVISIBLE.source, 'g'), '')
