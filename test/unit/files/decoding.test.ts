import {Readable} from 'node:stream'
import {text as readText} from 'node:stream/consumers'

import {describe, expect, it} from 'vitest'

import {
  StrictText,
  checkNotUtf8,
  encodingOf,
  kindOf,
  likelyEncodings,
  looksBinary,
  notTextError,
  unusualLine,
} from '../../../src/lib/files/decoding.js'

/** Text in Windows-874 (TIS-620): Thai letters U+0E01.. at 0xA1.., ASCII as it is. */
const windows874 = (text: string) =>
  Buffer.from(
    [...text].map((c) => (c >= '\u0e01' && c <= '\u0e5b' ? c.charCodeAt(0) - 0x0e01 + 0xa1 : c.charCodeAt(0))),
  )

/** Decodes `chunks` through StrictText, as a file read in pieces of those sizes would be. */
const decode = (chunks: Buffer[], encoding = 'utf-8') =>
  readText(Readable.from(chunks).pipe(new StrictText('f.csv', {name: encoding, fromBom: false}, chunks[0]!)))

describe('strict decoding', () => {
  it("keeps every character as written: CR, CRLF and LF are the CSV reader's to tell apart", async () => {
    expect(await decode([Buffer.from('a\r\nb\r'), Buffer.from('\nc\rd\n"\r=1+1"\n')])).toBe(
      'a\r\nb\r\nc\rd\n"\r=1+1"\n',
    )
  })

  it('counts a CRLF cut between two chunks as one line end, and a lone CR as one', async () => {
    const latin1 = Buffer.from('caf\xe9\n', 'latin1')
    await expect(
      decode([Buffer.from('a\r'), Buffer.from('\nb\r'), Buffer.from('c\r\n'), latin1]),
    ).rejects.toMatchObject({
      message: 'f.csv line 4: the text is not valid UTF-8.',
    })
    await expect(decode([Buffer.from('a\r'), Buffer.from('\nb\rcaf\xe9', 'latin1')])).rejects.toMatchObject({
      message: 'f.csv line 3: the text is not valid UTF-8.',
    })
  })

  it('joins a Thai character cut between two chunks', async () => {
    const bytes = Buffer.from('ก,ข\n')
    expect(await decode([bytes.subarray(0, 1), bytes.subarray(1)])).toBe('ก,ข\n')
  })

  it('names the line of the first byte that is not valid, counting lines of earlier chunks', async () => {
    const latin1 = Buffer.from('caf\xe9\n', 'latin1')
    await expect(decode([Buffer.from('a\nb\r\n'), Buffer.from('c\n'), latin1])).rejects.toMatchObject({
      kind: 'usage',
      message: 'f.csv line 4: the text is not valid UTF-8.',
    })
  })

  it('names the line of a sequence cut short at the very end', async () => {
    await expect(decode([Buffer.from('a\n'), Buffer.from([0x62, 0x0a, 0xe0, 0xb8])])).rejects.toMatchObject({
      message: 'f.csv line 3: the text is not valid UTF-8.',
    })
  })

  it('reads Windows-874 (Thai) when told, and refuses a NUL as not text', async () => {
    expect(await decode([Buffer.from([0xa1, 0x2c, 0xa2, 0x0a])], 'windows-874')).toBe('ก,ข\n')
    await expect(decode([Buffer.from('a\0b\n')])).rejects.toMatchObject({message: expect.stringContaining('binary')})
  })
})

describe('what a file is', () => {
  it('a ZIP archive is a workbook; an OLE file (.xls, or a password) is refused with the way out', () => {
    expect(kindOf('f', Buffer.from('PK\x03\x04rest'))).toBe('xlsx')
    expect(kindOf('f', Buffer.from('mch_order_no\n'))).toBe('csv')
    expect(() => kindOf('f', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1]))).toThrow(/Excel 97-2003 workbook \(\.xls\)/)
  })

  it('the encoding: a BOM decides, else the one given (by any label TextDecoder knows), else UTF-8', () => {
    expect(encodingOf(Buffer.from([0xff, 0xfe, 0x61, 0]), 'windows-874')).toEqual({name: 'utf-16le', fromBom: true})
    expect(encodingOf(Buffer.from([0xfe, 0xff]), undefined)).toEqual({name: 'utf-16be', fromBom: true})
    expect(encodingOf(Buffer.from([0xef, 0xbb, 0xbf]), undefined)).toEqual({name: 'utf-8', fromBom: true})
    expect(encodingOf(Buffer.from('a'), 'TIS-620')).toEqual({name: 'windows-874', fromBom: false})
    expect(encodingOf(Buffer.from('a'), undefined)).toEqual({name: 'utf-8', fromBom: false})
    expect(() => encodingOf(Buffer.from('a'), 'klingon')).toThrow(/--encoding klingon is not an encoding gw knows/)
  })

  it('binary content is told from text in another encoding', () => {
    const utf8 = {name: 'utf-8', fromBom: false}
    expect(looksBinary(Buffer.from('ลูกค้า,ยอด\n', 'utf8'), utf8)).toBe(false)
    expect(looksBinary(Buffer.from([0xc5, 0xd9, 0xa1, 0xa4, 0xe9, 0xd2, 0x0a]), utf8)).toBe(false)
    expect(looksBinary(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02, 0x03, 0x61]), utf8)).toBe(true)
  })

  it('UTF-16 without its BOM gets the --encoding that reads it', () => {
    const error = notTextError('f.csv', Buffer.from('mch_order_no,amount\n', 'utf16le')) as Error & {advice: string}
    expect(error.advice).toBe('It looks like UTF-16LE text without its BOM: add --encoding utf-16le.')
  })
})

