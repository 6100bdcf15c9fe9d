import {describe, expect, it} from 'vitest'

import {drawQr, terminalStyle} from '../../src/lib/render/qr.js'
import {readDrawnQr} from '../helpers/qr-screen.js'

const URL = 'http://127.0.0.1:8787/pay/90020261121093015000001'

describe('a QR code drawn in the terminal', () => {
  it('reads, without inversion, on the terminal it is drawn for, with a quiet zone of 4 modules', () => {
    for (const style of ['dark-on-light', 'light-on-dark'] as const) {
      const read = readDrawnQr(drawQr(URL, style), style)
      expect(read).toEqual({text: URL, quietZone: 4})
    }
  })

  it('drawn for the other theme, it shows inverted: the reason for --qr-style', () => {
    expect(readDrawnQr(drawQr(URL, 'light-on-dark'), 'dark-on-light').text).toBeUndefined()
  })

  it('takes the style from the background the terminal reports, else dark-on-light', () => {
    expect(terminalStyle({COLORFGBG: '15;0'})).toBe('light-on-dark')
    expect(terminalStyle({COLORFGBG: '0;15'})).toBe('dark-on-light')
    expect(terminalStyle({COLORFGBG: '15;default;0'})).toBe('light-on-dark')
    expect(terminalStyle({})).toBe('dark-on-light')
  })
})
