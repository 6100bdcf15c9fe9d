/**
 * The desk's page server, on loopback only, for one run. A page on loopback is reachable by every
 * site the user visits, so before any route: a request whose Host is not the address gw printed is
 * refused (DNS rebinding); one a browser says another site or another origin made is refused
 * (Sec-Fetch-Site); nothing is served without a session, which only this run's secret opens (an
 * HttpOnly, SameSite=Strict cookie); every state-changing request is a POST carrying the token of
 * the page it came from and an Origin equal to the desk's. No CORS header is ever sent; every answer
 * carries a Content-Security-Policy that allows the desk's own stylesheet and nothing else (no
 * script, no frame of it anywhere). Refusals are counted for the run's summary, never answered with data.
 */
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {DESK_CSS} from './style.js'
import {DeskSessions, type Session} from './session.js'

/** Why a request was refused, each counted for the summary. */
export type Refusal = 'host' | 'cross_site' | 'secret' | 'no_session' | 'origin' | 'token' | 'method'

/** A page's answer: HTML, or where to go next (303, after a POST or a find). */
export type Answer = {status: number; html: string} | {redirect: string}

/** What a route gets of a request: its path and query, a POST's form, the session's tokens. */
export interface Asked {
  method: 'GET' | 'POST'
  path: string
  query: URLSearchParams
  form: URLSearchParams
  session: Session
}

interface DeskServer {
  /** The address to open, with this run's secret. */
  url: string
  origin: string
  /** An address that opens a session once (for the browser gw opens). */
  openUrl(): string
  refused: Readonly<Record<Refusal, number>>
  close(): Promise<void>
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Not no-referrer: under it a browser sends "Origin: null" with the desk's own form posts.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
}

/** A form the desk posts is a few fields; anything longer is not one of its forms. */
const MAX_FORM_BYTES = 16 * 1024

const REFUSED_WORDS: Record<Refusal, string> = {
  host: 'This desk answers only at the address gw desk printed.',
  cross_site: 'This desk does not answer requests another site or page made.',
  secret: 'This is not the address gw desk printed: its secret is not this run’s.',
  no_session: 'Open the address gw desk printed (with its secret) first. A desk’s session ends with its run.',
  origin: 'This desk takes a form only from its own pages.',
  token: 'This form is not one the desk gave: go back to the page, reload it, and send it again.',
  method: 'This desk takes GET and POST requests only.',
}

function send(res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8', more = {}) {
  res.writeHead(status, {...SECURITY_HEADERS, 'content-type': type, ...more})
  res.end(body)
}

/** The form of a POST, up to a bound; undefined when it is not a form or too long. */
async function formOf(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') return undefined
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_FORM_BYTES) return undefined
    chunks.push(chunk)
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
}

/** The guard every request meets before its route, and what it refused. */
class Guard {
  readonly refused: Record<Refusal, number> = {
    host: 0,
    cross_site: 0,
    secret: 0,
    no_session: 0,
    origin: 0,
    token: 0,
    method: 0,
  }
  readonly sessions = new DeskSessions()
  /** The address gw printed, as a Host header names it; set once the server listens. */
  host = ''
  origin = ''

  constructor(readonly route: (asked: Asked) => Promise<Answer>) {}

  #refuse(res: ServerResponse, why: Refusal, status = 403): void {
    this.refused[why] += 1
    send(res, status, `${REFUSED_WORDS[why]}\n`, 'text/plain; charset=utf-8')
  }

  /** A request through the guard, then to its route: what the desk answers. */
  async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS rebinding: a name that resolves here is not this desk's address.
    if (req.headers.host !== this.host) return this.#refuse(res, 'host', 421)
    // Chromium and Firefox say who made a request; only the desk's own pages and the user (an address typed or opened) are answered.
    const site = req.headers['sec-fetch-site']
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return this.#refuse(res, 'cross_site')
    if (req.method !== 'GET' && req.method !== 'POST') return this.#refuse(res, 'method', 405)
    const url = new URL(req.url ?? '/', this.origin)
    if (url.pathname === '/open' && req.method === 'GET') {
      const opened = this.sessions.open(url.searchParams.get('secret') ?? '')
      if (!opened) return this.#refuse(res, 'secret')
      res.writeHead(303, {...SECURITY_HEADERS, location: '/', 'set-cookie': this.sessions.cookie(opened.id)})
      return void res.end()
    }
    const session = this.sessions.of(req.headers.cookie)
    if (!session) return this.#refuse(res, 'no_session')
    if (url.pathname === '/desk.css' && req.method === 'GET') return send(res, 200, DESK_CSS, 'text/css; charset=utf-8')
    let form = new URLSearchParams()
    if (req.method === 'POST') {
      if (req.headers.origin !== this.origin) return this.#refuse(res, 'origin')
      const posted = await formOf(req)
      if (!posted || !session.allows(posted.get('token') ?? undefined, url.pathname)) return this.#refuse(res, 'token')
      form = posted
    }
    const method = req.method as Asked['method']
    const answer = await this.route({method, path: url.pathname, query: url.searchParams, form, session})
    if (!('redirect' in answer)) return send(res, answer.status, answer.html)
    res.writeHead(303, {...SECURITY_HEADERS, location: answer.redirect})
    res.end()
  }
}

/**
 * Listens on `host` (127.0.0.1, or ::1 where this machine has no IPv4 loopback) at `port` (0: a
 * free one) and answers each request that passes the guard with `route`.
 */
export async function startDeskServer(
  options: {host: string; port: number},
  route: (asked: Asked) => Promise<Answer>,
  onError: (error: unknown) => void,
): Promise<DeskServer> {
  const guard = new Guard(route)
  const server: Server = createServer((req, res) => {
    guard.answer(req, res).catch((error: unknown) => {
      onError(error)
      if (res.headersSent) return res.destroy()
      send(
        res,
        500,
        'The desk failed on this request; the terminal running gw desk says why.\n',
        'text/plain; charset=utf-8',
      )
    })
  })
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const {port} = server.address() as AddressInfo
  guard.host = options.host.includes(':') ? `[${options.host}]:${port}` : `${options.host}:${port}`
  const origin = (guard.origin = `http://${guard.host}`)
  return {
    url: `${origin}/open?secret=${guard.sessions.secret}`,
    origin,
    openUrl: () => `${origin}/open?secret=${guard.sessions.openCode()}`,
    refused: guard.refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
