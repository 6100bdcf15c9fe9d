/** A created order's QR image, saved as the gateway sent it (the view draws it: render/qr). */
import {writeFileSync} from 'node:fs'

import {GwError, usageError} from '../errors.js'
import {send} from '../io/http.js'
import type {CreatedOrder} from './service.js'

/**
 * Writes the order's QR image: `imgdat` (PNG, or SVG when asked for), or for airpay the
 * image at `code_url`, which is the QR to show (its imgdat is not payable).
 */
export async function saveQrImage(created: CreatedOrder, file: string): Promise<string> {
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
