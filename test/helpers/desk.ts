/**
 * The desk's server run in-process, against the world's sandbox, with the services the command
 * would build (its profile, its history), and a client that speaks to it as a browser does: the
 * session cookie kept, each form's token taken from the page that shows it, Origin and
 * Sec-Fetch-Site sent as Chromium sends them. What a browser alone shows is in the Chromium tests.
 */
import {request} from 'node:http'
import {PassThrough} from 'node:stream'

import {defaultServices} from '../../src/lib/cli/services.js'
import {type RunningDesk, startDesk} from '../../src/lib/desk/desk.js'
import {ProfileStore} from '../../src/lib/profiles/store.js'
import type {GwWorld} from './gw-env.js'

interface DeskAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** One HTTP request to the desk, headers as given (a browser's, or an attacker's). */
export function deskRequest(
  url: string,
  options: {method?: string; headers?: Record<string, string>; body?: string} = {},
): Promise<DeskAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {method: options.method ?? 'GET', headers: options.headers}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString()}),
      )
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

/** The token of the form that posts to `action`, as the page gives it. */
export function tokenOf(page: string, action: string): string {
  const form = page.split('<form').find((part) => part.includes(`action="${action}"`))
  const token = form && /name="token"\s+value="([^"]+)"/.exec(form)?.[1]
  if (!token) throw new Error(`no form posting to ${action} on the page:\n${page}`)
  return token
}

/** The text a page shows a reader: tags dropped, entities read, spaces folded. */
export const textOf = (page: string) =>
  page
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()

/** A browser's conversation with the desk: its session cookie, and the headers Chromium sends. */
export class DeskBrowser {
  cookie?: string
  constructor(readonly origin: string) {}

  async open(url: string): Promise<DeskAnswer> {
    const answer = await deskRequest(url, {headers: {'sec-fetch-site': 'none'}})
    const set = answer.headers['set-cookie']?.[0]
    if (set) this.cookie = set.split(';')[0]
    return answer
  }

  get(path: string, headers: Record<string, string> = {}): Promise<DeskAnswer> {
    const cookie: Record<string, string> = this.cookie ? {cookie: this.cookie} : {}
    return deskRequest(`${this.origin}${path}`, {headers: {'sec-fetch-site': 'same-origin', ...cookie, ...headers}})
  }

  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<DeskAnswer> {
    const cookie: Record<string, string> = this.cookie ? {cookie: this.cookie} : {}
    return deskRequest(`${this.origin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: this.origin,
        'sec-fetch-site': 'same-origin',
        ...cookie,
        ...headers,
      },
      body: new URLSearchParams(form).toString(),
    })
  }

  /** Follows a 303 as a browser does (GET). */
  async follow(answer: DeskAnswer): Promise<DeskAnswer> {
    if (answer.status !== 303) return answer
    return this.get(String(answer.headers.location))
  }
}

export interface TestDesk {
  desk: RunningDesk
  url: string
  origin: string
  /** A browser that opened the printed address: it holds a session. */
  browser(): Promise<DeskBrowser>
  /** Stops the desk as Ctrl-C does: what is in flight is settled, the server closed. */
  stop(): Promise<void>
  warnings: string[]
}

/** The desk of `profile` (the world's default one unless named), in-process, on a free port. */
export async function startTestDesk(
  world: GwWorld,
  options: {profile?: string; zone?: string} = {},
): Promise<TestDesk> {
  const store = new ProfileStore(world.configDir)
  const profile = store.load(options.profile ?? store.defaultName()!)
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: process.stdin,
    env: {GW_CONFIG_DIR: world.configDir},
  }
  const warnings: string[] = []
  const notes = {warn: (m: string) => warnings.push(m), note: () => undefined}
  const services = defaultServices.connect(profile, {}, io, notes)
  const stopping = new AbortController()
  const desk = await startDesk({
    services,
    profile,
    zone: options.zone ?? profile.gatewayZone,
    port: 0,
    stop: stopping.signal,
    warn: (m) => warnings.push(m),
  })
  const origin = new URL(desk.url).origin
  let stopped = false
  return {
    desk,
    url: desk.url,
    origin,
    warnings,
    async browser() {
      const browser = new DeskBrowser(origin)
      const opened = await browser.open(desk.url)
      if (opened.status !== 303 || !browser.cookie) throw new Error(`the desk did not open: ${opened.status}`)
      return browser
    },
    async stop() {
      if (stopped) return
      stopped = true
      stopping.abort('SIGINT')
      await desk.close()
      await services.close()
    },
  }
}
