/**
 * A QR code drawn with text: two modules per character (upper and lower half blocks), with the
 * quiet zone of four modules readers need. Characters are drawn in the terminal's text colour,
 * so which modules are drawn depends on the terminal: on a light theme (dark-on-light text) the
 * dark modules, on a dark theme (light-on-dark) the light ones and the quiet zone. Either way
 * the code shows dark on light, as every reader expects.
 */
import QRCode from 'qrcode'

import {saveQrImage} from '../orders/qr.js'
import type {CreatedOrder} from '../orders/service.js'
import {qrNote} from './orders.js'

export const QR_STYLES = ['dark-on-light', 'light-on-dark'] as const
export type QrStyle = (typeof QR_STYLES)[number]

const QUIET_ZONE = 4

/**
 * The terminal's style from what it reports: COLORFGBG ("15;0": light text on black) names its
 * background colour; without it, dark-on-light.
 */
export function terminalStyle(env: NodeJS.ProcessEnv = process.env): QrStyle {
  const background = Number(env.COLORFGBG?.split(';').at(-1))
  return Number.isInteger(background) && (background <= 6 || background === 8) ? 'light-on-dark' : 'dark-on-light'
}

export function drawQr(text: string, style: QrStyle): string {
  const {modules} = QRCode.create(text, {errorCorrectionLevel: 'M'})
  const size = modules.size + 2 * QUIET_ZONE
  const dark = (row: number, col: number) => {
    const r = row - QUIET_ZONE
    const c = col - QUIET_ZONE
    return r >= 0 && c >= 0 && r < modules.size && c < modules.size && Boolean(modules.get(r, c))
  }
  // An odd last row is drawn with one more row of quiet zone below it.
  const drawn = (row: number, col: number) => dark(row, col) === (style === 'dark-on-light')
  const lines: string[] = []
  for (let row = 0; row < size; row += 2) {
    let line = ''
    for (let col = 0; col < size; col++) {
      const [top, bottom] = [drawn(row, col), drawn(row + 1, col)]
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' '
    }
    lines.push(line)
  }
  return lines.join('\n')
}

/**
 * The QR of a created order for people: drawn unless `notAsked` says why it was not asked for
 * (and there is one to draw), saved to `file` when given, with a note when no QR can be shown.
 * `not_drawn`: why it was not drawn, in words, for the order's story.
 */
export async function showQr(
  created: CreatedOrder,
  options: {notAsked?: string; style: QrStyle; file?: string},
): Promise<{drawn?: string; not_drawn?: string; notes: string[]; qr_file?: string}> {
  const notes: string[] = []
  const why = qrNote(created, Boolean(options.file))
  if (why) notes.push(why)
  const codeUrl = created.order.code_url
  const not_drawn = why
    ? created.qr_lost
      ? 'the answer carrying it was lost'
      : `${created.channel}'s code_url is an image to show, not text to encode`
    : (options.notAsked ?? (codeUrl ? undefined : 'the gateway gave no code_url'))
  const drawn = not_drawn === undefined && codeUrl ? drawQr(codeUrl, options.style) : undefined
  if (!options.file || created.qr_lost) return {drawn, not_drawn, notes}
  const type = await saveQrImage(created, options.file)
  notes.push(`QR image (${type}) saved to ${options.file}`)
  return {drawn, not_drawn, notes, qr_file: options.file}
}
