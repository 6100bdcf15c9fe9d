/**
 * The HTTP pieces the servers of gw share (the sandbox and the notification listener): a
 * request body read up to a limit, and a whole answer written with its length.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'

/**
 * Reads a request body up to `limit` bytes. Over the limit, it answers `too_large` at once
 * and drains the rest, so a large body costs no memory.
 */
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
    // Cut off before its end (the client went away, or the server stopped): nothing to read.
    req.on('close', () => {
      if (!req.complete) reject(new Error('the request was cut off before its end'))
    })
  })
}

/** Answers with a whole body and its length (unless an answer was already started). */
export function reply(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'application/json; charset=utf-8',
): void {
  if (!res.headersSent) res.writeHead(status, {'content-type': type, 'content-length': Buffer.byteLength(body)})
  res.end(body)
}
