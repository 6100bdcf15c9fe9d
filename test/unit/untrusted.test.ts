import {createHash, generateKeyPairSync} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {quoted, shown, terminalSafe, viewSafe, withoutKeys} from '../../src/lib/untrusted.js'

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

  it('cuts between words, never inside one', () => {
    const message = "the gateway's order query takes wechat, alipay, alipayplus, linepay, airpay, promptpay, truemoney"
    expect(shown(message, 84)).toBe(
      "the gateway's order query takes wechat, alipay, alipayplus, linepay, airpay,… (21 more)",
    )
    expect(shown('one two three', 7)).toBe('one two… (6 more)')
  })

  it('withholds private keys, armoured, cut short or bare, and nothing that merely looks long', () => {
    const {privateKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
    const pem = privateKey.export({type: 'pkcs8', format: 'pem'}).toString()
    const lines = pem.split('\n').filter((line) => line && !line.startsWith('-----'))
    expect(withoutKeys(`Nonexistent flag: --privat-key=${pem}`)).toBe(
      'Nonexistent flag: --privat-key=[private key withheld]\n',
    )
    expect(withoutKeys(`"${pem.slice(0, 100)}" is not a command`)).toBe('"[private key withheld]" is not a command')
    for (const line of lines.slice(0, -1)) expect(withoutKeys(`x ${line} y`)).toBe('x [key material withheld] y')
    expect(shown(`gw profle add --private-key ${pem}`, 80)).toBe(
      'gw profle add --private-key [private key withheld]\\n',
    )
    const hex = 'a3'.repeat(256)
    const kept = [
      `order INV2026abcDEF0123456789xyzQRS1 signature ${hex} gw_order_no 90020261121093015000001`,
      'file /Users/JohnSmith/Documents/Finance2026/RefundsNovember/batch1.csv',
      'file C:/Users/Somchai/OneDrive/Finance/Refunds2026November/Q4/Batch1/ThailandStores.xlsx',
      'file /home/finance/Downloads/RefundsForNovember2026Batch.csv',
      'column ThisIsAVeryLongCamelCaseIdentifierWithoutDigits',
    ]
    for (const text of kept) expect(withoutKeys(text)).toBe(text)
  })

  it('withholds every line of random base64 a key could be made of, whatever its mix of cases', () => {
    // The same 20,000 lines every run (hashes of their index): the rule misses about one random
    // line in ten million, so fresh lines would fail one run in five hundred.
    const lines = Array.from({length: 20_000}, (_, i) => createHash('sha384').update(`line ${i}`).digest('base64'))
    const missed = lines.filter((line) => withoutKeys(`x ${line} y`) !== 'x [key material withheld] y')
    expect(missed).toEqual([])
  })

  it('keeps the new lines and tabs of a whole message, nothing else: a file name as typed cannot paint it', () => {
    expect(terminalSafe('line 1\nline 2 \u001b[2K\r')).toBe('line 1\nline 2 \\x1B[2K\\r')
    // A piped list's columns are tabs; a value's own tab is made visible where it is shown.
    expect(viewSafe(`INV-1\t${shown('a\tb')}\t150.50 THB`)).toBe('INV-1\ta\\tb\t150.50 THB')
    expect(terminalSafe('The file refunds\u001b[31mred.txt does not exist.')).toBe(
      'The file refunds\\x1B[31mred.txt does not exist.',
    )
  })

  it("keeps gw's own colours in a view, and nothing else", () => {
    // A table head in cyan and a bold value, as gw paints them on a terminal.
    expect(viewSafe('\u001b[36morder\u001b[39m \u001b[1mINV-1\u001b[22m\n')).toBe(
      '\u001b[36morder\u001b[39m \u001b[1mINV-1\u001b[22m\n',
    )
    // Anything else that starts alike is made visible: a reset of everything, a colour gw never uses, a cursor move.
    expect(viewSafe('\u001b[0m\u001b[35m\u001b[36;1m\u001b[1A\r')).toBe('\\x1B[0m\\x1B[35m\\x1B[36;1m\\x1B[1A\\r')
    // A value shown before it joins a view cannot bring a colour along.
    expect(viewSafe(`state: ${shown('\u001b[32mverified\u001b[39m')}`)).toBe('state: \\x1B[32mverified\\x1B[39m')
  })
})
