/**
 * Who may use the desk: whoever holds this run's secret (printed once, on gw's stdout), exchanged
 * at the first visit for a session cookie the page's scripts cannot read (HttpOnly) and no other
 * site's request carries (SameSite=Strict). Every form a page shows carries a token of its own,
 * for the one action it posts to: a post from anywhere else has none. Everything lives in this
 * process: the session ends with it.
 */
import {randomBytes, timingSafeEqual} from 'node:crypto'

/**
 * Random text of `bytes` bytes, in hex: URL-safe, and never taken for key material by the filter
 * every line gw prints goes through (untrusted.ts), as base64 of random bytes would be.
 */
const randomText = (bytes: number) => randomBytes(bytes).toString('hex')

/** The forms' tokens a session keeps (the newest): a page left open for a day still posts. */
const TOKENS_KEPT = 512

class Session {
  /** A form's token → the action (path) it may post to. */
  readonly #tokens = new Map<string, string>()

  /** A token for a form posting to `action`. */
  tokenFor(action: string): string {
    const token = randomText(18)
    this.#tokens.set(token, action)
    if (this.#tokens.size > TOKENS_KEPT) this.#tokens.delete(this.#tokens.keys().next().value!)
    return token
  }

  /** Whether `token` was given by a page of this session for a form posting to `action`. */
  allows(token: string | undefined, action: string): boolean {
    return token !== undefined && this.#tokens.get(token) === action
  }
}

export type {Session}

const same = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

export class DeskSessions {
  /** This run's secret: in the address gw prints. */
  readonly secret = randomText(32)
  readonly #sessions = new Map<string, Session>()
  /** Codes for opening the browser, each good once (a command line can be read by others on the machine). */
  readonly #openCodes = new Set<string>()

  /** The cookie's name: one run's own, so that two desks of one machine (cookies know no port) never mix them. */
  readonly cookieName = `gw_desk_${randomText(4)}`

  /**
   * A session for whoever gives this run's secret or an unused opening code (then used up); none
   * for anything else.
   */
  open(given: string): {id: string; session: Session} | undefined {
    const code = [...this.#openCodes].find((c) => same(c, given))
    if (code) this.#openCodes.delete(code)
    else if (!same(this.secret, given)) return undefined
    const id = randomText(32)
    const session = new Session()
    this.#sessions.set(id, session)
    return {id, session}
  }

  /** A code that opens a session once: for the browser gw starts itself. */
  openCode(): string {
    const code = randomText(24)
    this.#openCodes.add(code)
    return code
  }

  /** The session a request's cookie names, if it is one of this run's. */
  of(cookieHeader: string | undefined): Session | undefined {
    const id = cookieOf(cookieHeader, this.cookieName)
    if (!id) return undefined
    for (const [known, session] of this.#sessions) if (same(known, id)) return session
    return undefined
  }

  /** The Set-Cookie header of a session: never readable by a script, never sent by another site's request. */
  cookie(id: string): string {
    return `${this.cookieName}=${id}; Path=/; HttpOnly; SameSite=Strict`
  }
}

/** The value of cookie `name` in a Cookie header. */
function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}
