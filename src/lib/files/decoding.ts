/**
 * What a file is, from its first bytes (a workbook, an old binary workbook, text), and the
 * bytes of a text file as text, strictly: in its encoding (a BOM decides; else the one given;
 * else UTF-8), every character as written (a CR inside a quoted field is the user's data: line
 * ends are the CSV reader's to tell apart), with lines counted (CRLF, CR or LF each end one),
 * so bytes that are not valid in the encoding stop the reading with a usage error naming their
 * line (never a silent U+FFFD), and a file holding NUL characters is refused as not text.
 */
import {Transform, type TransformCallback} from 'node:stream'
import {TextDecoder} from 'node:util'

import {usageError} from '../errors.js'
import {quoted} from '../untrusted.js'

export type FileKind = 'csv' | 'xlsx'

const startsWith = (head: Uint8Array, ...bytes: number[]) => bytes.every((b, i) => head[i] === b)

/** The kind of a file from its first bytes: a ZIP archive is taken as a workbook, anything else as text. */
export function kindOf(path: string, head: Uint8Array): FileKind {
  if (startsWith(head, 0x50, 0x4b, 0x03, 0x04)) return 'xlsx'
  if (startsWith(head, 0x25, 0x50, 0x44, 0x46, 0x2d))
    throw usageError(`${path} is not a CSV or .xlsx file: it is a PDF.`, 'Export the sheet as CSV UTF-8 or as .xlsx.')
  if (startsWith(head, 0xd0, 0xcf, 0x11, 0xe0)) {
    throw usageError(
      `${path} is not a CSV or .xlsx file: it is an Excel 97-2003 workbook (.xls) or a password-protected one.`,
      'Open it in Excel and save it as .xlsx (without a password) or as CSV UTF-8.',
    )
  }
  const odd = textFileKind(head)
  if (odd) throw usageError(`${path} is not a CSV or .xlsx file: it is ${odd.what}.`, odd.wayOut)
  return 'csv'
}

/**
 * Text files people give for a spreadsheet that are not CSV, told by their first characters:
 * LibreOffice's flat XML (.fods), Excel 2003's XML Spreadsheet, and an HTML table saved with a
 * spreadsheet's name (what web reports and ERP exports call .xls).
 */
function textFileKind(head: Uint8Array): {what: string; wayOut: string} | undefined {
  const text = new TextDecoder('utf-8')
    .decode(head.subarray(0, 4096))
    .replace(/^\ufeff/, '')
    .trimStart()
    .toLowerCase()
  if (text.startsWith('<?xml') || text.startsWith('<office:document') || text.startsWith('<workbook')) {
    if (text.includes('application/vnd.oasis.opendocument.spreadsheet'))
      return {
        what: 'a flat OpenDocument spreadsheet (.fods)',
        wayOut: 'Open it in LibreOffice and save it as ODF Spreadsheet (.ods), or export the sheet as CSV UTF-8.',
      }
    if (text.includes('progid="excel.sheet"') || text.includes('urn:schemas-microsoft-com:office:spreadsheet'))
      return {
        what: "Excel 2003's XML Spreadsheet",
        wayOut: 'Open it in Excel and save it as Excel Workbook (.xlsx), or export the sheet as CSV UTF-8.',
      }
  }
  if (/^(?:<!doctype html|<html|<table|<meta|<head)\b/.test(text))
    return {
      what: 'an HTML page (a table saved with a spreadsheet name, as web reports export .xls)',
      wayOut: 'Open it in Excel or LibreOffice and save it as .xlsx, or export the sheet as CSV UTF-8.',
    }
  return undefined
}

/** A text file's encoding: its BOM when it has one, else `given`, else UTF-8. */
export interface TextEncoding {
  /** The WHATWG name, as TextDecoder calls it. */
  name: string
  /** Told by the file's BOM (else by --encoding, or the default). */
  fromBom: boolean
}

