/**
 * What every page of the desk has: the live banner (or the test account's), the profile and the
 * zone its times are on, the navigation, a skip link, and the one stylesheet. Pages are built from
 * `html` fragments only (html.ts): every outside text escaped.
 */
import {formatAmount, isoTimeIn} from '../../gateway/protocol/index.js'
import {type Html, html, urlPart} from '../html.js'

/** What a page needs to know of the run: the profile, the zone its times are shown on, and its forms' tokens. */
export interface PageContext {
  profile: {name: string; appid: string; baseUrl: string; live: boolean}
  zone: string
  /** A token for a form posting to `action` (session.ts). */
  token(action: string): string
}

type Section = 'find' | 'orders' | 'refunds'

const SECTIONS: [Section, string, string][] = [
  ['find', '/', 'Find an order'],
  ['orders', '/orders', 'Orders'],
  ['refunds', '/refunds', 'Refunds'],
]

/** A whole page: the frame around `body`. */
export function page(ctx: PageContext, title: string, body: Html, current?: Section): string {
  const {profile} = ctx
  const banner = profile.live
    ? html`<p class="banner live" role="note">
        LIVE: profile ${profile.name} moves real money. Every refund here is real.
      </p>`
    : html`<p class="banner test" role="note">Test account: profile ${profile.name}. No real money moves.</p>`
  const links = SECTIONS.map(
    ([section, href, words]) =>
      html`<li><a href="${href}" ${section === current ? html` aria-current="page"` : ''}>${words}</a></li>`,
  )
  const offset = isoTimeIn(new Date(), ctx.zone).slice(19)
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · gw desk</title>
        <link rel="stylesheet" href="/desk.css" />
      </head>
      <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header class="top">
          ${banner}
          <div class="bar">
            <a class="name" href="/">gw desk</a>
            <nav aria-label="Desk">
              <ul>
                ${links}
              </ul>
            </nav>
            <p class="profile">
              Profile ${profile.name} (appid ${profile.appid}) at ${profile.baseUrl}. Times on the clock of ${ctx.zone}
              (${offset}).
            </p>
          </div>
        </header>
        <main id="main">${body}</main>
      </body>
    </html> `.text
}

/** A time as pages show it: date and clock in the desk's zone, the whole instant (with its offset) in `datetime`. */
export function shownTime(at: string | undefined, zone: string): Html {
  if (!at) return html``
  const ms = Date.parse(at)
  if (Number.isNaN(ms)) return html`${at}`
  const iso = isoTimeIn(new Date(ms), zone)
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)}</time>`
}

/** An amount with its currency, never split across lines. */
export const money = (fee: number | undefined, currency: string | undefined) => formatAmount(fee, currency)

/** The address of an order's page. */
export const orderHref = (mchOrderNo: string) => `/order?n=${urlPart(mchOrderNo)}`

/** A problem said on a page: what went wrong and what to do, announced to screen readers. */
export function problem(message: string, advice?: string): Html {
  return html`<div class="problem" role="alert">
    <p>${message}</p>
    ${advice ? html`<p>${advice}</p>` : ''}
  </div>`
}

/** A hidden field with the form's token for `action`. */
export const tokenField = (ctx: PageContext, action: string) =>
  html`<input type="hidden" name="token" value="${ctx.token(action)}" />`
