/**
 * The HTTP pieces gw's servers and its notification senders share: a request body read up to
 * a limit, a whole answer written with its length, and a body POSTed to an endpoint with its
 * answer read up to a limit (the listener's forwarding, notify replay).
 */
import type {IncomingMessage, ServerResponse} from 'node:http'

import {request} from 'undici'

/** An endpoint's answer to a POST (its body cut at the limit), or why there was none. */
export type Posted = {url: string; status: number; body: string; type: string} | {url: string; error: string}

/** POSTs `body` to `url` and reads at most `limit` characters of the answer, within `timeoutMs` per phase. */
export async function post(
  url: string,
  body: string,
  contentType: string,
  options: {limit: number; timeoutMs: number},
): Promise<Posted> {
  try {
    const response = await request(url, {
      method: 'POST',
      headers: {'content-type': contentType},
      body,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    })
    const said = (await response.body.text()).slice(0, options.limit)
    const type = response.headers['content-type']?.toString() ?? 'text/plain'
    return {url, status: response.statusCode, body: said, type}
  } catch (error) {
    return {url, error: (error as Error).message || (error as {code?: string}).code || 'failed'}
  }
}

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
