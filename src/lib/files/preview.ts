/**
 * The sheet as gw read it, for the person to check before anything is sent (`--dry-run
 * --preview FILE.html`): the rows and columns the sheet shows, each cell as its spreadsheet shows
 * it (render, then read), each amount gw would send marked with its currency, each row not sent
 * struck with why, and what the sheet hides listed apart. A page of its own: no script, no
 * resource from anywhere (its Content-Security-Policy allows its own inline style only), every
 * text of the file escaped. Written as the lines come: a sheet of a million rows is not held.
 */
import {createWriteStream} from 'node:fs'
import {once} from 'node:events'
import {rename, rm} from 'node:fs/promises'

import {columnLetters} from './workbook-rows.js'

/** Text as HTML shows it, never as markup: `<`, `&`, quotes and every control character escaped. */
const escapeHtml = (text: string) =>
  // eslint-disable-next-line no-control-regex -- escaping control characters is the point
  text.replace(/[&<>"'\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `&#${c.codePointAt(0)};`)

/** Rows the sheet hides listed at most: a sheet of thousands is said with a count. */
const LISTED = 1000

/** What gw does with a line, as the page shows it. */
export interface PreviewLine {
  line: number
  cells: readonly string[]
  /** sent: a refund gw would send (with `send`); not_sent: a row gw would not send (with `why`); other: a line that is no row (a title, a total, a note). */
  kind: 'sent' | 'not_sent' | 'other'
  /** What gw says of the line: "would refund 10.00 THB", "skipped: ...". */
  said: string
  /** The amount gw would send, in words (`10.00 THB`), and the column it is read from. */
  send?: {text: string; column?: number}
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem;color:#111}
h1{font-size:1.3rem}table{border-collapse:collapse;margin-top:1rem}th,td{border:1px solid #bbb;padding:.25rem .5rem;vertical-align:top;white-space:pre-wrap}
th{background:#eee;text-align:left}td.line{color:#666;text-align:right}tr.not_sent td.cell{text-decoration:line-through;color:#777}
tr.other td.cell{color:#555;font-style:italic}td.gw{font-weight:600}tr.not_sent td.gw{color:#a30000}tr.sent td.gw{color:#05620f}
mark{background:#fff2a8;padding:0 .2rem}ul.hidden li{margin:.2rem 0}`

export class PreviewPage {
  readonly #out
  readonly #visible: number[]
  readonly #partial: string

  private constructor(
    readonly path: string,
    partial: string,
    visible: number[],
  ) {
    this.#partial = partial
    this.#out = createWriteStream(partial, {mode: 0o600})
    this.#visible = visible
  }

  /** Rows the sheet hides, as they come: listed under the table. */
  readonly #hiddenRows: string[] = []
  #moreHidden = 0

  /** Opens the page for a sheet of `names` (the header), the columns it hides left out, and how it was read (`about`). */
  static async open(
    path: string,
    header: {names: readonly string[]; line?: number; hidden: ReadonlyMap<number, string>},
    about: {file: string; sheet?: string; sha256: string},
  ): Promise<PreviewPage> {
    const visible = header.names.flatMap((_, at) => (header.hidden.has(at) ? [] : [at]))
    const page = new PreviewPage(path, `${path}.partial`, visible)
    await once(page.#out, 'open')
    const title = `${about.file}${about.sheet ? `, sheet ${about.sheet}` : ''}`
    page.#write(
      `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
        `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
        `<meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<title>gw: ${escapeHtml(title)} as gw read it</title><style>${STYLE}</style></head><body>` +
        `<h1>${escapeHtml(title)}, as gw read it</h1>` +
        `<p>A dry run: nothing was sent. SHA-256 ${escapeHtml(about.sha256)}. Each cell is shown as its spreadsheet shows it; ` +
        `<mark>marked</mark> amounts are what gw would send; struck rows are not sent, and the last column says why. ` +
        `What the sheet hides is listed under the table.</p>`,
    )
    const heads = visible.map(
      (at) => `<th scope="col">${columnLetters(at)}: ${escapeHtml(header.names[at] ?? '')}</th>`,
    )
    page.#write(
      `<table><thead><tr><th scope="col">line</th>${heads.join('')}<th scope="col">gw</th></tr></thead><tbody>`,
    )
    return page
  }

  /** A row the sheet hides: not shown among the rows, listed under them. */
  hiddenRow(line: number, why: string): void {
    if (this.#hiddenRows.length < LISTED) this.#hiddenRows.push(`line ${line}: ${why}`)
    else this.#moreHidden++
  }

  #write(html: string) {
    this.#out.write(html)
  }

  /** A line of the sheet, with what gw does with it. */
  async write(line: PreviewLine): Promise<void> {
    const cells = this.#visible.map((at) => {
      const text = escapeHtml(line.cells[at] ?? '')
      const marked = line.send && line.send.column === at
      return `<td class="cell">${marked ? `<mark title="gw would send ${escapeHtml(line.send!.text)}">${text}</mark>` : text}</td>`
    })
    this.#write(
      `<tr class="${line.kind}"><td class="line">${line.line}</td>${cells.join('')}<td class="gw">${escapeHtml(line.said)}</td></tr>`,
    )
    if (this.#out.writableNeedDrain) await once(this.#out, 'drain')
  }

  /**
   * Ends the page with what the sheet hides (`hides`: its columns and formats, in words, then the
   * rows) and the comments on its cells gw read, each with what it did, and puts it in place.
   */
  async close(hides: readonly string[], comments: readonly string[] = []): Promise<void> {
    const all = [...hides, ...this.#hiddenRows, ...(this.#moreHidden ? [`and ${this.#moreHidden} more rows`] : [])]
    const list = (items: readonly string[]) =>
      `<ul class="hidden">${items.map((h) => `<li>${escapeHtml(h)}</li>`).join('')}</ul>`
    this.#out.end(
      `</tbody></table><h2>What the sheet hides</h2>${
        all.length ? list(all) : '<p>Nothing: every row and column gw reads is shown.</p>'
      }${comments.length ? `<h2>Comments on the sheet's cells, read</h2>${list(comments)}` : ''}</body></html>\n`,
    )
    await once(this.#out, 'finish')
    await rename(this.#partial, this.path)
  }

  async abort(): Promise<void> {
    this.#out.destroy()
    await rm(this.#partial, {force: true})
  }
}
