import {describe, expect, it} from 'vitest'

import {invalidUtf8At} from '../../src/lib/files/decoding.js'

const bytes = (...values: number[]) => Uint8Array.from(values)

describe('finding the first byte that is not UTF-8', () => {
  it('accepts ASCII, Thai and four-byte sequences', () => {
    expect(invalidUtf8At(Buffer.from('a,ชา,😀\n'), true)).toBe(-1)
  })

  it('names the first invalid byte: a stray continuation, an overlong form, a surrogate, Latin-1', () => {
    expect(invalidUtf8At(bytes(0x61, 0x80), true)).toBe(1)
    expect(invalidUtf8At(bytes(0x61, 0xc0, 0xaf), true)).toBe(1)
    expect(invalidUtf8At(bytes(0xed, 0xa0, 0x80), true)).toBe(0)
    expect(invalidUtf8At(Buffer.from('caf\xe9', 'latin1'), true)).toBe(3)
  })

  it('leaves a sequence cut at the end of a chunk for the next one, unless the text is complete', () => {
    expect(invalidUtf8At(bytes(0x61, 0xe0, 0xb8), false)).toBe(-1)
    expect(invalidUtf8At(bytes(0x61, 0xe0, 0xb8), true)).toBe(1)
  })
})
