/**
 * The comments on an .xlsx sheet's cells, as a person reads them on hover or in the comments
 * pane: Excel's threaded comments (`xl/threadedComments/*.xml`, each post of a thread) and the
 * legacy notes (`xl/commentsN.xml`, what openpyxl, LibreOffice and older Excel write). Excel
 * writes both for a threaded comment, the legacy one a copy for older versions: a cell with a
 * thread is read from its thread. Read before the rows, each kept on its cell.
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

/** The comments on the cells of the sheet at `part`, in the order of their cells' lines. */
export async function sheetComments(zip: ZipParts, part: string): Promise<CellComment[]> {
  const rels = await relationships(zip, part)
  const threaded = rels.byType.get('threadedComment')
  const legacy = rels.byType.get('comments')
  const threads = threaded ? await commentTexts(zip, threaded, 'threadedComment') : new Map<string, string[]>()
  const notes = legacy ? await commentTexts(zip, legacy, 'comment') : new Map<string, string[]>()
  for (const [ref, texts] of notes) if (!threads.has(ref)) threads.set(ref, texts)
  const comments: CellComment[] = []
  for (const [ref, texts] of threads) {
    const at = columnOf(ref)
    const line = Number(/\d+$/.exec(ref)?.[0] ?? NaN)
    if (at === undefined || !Number.isInteger(line)) continue
    for (const text of texts) comments.push({line, at, text})
  }
  return comments.sort((a, b) => a.line - b.line || a.at - b.at)
}
