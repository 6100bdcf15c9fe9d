/**
 * gw notify listen's run: the listener started as its flags say, each delivery recorded in this
 * machine's history (the orders' stories and states), counted, shown and logged; refused when it
 * would forward to itself, said when other machines can reach it.
 */
import {usageError} from '../../lib/errors.js'
import type {GatewayProfile} from '../../lib/gateway/client.js'
import {openLog} from '../../lib/io/json-lines.js'
import {NotificationListener} from '../../lib/notify/listener.js'
import {recordDelivery} from '../../lib/notify/record.js'
import {ListenTally} from '../../lib/notify/tally.js'
import {eventLine, rejectedWarning} from '../../lib/render/notify.js'
import type {GatewayHistory} from '../../lib/store/history.js'
import type {Showing} from '../../lib/cli/command-ports.js'
import {isItself, isLoopbackHost, listenError} from '../../lib/cli/listening.js'

interface ListenFlags {
  port: number
  host: string
  'exit-after'?: number
  log?: string
}

/** Listens: its address, what it counted, a signal once --exit-after's payments came, and how it stops. */
export async function startListener(
  flags: ListenFlags,
  forwardTo: URL | undefined,
  profile: GatewayProfile,
  history: GatewayHistory,
  show: Showing,
) {
  let url = ''
  let historyFailed = false
  // A payment is notified once and may be delivered many times (the gateway retries until acknowledged).
  const tally = new ListenTally(Boolean(forwardTo))
  const enough = new AbortController()
  const listener = new NotificationListener({
    ...flags,
    gatewayPublicKeyPem: profile.gatewayPublicKeyPem,
    signScheme: profile.signScheme,
    appid: profile.appid,
    forwardTo: forwardTo?.href,
    log: flags.log === undefined ? undefined : openLog(flags.log, 'notifications.jsonl'),
    onLogFailure: (error) =>
      show.warn(
        `cannot write to the log ${flags.log} (${error.code ?? error.message}): deliveries from now on are not logged; the listener goes on answering.`,
      ),
    onEvent: (event) => {
      tally.add(event)
      // The listener answers the gateway whatever the history's trouble (held, damaged): said once.
      try {
        recordDelivery(history, profile, event, url)
      } catch (error) {
        if (!historyFailed) show.warn(`the history could not record this delivery (${(error as Error).message}).`)
        historyFailed = true
      }
      if (show.json) show.io.stdout.write(`${JSON.stringify(event)}\n`)
      else show.log(eventLine(event))
      if (event.verdict === 'REJECTED') show.warn(rejectedWarning(event, profile.name))
      if (flags['exit-after'] && tally.acknowledged >= flags['exit-after']) enough.abort()
    },
  })
  url = await listener.listen().catch((error: unknown) => {
    throw listenError(error, flags.host, flags.port)
  })
  const port = new URL(url).port
  if (forwardTo && isItself(forwardTo, flags.host, port)) {
    await listener.close()
    throw usageError(
      `--forward-to ${forwardTo.href} is this listener itself: each notification would be forwarded to itself without end.`,
      'Give the address of your own endpoint, on another port.',
    )
  }
  if (!isLoopbackHost(flags.host)) {
    const forward = forwardTo ? `, and passed on to ${forwardTo.href}` : ''
    show.warn(
      `listening on ${flags.host}: any machine that reaches this one on port ${port} can POST here. Only notifications signed with the gateway key of profile "${profile.name}" for ${profile.appid} are answered SUCCESS${forward}; everything else is refused and logged. Stop it when the test is done.`,
    )
  }
  return {url, tally, enough: enough.signal, close: () => listener.close()}
}