describe('an encoding told, not guessed silently', () => {
  const thai = 'เลขที่,ยอดเงิน\nINV-1,100\n'
  const given = (name: string) => encodingOf(new Uint8Array(), name)

  it('a UTF-8 file given another --encoding is refused naming the line and its text both ways', () => {
    const head = new TextEncoder().encode(`order,amount\nINV-1,100\nINV-2,50,สมชาย\n`)
    expect(() => checkNotUtf8('f.csv', head, given('windows-874'))).toThrow(
      /f\.csv line 3: the file is UTF-8, not windows-874 as --encoding says: as UTF-8 it reads "INV-2,50,สมชาย"; as windows-874, "INV-2,50,/,
    )
    // UTF-8 itself, an ASCII file and real Windows-874 text pass.
    expect(() => checkNotUtf8('f.csv', head, given('utf-8'))).not.toThrow()
    expect(() => checkNotUtf8('f.csv', new TextEncoder().encode('a,b\n1,2\n'), given('windows-874'))).not.toThrow()
    expect(() => checkNotUtf8('f.csv', windows874(thai), given('windows-874'))).not.toThrow()
  })

  it('text unusual for the encoding named is found with an example line', () => {
    expect(unusualLine(windows874(thai), given('windows-874'))).toBeUndefined()
    // Windows-1252 text (é, ü) read as Windows-874 decodes to Thai marks after no letter.
    const latin = Buffer.from('name,amount\nJosé Müller,100\n', 'latin1')
    expect(unusualLine(latin, given('windows-874'))).toEqual({line: 2, text: expect.stringMatching(/^Jos/)})
    // C1 controls in any single-byte encoding.
    expect(unusualLine(Buffer.from([0x61, 0x0a, 0x62, 0x81, 0x0a]), given('iso-8859-1'))).toEqual({
      line: 2,
      text: 'b\u0081',
    })
  })

  it('names the line in files whose lines end in CR (old Mac) or CRLF, as their records are numbered', () => {
    for (const eol of ['\r', '\r\n']) {
      const latin = Buffer.from(['name,amount', 'INV-1,100', 'José Müller,100', ''].join(eol), 'latin1')
      expect(unusualLine(latin, given('windows-874'))).toEqual({line: 3, text: expect.stringMatching(/^Jos.*,100$/)})
      const head = new TextEncoder().encode(['order,amount', 'INV-1,100', 'INV-2,50,สมชาย', ''].join(eol))
      expect(() => checkNotUtf8('f.csv', head, given('windows-874'))).toThrow(
        /f\.csv line 3: .* as UTF-8 it reads "INV-2,50,สมชาย"; as windows-874, "INV-2,50,[^"\r\n]*"\./,
      )
    }
  })
})

describe('text that is not UTF-8: the encodings it reads as', () => {
  const bytes = (text: string, encode: (c: string) => number[]) => Uint8Array.from([...text].flatMap(encode))
  it.each<[string, Uint8Array, string[]]>([
    // Windows-874: Thai letters from 0xA1.
    [
      'Thai (windows-874)',
      bytes('INV-1,คืนเงิน', (c) => [c >= '\u0e01' ? c.charCodeAt(0) - 0x0e01 + 0xa1 : c.charCodeAt(0)]),
      ['windows-874'],
    ],
    // Shift_JIS: 返品 is 95 D4 95 69, ￥ is 81 8F.
    [
      'Japanese (shift_jis)',
      Uint8Array.from([0x59, 0x2c, 0x95, 0xd4, 0x95, 0x69, 0x2c, 0x81, 0x8f, 0x31]),
      ['shift_jis'],
    ],
    // An old Mac's café: é is 0x8E (Windows reads Ž).
    ['an old Mac (macintosh)', Uint8Array.from([0x63, 0x61, 0x66, 0x8e, 0x2c, 0x31]), ['macintosh']],
    // Windows' café: é is 0xE9 (an old Mac reads È).
    ['Windows (windows-1252)', Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x2c, 0x31]), ['windows-1252', 'macintosh']],
  ])('%s', (_, head, expected) => {
    expect(likelyEncodings(head).map((e) => e.name)).toEqual(expected)
  })
})
