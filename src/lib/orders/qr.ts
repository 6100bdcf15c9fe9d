/** QR codes for people: drawn in the terminal, or saved as the image the gateway sent. */
import {writeFileSync} from 'node:fs'

import {GwError, usageError} from '../errors.js'
import {send} from '../io/http.js'
import {qrNote} from '../render/orders.js'
import {type QrStyle, drawQr} from '../render/qr.js'
import type {CreatedOrder} from './service.js'

/**
 * Writes the order's QR image: `imgdat` (PNG, or SVG when asked for), or for airpay the
 * image at `code_url`, which is the QR to show (its imgdat is not payable).
 */
async function saveQrImage(created: CreatedOrder, file: string): Promise<string> {
  const {order, channel} = created
  if (channel === 'airpay') {
    if (!order.code_url) throw new GwError('transport', 'The gateway gave no code_url image for this airpay order.')
    const image = await send(new URL(order.code_url), {method: 'GET', timeoutMs: 15_000, limit: 4 * 1024 * 1024}).catch(
      (error: Error) => {
        throw new GwError('transport', `Fetching the airpay image ${order.code_url} failed: ${error.message}.`)
      },
    )
    if (image.status !== 200 || image.tooLarge)
      throw new GwError('transport', `Fetching the airpay image ${order.code_url} failed: HTTP ${image.status}.`)
    writeFileSync(file, image.body)
    return image.headers['content-type']?.toString() ?? 'image'
  }
  const match = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(order.imgdat ?? '')
  if (!match) throw usageError('The gateway sent no QR image (imgdat) to save.')
  const [, type, base64, payload] = match
  writeFileSync(file, base64 ? Buffer.from(payload!, 'base64') : decodeURIComponent(payload!))
  return type!
}

/**
 * The QR of a created order for people: drawn when `draw` (and there is one to draw), saved
 * to `file` when given, with a note when no QR can be shown.
 */
export async function showQr(
  created: CreatedOrder,
  options: {draw: boolean; style: QrStyle; file?: string},
): Promise<{drawn?: string; notes: string[]; qr_file?: string}> {
  const notes: string[] = []
  const why = qrNote(created, Boolean(options.file))
  if (why) notes.push(why)
  const codeUrl = created.order.code_url
  const drawn = !why && options.draw && codeUrl ? drawQr(codeUrl, options.style) : undefined
  if (!options.file || created.qr_lost) return {drawn, notes}
  const type = await saveQrImage(created, options.file)
  notes.push(`QR image (${type}) saved to ${options.file}`)
  return {drawn, notes, qr_file: options.file}
}