export function encodingOf(head: Uint8Array, given: string | undefined): TextEncoding {
  if (startsWith(head, 0xef, 0xbb, 0xbf)) return {name: 'utf-8', fromBom: true}
  if (startsWith(head, 0xff, 0xfe)) return {name: 'utf-16le', fromBom: true}
  if (startsWith(head, 0xfe, 0xff)) return {name: 'utf-16be', fromBom: true}
  if (!given) return {name: 'utf-8', fromBom: false}
  try {
    return {name: new TextDecoder(given).encoding, fromBom: false}
  } catch {
    throw usageError(
      `--encoding ${given} is not an encoding gw knows.`,
      'Give a name such as utf-8, utf-16le, windows-874 (Thai, also called TIS-620) or windows-1252.',
    )
  }
}

/** Text with many NUL bytes on one side of each pair is UTF-16 without its BOM. */
function looksLikeUtf16(head: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  let even = 0
  let odd = 0
  for (let i = 0; i < head.length; i++) {
    if (head[i] !== 0) continue
    if (i % 2) odd++
    else even++
  }
  const pairs = head.length / 2
  if (pairs < 8) return undefined
  if (odd > pairs / 3 && even < pairs / 20) return 'utf-16le'
  if (even > pairs / 3 && odd < pairs / 20) return 'utf-16be'
  return undefined
}

/** The error for a file that is not text. `head`: its first bytes, to tell UTF-16 without a BOM. */
export function notTextError(path: string, head: Uint8Array): Error {
  const utf16 = looksLikeUtf16(head)
  return usageError(
    `${path} is not a CSV or .xlsx file: it holds binary content.`,
    utf16
      ? `It looks like ${utf16.toUpperCase()} text without its BOM: add --encoding ${utf16}.`
      : 'Export the sheet as CSV UTF-8, or give the .xlsx workbook itself.',
  )
}

/**
 * Content that is not text: controls other than tab and line ends, which text files do not
 * hold. (Bytes that do not decode are counted apart: they are more likely text in another
 * encoding, which the strict decoding names with its line.)
 */
export function looksBinary(head: Uint8Array, encoding: TextEncoding): boolean {
  const text = new TextDecoder(encoding.name).decode(head, {stream: true})
  // eslint-disable-next-line no-control-regex -- counting control characters is the point
  const controls = text.match(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g)?.length ?? 0
  return text.length > 0 && controls / text.length > 0.05
}

const LINE_BREAK = /\r\n?|\n/g

/** The line ends in `text` (CRLF, CR or LF each one); `afterCR`: the text before it ended in a CR, so a first LF ends no line. */
function lineEnds(text: string, afterCR: boolean): number {
  const ends = text.match(LINE_BREAK)?.length ?? 0
  return afterCR && text.startsWith('\n') ? ends - 1 : ends
}

/** Decodes a byte stream strictly in `encoding` into the same text; names the line of the first invalid byte. */
export class StrictText extends Transform {
  readonly #strict: TextDecoder
  /** Fed the same bytes: where the strict decoder fails, its U+FFFD shows the line. */
  readonly #lenient: TextDecoder
  #line = 1
  /** The text so far ended in a CR: an LF starting the next piece ends the same line. */
  #afterCR = false

