/**
 * gw desk's run: the desk served until Ctrl-C, its address said (a line of JSON under --json), the
 * browser opened on a terminal; then what was done through it, and how the run ended (unknown
 * while a refund made through it is not known yet).
 */
import {once} from 'node:events'

import type {Showing} from '../lib/cli/command-ports.js'
import {onInterrupt} from '../lib/cli/interrupt.js'
import {listenError} from '../lib/cli/listening.js'
import type {DeskProfile, DeskServices} from '../lib/desk/routes.js'
import {type Ended, OUTCOME, type SuggestedFor} from '../lib/errors.js'

export async function serveDesk(
  services: DeskServices,
  profile: DeskProfile & SuggestedFor,
  options: {zone: string; port: number; open: boolean},
  show: Showing,
): Promise<Ended> {
  const [{startDesk}, {deskSummaryLines}, {openBrowser}] = await Promise.all([
    import('../lib/desk/desk.js'),
    import('../lib/desk/summary.js'),
    import('../lib/desk/browser.js'),
  ])
  const {zone, port} = options
  const interrupt = onInterrupt()
  try {
    const desk = await startDesk({
      services,
      profile: {name: profile.name, appid: profile.appid, baseUrl: profile.baseUrl, live: profile.live},
      zone,
      port,
      stop: interrupt.signal,
      warn: (message) => show.warn(message),
    }).catch((error: unknown) => {
      throw listenError(error, '127.0.0.1', port)
    })
    const {url} = desk
    if (show.json) show.io.stdout.write(`${JSON.stringify({url, profile: profile.name, live: profile.live, zone})}\n`)
    else show.log(url)
    show.note(
      `gw desk listening on this machine for profile "${profile.name}"${profile.live ? ' (LIVE: real money)' : ''}, times on ${zone}: open the address above in its browser; Ctrl-C stops it.`,
    )
    if (options.open && show.io.stdout.isTTY && !show.json)
      openBrowser(desk.openUrl(), (why) =>
        show.note(`The browser could not be opened (${why}): open the address above.`),
      )
    if (!interrupt.signal.aborted) await once(interrupt.signal, 'abort')
    await desk.close()
    const summary = desk.summary()
    for (const line of deskSummaryLines(summary, profile)) show.note(line)
    return {[OUTCOME]: summary.refunds.some((refund) => refund.outcome === 'not_known') ? 'unknown' : 'done'}
  } finally {
    interrupt.dispose()
  }
}
