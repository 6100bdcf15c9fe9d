/**
 * The comments on an .ods sheet's cells (`office:annotation`, inside the cell they are on), read
 * as their tags come: their text, never their cell's, and without who wrote them and when.
 */
import type {SaxesTagPlain} from 'saxes'

import {MAX_FIELD} from './limits.js'
import {attr} from './workbook-rows.js'

/** A comment being read: its text, its paragraphs so far, and the depth of its author and date (not its text). */
export interface Annotation {
  text: string
  paragraphs: number
  aside: number
}

/** What an annotation holds beside its text: who wrote it, and when. */
export const ANNOTATION_ASIDE = new Set(['dc:creator', 'dc:date', 'meta:date-string'])

/** A comment's text as its tags come (`office:annotation`'s paragraphs, spaces, line breaks), its author and date left out. */
export function annotate(annotation: Annotation, tag: SaxesTagPlain): void {
  if (ANNOTATION_ASIDE.has(tag.name)) annotation.aside++
  else if (annotation.aside) return
  else if (tag.name === 'text:p' && annotation.paragraphs++) annotation.text += '\n'
  else if (tag.name === 'text:s') annotation.text += ' '.repeat(Math.min(Number(attr(tag, 'text:c') ?? 1), MAX_FIELD))
  else if (tag.name === 'text:line-break') annotation.text += '\n'
}
