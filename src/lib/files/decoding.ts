/**
 * The bytes of a text file as text, strictly: bytes that are not valid in the file's
 * encoding stop the reading with a usage error naming their line (never a silent U+FFFD),
 * and a file with NUL bytes is not text at all.
 */
import {Transform, type TransformCallback} from 'node:stream'

import {usageError} from '../errors.js'

/** Where the first byte that cannot start or continue a UTF-8 sequence is, or -1. `complete`: no sequence may be cut at the end. */
export function invalidUtf8At(bytes: Uint8Array, complete: boolean): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!
    const [length, low, high] =
      b < 0x80
        ? [1, 0, 0]
        : b >= 0xc2 && b <= 0xdf
          ? [2, 0x80, 0xbf]
          : b === 0xe0
            ? [3, 0xa0, 0xbf]
            : b === 0xed
              ? [3, 0x80, 0x9f]
              : b >= 0xe1 && b <= 0xef
                ? [3, 0x80, 0xbf]
                : b === 0xf0
                  ? [4, 0x90, 0xbf]
                  : b >= 0xf1 && b <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : b === 0xf4
                      ? [4, 0x80, 0x8f]
                      : [0, 0, 0]
    if (length === 0) return i
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k]
      if (next === undefined) return complete ? i : -1
      if (k === 1 ? next < low || next > high : next < 0x80 || next > 0xbf) return i
    }
    i += length
  }
  return -1
}

/** Decodes a byte stream as UTF-8 (a leading BOM dropped); counts lines so an invalid byte can be named by its line. */
export class StrictUtf8 extends Transform {
  readonly #decoder = new TextDecoder('utf-8', {fatal: true})
  #line = 1
  /** The end of the previous chunk that may hold a sequence cut in two. */
  #tail = Buffer.alloc(0)

  constructor(readonly path: string) {
    super({readableObjectMode: false, decodeStrings: true})
    this.setEncoding('utf8')
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (chunk.includes(0)) return done(notText(this.path))
    try {
      this.#emit(this.#decoder.decode(chunk, {stream: true}), done)
      this.#tail = Buffer.concat([this.#tail, chunk]).subarray(-3)
    } catch {
      done(this.#invalid(Buffer.concat([this.#tail, chunk]), this.#tail.length, false))
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      this.#emit(this.#decoder.decode(), done)
    } catch {
      done(this.#invalid(this.#tail, 0, true))
    }
  }

  #emit(text: string, done: TransformCallback): void {
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) this.#line++
    done(null, text)
  }

  /** The error for the first invalid byte of `bytes`, whose first `known` bytes were already counted. */
  #invalid(bytes: Buffer, known: number, complete: boolean): Error {
    const at = Math.max(known, invalidUtf8At(bytes, complete))
    const before = bytes.subarray(known, at)
    const line = this.#line + before.reduce((n, b) => n + (b === 0x0a ? 1 : 0), 0)
    return usageError(
      `${this.path} line ${line}: the text is not valid UTF-8.`,
      'Save the file as CSV UTF-8, or say its encoding: --encoding windows-874 for Thai files from older Excel, for example.',
    )
  }
}

const notText = (path: string) =>
  usageError(
    `${path} is not a CSV file: it holds binary content.`,
    'Export the sheet as CSV (or give the .xlsx workbook itself).',
  )
