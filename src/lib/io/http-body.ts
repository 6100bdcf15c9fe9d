/**
 * Reads an HTTP request body up to a limit. Over the limit, it answers `too_large` at once
 * and drains the rest, so a large body costs no memory: the sandbox's operations and the
 * notification listener both read bodies this way.
 */
import type {IncomingMessage} from 'node:http'

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) {
        chunks.push(chunk)
        return
      }
      req.off('data', onData)
      req.resume()
      resolve('too_large')
    }
    req.on('data', onData)
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}