  constructor(
    readonly path: string,
    readonly encoding: TextEncoding,
    /** The file's first bytes, to word the error when it is not text. */
    readonly head: Uint8Array,
  ) {
    super({decodeStrings: true})
    this.#strict = new TextDecoder(encoding.name, {fatal: true})
    this.#lenient = new TextDecoder(encoding.name)
    this.setEncoding('utf8')
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const lenient = this.#lenient.decode(chunk, {stream: true})
    let text
    try {
      text = this.#strict.decode(chunk, {stream: true})
    } catch {
      return done(this.#invalid(lenient))
    }
    this.#emit(text, done)
  }

  override _flush(done: TransformCallback): void {
    const lenient = this.#lenient.decode()
    let text
    try {
      text = this.#strict.decode()
    } catch {
      return done(this.#invalid(lenient))
    }
    this.#emit(text, done)
  }

  #emit(text: string, done: TransformCallback): void {
    if (text.includes('\0')) return done(notTextError(this.path, this.head))
    if (!text) return done()
    this.#line += lineEnds(text, this.#afterCR)
    this.#afterCR = text.endsWith('\r')
    done(null, text)
  }

  /** The error for the first byte the strict decoder refused, found as the lenient one's first U+FFFD. */
  #invalid(lenient: string): Error {
    const line = this.#line + lineEnds(lenient.slice(0, Math.max(0, lenient.indexOf('\ufffd'))), this.#afterCR)
    const {name, fromBom} = this.encoding
    const said = fromBom ? ' (as its BOM says)' : name === 'utf-8' ? '' : ' (as --encoding says)'
    const fits = likelyEncodings(this.head).filter((e) => e.name !== name)
    const suggested = fits.length
      ? `Its text reads as ${fits.map((e) => `${e.name} (${e.what})`).join(' or ')}: add --encoding ${fits[0]!.name}, or save the file as CSV UTF-8.`
      : undefined
    return usageError(
      `${this.path} line ${line}: the text is not valid ${name.toUpperCase()}${said}.`,
      suggested ??
        (name === 'utf-8'
          ? 'Save the file as CSV UTF-8, or say its encoding: --encoding windows-874 for Thai files from older Excel, for example.'
          : 'Say the encoding the file was saved in with --encoding (utf-8, utf-16le, windows-874, ...).'),
    )
  }
}

/**
 * The legacy encodings finance's files come in: a script's (its letters, which make words of
 * two or more), or a Latin one (accented letters inside ASCII words, and typographic marks).
 */
const LEGACY_ENCODINGS: readonly {name: string; what: string; script?: RegExp}[] = [
  {name: 'windows-874', what: 'Thai', script: /[\u0e01-\u0e5b]/},
  // Not half-width katakana: Thai bytes read as them in Shift_JIS.
  {name: 'shift_jis', what: 'Japanese', script: /[\u3000-\u30ff\u4e00-\u9fff\uff01-\uff5e\uffe5]/},
  {name: 'windows-1256', what: 'Arabic', script: /[\u0600-\u06ff]/},
  {name: 'windows-1252', what: 'Western European, Windows'},
  {name: 'macintosh', what: 'Western European, an old Mac'},
]

/** A script's signs that stand alone (a full-width ￥ before digits, ฿, CJK punctuation). */
const ALONE = /[\u0e3f\u3000-\u303f\uff01-\uff5e\uffe5]/

/** Latin-1's letters and the marks Western text has: whole; other Latin letters (Ž Œ) half, as an old Mac's é reads Ž in Windows'. */
const latinWeight = (c: string) =>
  /[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u20ac\u2018-\u201e\u2013\u2014\u2026\u00a3\u00b0]/.test(c)
    ? 1
    : /\p{Script=Latin}/u.test(c)
      ? 0.5
      : 0

/**
 * How much of `text`'s non-ASCII reads as `script`'s (letters in words of two or more; in Thai,
 * no vowel or tone mark after no letter) or, without one, as Latin text (an accented letter
 * between ASCII letters; a run of them is what another encoding's bytes look like).
 */
function plausibility(text: string, script: RegExp | undefined): number {
  const chars = [...text]
  let beyond = 0
  let weight = 0
  chars.forEach((c, i) => {
    if (c <= '\u007f') return
    beyond++
    const [before = '', after = ''] = [chars[i - 1], chars[i + 1]]
    if (script) weight += script.test(c) && (ALONE.test(c) || script.test(before) || script.test(after)) ? 1 : 0
    else weight += latinWeight(c) * (before > '\u007f' || after > '\u007f' ? 0.25 : 1)
  })
  if (script && STRAY_THAI_MARK.test(text) && script.test('\u0e01')) return 0
  return beyond ? weight / beyond : 0
}

