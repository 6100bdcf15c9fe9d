import {describe, expect, it} from 'vitest'

import {quoted, shown, terminalSafe} from '../../src/lib/untrusted.js'

describe('untrusted text on a terminal', () => {
  it('makes controls, escapes and text-reordering characters visible', () => {
    expect(shown('\u001b[32mverified\u001b[0m')).toBe('\\x1B[32mverified\\x1B[0m')
    expect(shown('a\rb\nc\td\u0000\u007f\u009b')).toBe('a\\rb\\nc\\td\\x00\\x7F\\x9B')
    expect(shown('evil\u202egnp.exe')).toBe('evil\\u202Egnp.exe')
    expect(shown('ชาเขียว café')).toBe('ชาเขียว café')
  })

  it('bounds length in characters, saying how many were left out', () => {
    expect(shown('x'.repeat(10), 4)).toBe('xxxx… (6 more)')
    expect(shown('ก'.repeat(3), 2)).toBe('กก… (1 more)')
    expect(quoted('a"b')).toBe('"a"b"')
  })

  it('keeps the new lines of a whole message, nothing else', () => {
    expect(terminalSafe('line 1\nline 2 \u001b[2K\r')).toBe('line 1\nline 2 \\x1B[2K\\r')
  })
})
