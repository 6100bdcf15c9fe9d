/**
 * The parts of a ZIP package (an .xlsx or .ods workbook), read by random access through its
 * central directory (yauzl): any part in any order, found by its name however a producer wrote
 * it (`xl/worksheets/sheet1.xml` or openpyxl's absolute `/xl/worksheets/sheet1.xml`, any case,
 * as OPC part names are). XML parts are parsed as they stream (saxes), so a sheet of a million
 * rows never sits in memory, and a text node that grows past what any cell holds stops the
 * reading (a ZIP bomb) long before it exhausts memory.
 */
import type {Readable} from 'node:stream'
import {StringDecoder} from 'node:string_decoder'

import {SaxesParser, type SaxesTagPlain} from 'saxes'
import yauzl, {type Entry, type ZipFile} from 'yauzl'

import {MAX_FIELD} from './limits.js'

/** More entries than any workbook holds: not a workbook. */
const MAX_ENTRIES = 10_000

/** XML fed without a tag closing: a text node past what any cell holds (a ZIP bomb). */
const MAX_OPEN_TEXT = 16 * MAX_FIELD

/** A text node or a part that expands beyond reason. */
export class PartTooLarge extends Error {}

export interface ZipParts {
  /** Whether the package has the part. */
  has(name: string): boolean
  /** The part's XML events, streamed: `open` on each start tag, `close` on each end tag, `text` for text. */
  parse(name: string, handlers: XmlHandlers): AsyncGenerator<void>
  /** A small part's whole text (the mimetype of an .ods). */
  text(name: string): Promise<string>
  /** A part's bytes as they stream, unparsed. */
  chunks(name: string): AsyncGenerator<Buffer>
  /** The size a part says it unpacks to (yauzl holds it to that size). */
  size(name: string): number
  close(): void
}

export interface XmlHandlers {
  open?(tag: SaxesTagPlain): void
  close?(name: string): void
  text?(text: string): void
}

/** A part name as OPC compares them: no leading slash, any case. */
const partKey = (name: string) => name.replace(/^\/+/, '').toLowerCase()

export async function openZip(path: string): Promise<ZipParts> {
  const zip = await new Promise<ZipFile>((resolve, reject) =>
    yauzl.open(path, {lazyEntries: true, autoClose: false, validateEntrySizes: true}, (error, file) =>
      error ? reject(error) : resolve(file),
    ),
  )
  const entries = new Map<string, Entry>()
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: Entry) => {
        if (entries.size >= MAX_ENTRIES) return reject(new PartTooLarge('too many entries'))
        if (!entry.fileName.endsWith('/')) entries.set(partKey(entry.fileName), entry)
        zip.readEntry()
      })
      zip.once('end', resolve)
      zip.once('error', reject)
      zip.readEntry()
    })
  } catch (error) {
    zip.close()
    throw error
  }
  const stream = (name: string) => {
    const entry = entries.get(partKey(name))
    if (!entry) throw new Error(`no part ${name}`)
    return new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (error, readable) => (error ? reject(error) : resolve(readable))),
    )
  }
  return {
    has: (name) => entries.has(partKey(name)),
    async *parse(name, handlers) {
      const readable = await stream(name)
      const parser = new SaxesParser({xmlns: false})
      const decoder = new StringDecoder('utf8')
      let open = 0
      if (handlers.open) parser.on('opentag', handlers.open)
      parser.on('closetag', (tag) => {
        open = 0
        handlers.close?.(tag.name)
      })
      if (handlers.text) parser.on('text', handlers.text)
      try {
        for await (const chunk of readable as AsyncIterable<Buffer>) {
          open += chunk.length
          if (open > MAX_OPEN_TEXT) throw new PartTooLarge(name)
          parser.write(decoder.write(chunk))
          yield
        }
        parser.write(decoder.end()).close()
        yield
      } finally {
        readable.destroy()
      }
    },
    async text(name) {
      const chunks: Buffer[] = []
      for await (const chunk of (await stream(name)) as AsyncIterable<Buffer>) chunks.push(chunk)
      return Buffer.concat(chunks).toString('utf8')
    },
    async *chunks(name) {
      const readable = await stream(name)
      try {
        yield* readable as AsyncIterable<Buffer>
      } finally {
        readable.destroy()
      }
    },
    size: (name) => entries.get(partKey(name))?.uncompressedSize ?? 0,
    close: () => zip.close(),
  }
}
