/**
 * The comments on an .xlsx sheet's cells, as a person reads them on hover or in the comments
 * pane: Excel's threaded comments (`xl/threadedComments/*.xml`, each post of a thread) and the
 * legacy notes (`xl/commentsN.xml`, what openpyxl, LibreOffice and older Excel write). Excel
 * writes both for a threaded comment, the legacy one a copy for older versions: that copy is left
 * out, but a legacy note that says other than its thread is read too (LibreOffice shows the note,
 * Excel the thread: either one's words count). Read before the rows, each kept on its cell.
 */
import {relationships} from './xlsx-styles.js'
import {fromWorkbookText} from './workbook-cells.js'
import {attr, columnOf, local, parseAll} from './workbook-rows.js'
import {PartTooLarge, type ZipParts} from './zip-parts.js'

/** A comment on a cell: its row (the sheet's line), its column (0-based) and its text. */
export interface CellComment {
  line: number
  at: number
  text: string
}

/** Comments a part may unpack to: a sheet's notes are sentences, never megabytes. */
const MAX_COMMENTS_BYTES = 32 * 1024 * 1024

/** The texts of a comments part (`comment` or `threadedComment` elements, each a `ref` and a `text`), by cell reference. */
async function commentTexts(zip: ZipParts, part: string, element: string): Promise<Map<string, string[]>> {
  const byCell = new Map<string, string[]>()
  if (!zip.has(part)) return byCell
  if (zip.size(part) > MAX_COMMENTS_BYTES) throw new PartTooLarge(part)
  let ref: string | undefined
  let text = ''
  let inText = 0
  let phonetic = 0
  await parseAll(zip, part, {
    open(tag) {
      const name = local(tag)
      if (name === element) [ref, text] = [attr(tag, 'ref'), '']
      else if (name === 'rPh') phonetic++
      else if (name === 'text' && ref !== undefined) inText++
    },
    close(tag) {
      const name = local(tag)
      if (name === 'rPh') phonetic--
      else if (name === 'text' && inText) inText--
      else if (name === element && ref !== undefined) {
        const said = fromWorkbookText(text).trim()
        if (said) byCell.set(ref.toUpperCase(), [...(byCell.get(ref.toUpperCase()) ?? []), said])
        ref = undefined
      }
    },
    text(chunk) {
      if (inText && !phonetic) text += chunk
    },
  })
  return byCell
}

/** The placeholder Excel writes as a thread's legacy note, before its posts (`Comment:`, then each `Reply:`). */
const THREAD_COPY =
  '[Threaded comment] Your version of Excel allows you to read this threaded comment; however, any edits to it ' +
  'will get removed if the file is opened in a newer version of Excel. Learn more: ' +
  'https://go.microsoft.com/fwlink/?linkid=870924'

const spaced = (text: string) => text.replace(/\s+/g, ' ').trim()

/** Whether a legacy note is Excel's copy of a cell's thread, word for word (spacing aside). */
const copyOf = (note: string, posts: readonly string[]) =>
  spaced(note) === spaced([THREAD_COPY, `Comment: ${posts[0]}`, ...posts.slice(1).map((p) => `Reply: ${p}`)].join(' '))

/** The comments on the cells of the sheet at `part`, in the order of their cells' lines. */
export async function sheetComments(zip: ZipParts, part: string): Promise<CellComment[]> {
  const rels = await relationships(zip, part)
  const threaded = rels.byType.get('threadedComment')
  const legacy = rels.byType.get('comments')
  const threads = threaded ? await commentTexts(zip, threaded, 'threadedComment') : new Map<string, string[]>()
  const notes = legacy ? await commentTexts(zip, legacy, 'comment') : new Map<string, string[]>()
  for (const [ref, texts] of notes) {
    const posts = threads.get(ref) ?? []
    threads.set(ref, [...posts, ...texts.filter((note) => !copyOf(note, posts))])
  }
  const comments: CellComment[] = []
  for (const [ref, texts] of threads) {
    const at = columnOf(ref)
    const line = Number(/\d+$/.exec(ref)?.[0] ?? NaN)
    if (at === undefined || !Number.isInteger(line)) continue
    for (const text of texts) comments.push({line, at, text})
  }
  return comments.sort((a, b) => a.line - b.line || a.at - b.at)
}
