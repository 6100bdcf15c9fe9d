/**
 * The HTTP pieces of gw, on Node's own http and https (built in): a request
 * body read up to a limit and a whole answer written with its length (the sandbox, the
 * listener); and one request sent with its answer read up to a limit, within a time, over a
 * keep-alive agent or not (the gateway client, the listener's forwarding, notify replay, the
 * sandbox's notifications).
 */
import {
  Agent,
  type AgentOptions,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
  request as httpRequest,
} from 'node:http'

/** node:https, and with it Node's TLS (a few ms to load), only for an https address. */
const https = () => process.getBuiltinModule('node:https')

/** A keep-alive agent for the address's origin: https's for an https address, else http's. */
export const keepAliveAgent = (origin: string, options: AgentOptions): Agent =>
  origin.startsWith('https:') ? new (https().Agent)(options) : new Agent(options)

/** Codes of the failures `send` makes itself, beside the system's (ECONNREFUSED...). */
export const CONNECT_TIMEOUT = 'GW_CONNECT_TIMEOUT'
export const ANSWER_TIMEOUT = 'GW_ANSWER_TIMEOUT'

interface SendOptions {
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string | Buffer
  /** A keep-alive agent to reuse connections; else a connection of its own. */
  agent?: Agent
  /** The whole answer must have come within this, from sending. */
  timeoutMs: number
  /** The connection must be made within this. */
  connectTimeoutMs?: number
  /** Bytes of the answer kept at most; past them it is cut off (`tooLarge`). */
  limit: number
}

interface Answered {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  /** The answer was larger than the limit: `body` is what came before it, the rest was not read. */
  tooLarge: boolean
}

const failure = (code: string, message: string) => Object.assign(new Error(message), {code})

/** Sends one request; rejects with the system's error (its `code`), or CONNECT_TIMEOUT / ANSWER_TIMEOUT. */
export function send(url: URL, options: SendOptions): Promise<Answered> {
  const request = url.protocol === 'https:' ? https().request : httpRequest
  return new Promise((resolve, reject) => {
    const req = request(url, {method: options.method ?? 'POST', headers: options.headers, agent: options.agent})
    const answerTimer = setTimeout(
      () => req.destroy(failure(ANSWER_TIMEOUT, `no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    )
    let connectTimer: NodeJS.Timeout | undefined
    req.on('socket', (socket) => {
      if (!options.connectTimeoutMs || !socket.connecting) return
      connectTimer = setTimeout(
        () => req.destroy(failure(CONNECT_TIMEOUT, `no connection within ${options.connectTimeoutMs} ms`)),
        options.connectTimeoutMs,
      )
      socket.once('connect', () => clearTimeout(connectTimer))
    })
    const done = () => {
      clearTimeout(answerTimer)
      clearTimeout(connectTimer)
    }
    req.on('error', (error) => {
      done()
      reject(error)
    })
    req.on('response', (response) => {
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size <= options.limit) return void chunks.push(chunk)
        done()
        response.destroy()
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          tooLarge: true,
        })
      })
      response.on('end', () => {
        done()
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          tooLarge: false,
        })
      })
      response.on('error', (error) => {
        done()
        reject(error)
      })
    })
    req.end(options.body)
  })
}

/** An endpoint's answer to a POST (its body cut at the limit), or why there was none. */
export type Posted = {url: string; status: number; body: string; type: string} | {url: string; error: string}

/** POSTs `body` to `url` and reads at most `limit` bytes of the answer, within `timeoutMs`. */
export async function post(
  url: string,
  body: string,
  contentType: string,
  options: {limit: number; timeoutMs: number; headers?: Record<string, string>},
): Promise<Posted> {
  try {
    const headers = {...options.headers, 'content-type': contentType}
    const answer = await send(new URL(url), {...options, body, headers, connectTimeoutMs: options.timeoutMs})
    const type = answer.headers['content-type']?.toString() ?? 'text/plain'
    return {url, status: answer.status, body: answer.body.toString('utf8'), type}
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