/**
 * The encodings `head` (a file's first bytes, not UTF-8) reads as text in: every byte decodes,
 * and its text past ASCII is that encoding's; best first.
 */
export function likelyEncodings(head: Uint8Array): {name: string; what: string}[] {
  const scored = LEGACY_ENCODINGS.flatMap(({name, what, script}) => {
    let text
    try {
      text = new TextDecoder(name, {fatal: true}).decode(head, {stream: true})
    } catch {
      return []
    }
    const score = plausibility(text, script)
    return score >= 0.75 ? [{name, what, score}] : []
  })
  return scored.sort((a, b) => b.score - a.score).map(({name, what}) => ({name, what}))
}

/** The line (1-based) and text of the line of `text` holding `index`; lines end as CSV records do: CRLF, CR or LF. */
function lineAt(text: string, index: number): {line: number; text: string} {
  const before = text.slice(0, index)
  const line = (before.match(/\r\n|\r|\n/g)?.length ?? 0) + 1
  const start = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) + 1
  const end = text.slice(start).search(/[\r\n]/)
  return {line, text: text.slice(start, end === -1 ? undefined : start + end)}
}

/**
 * A file given another --encoding that is in fact UTF-8 (valid UTF-8 with non-ASCII text, which
 * legacy text almost never is): a usage error naming the line and its text read both ways.
 * Judged from the file's first bytes.
 */
export function checkNotUtf8(path: string, head: Uint8Array, encoding: TextEncoding): void {
  if (encoding.fromBom || encoding.name === 'utf-8' || encoding.name.startsWith('utf-16')) return
  const first = head.findIndex((b) => b >= 0x80)
  if (first === -1) return
  let utf8
  try {
    utf8 = new TextDecoder('utf-8', {fatal: true}).decode(head, {stream: true})
  } catch {
    return
  }
  const asGiven = new TextDecoder(encoding.name).decode(head, {stream: true})
  const at = lineAt(utf8, utf8.search(/[\u0080-\uffff]/))
  const given = lineAt(asGiven, asGiven.search(/[\u0080-\uffff]/))
  throw usageError(
    `${path} line ${at.line}: the file is UTF-8, not ${encoding.name} as --encoding says: as UTF-8 it reads ${quoted(at.text, 80)}; as ${encoding.name}, ${quoted(given.text, 80)}.`,
    'Leave --encoding out (UTF-8 is the default), or give the encoding the file was saved in.',
  )
}

/** Thai marks that only follow a Thai letter or another mark. */
const STRAY_THAI_MARK = /(?:^|[^\u0e01-\u0e4e])[\u0e31\u0e34-\u0e3a\u0e47-\u0e4e]/m
/** C1 controls: no text holds them; bytes of another encoding decode to them. */
const C1_CONTROL = /[\u0080-\u009f]/

/**
 * The first line whose text, decoded in the encoding given, holds characters that text in that
 * encoding does not (C1 controls; in Thai encodings, a vowel or tone mark after no letter):
 * likely another encoding. Judged from the file's first bytes.
 */
export function unusualLine(head: Uint8Array, encoding: TextEncoding): {line: number; text: string} | undefined {
  if (encoding.fromBom || encoding.name === 'utf-8') return undefined
  const text = new TextDecoder(encoding.name).decode(head, {stream: true})
  const thai = ['windows-874', 'tis-620', 'iso-8859-11'].includes(encoding.name)
  const found = Math.max(
    -1,
    [C1_CONTROL, ...(thai ? [STRAY_THAI_MARK] : [])].reduce((at, re) => {
      const i = text.search(re)
      return i !== -1 && (at === -1 || i < at) ? i : at
    }, -1),
  )
  if (found === -1) return undefined
  const line = lineAt(text, text[found] === '\n' || text[found] === '\r' ? found + 1 : found)
  return {line: line.line, text: line.text}
}
