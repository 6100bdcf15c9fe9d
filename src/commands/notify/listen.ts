import {once} from 'node:events'

import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {checkEndpoint, durationFlag} from '../../lib/cli/flags.js'
import {onInterrupt} from '../../lib/cli/interrupt.js'
import {checkHost, isItself, isLoopbackHost, listenError} from '../../lib/cli/listening.js'
import {usageError} from '../../lib/errors.js'
import {plural} from '../../lib/plural.js'

export default class NotifyListen extends GwCommand<typeof NotifyListen> {
  static override summary = 'receive, verify and answer payment notifications'
  static override description = `Listens for the gateway's notifications (any path), verifies each over "data" with the profile's gateway public key, and answers exactly {"result":"SUCCESS","msg":"OK"} when it verifies; anything else gets a failure answer, so the gateway retries. One line per notification; with --json one JSON object per line. With --forward-to, verified notifications go on to your own endpoint and its answer is relayed to the gateway. Stops after --exit-after verified notifications (exit 0), when --timeout passes first (exit 5), or on Ctrl-C (exit 0, with a summary).`

  static override examples = [
    '<%= config.bin %> notify listen',
    '<%= config.bin %> notify listen --port 8788 --forward-to http://localhost:3000/hooks/pay --log notifications.jsonl',
    '<%= config.bin %> notify listen --exit-after 1 --timeout 120 --json',
  ]

  static override flags = {
    port: Flags.integer({description: 'port to listen on (0 picks a free one)', default: 8788, min: 0, max: 65_535}),
    host: Flags.string({
      description: 'address to listen on: 0.0.0.0 for every interface, so the gateway can reach it (see README)',
      default: '127.0.0.1',
    }),
    'forward-to': Flags.url({description: 'also POST each verified notification to this URL and relay its answer'}),
    'exit-after': Flags.integer({
      description:
        'exit after the verified notifications of N payments (the repeats of one count once; with --forward-to, once your endpoint acknowledged them)',
      min: 1,
    }),
    timeout: durationFlag({
      description:
        'exit 5 if --exit-after is not reached within this time (without --exit-after: stop after it), up to 7d: 90, 90s, 30m, 2h',
      min: 1,
      max: 7 * 86_400,
    }),
    log: Flags.string({
      description: 'append every delivery (headers, raw body, verdict, answer) to FILE as JSON lines',
    }),
  }

  async run(): Promise<void> {
    const {flags, profile} = this
    const forwardTo = flags['forward-to']
    if (forwardTo) checkEndpoint('--forward-to', forwardTo)
    checkHost(flags.host)
    const [
      {NotificationListener},
      {openLog},
      {ListenTally},
      {recordDelivery},
      {eventLine, listenSummary, rejectedWarning},
    ] = await Promise.all([
      import('../../lib/notify/listener.js'),
      import('../../lib/io/json-lines.js'),
      import('../../lib/notify/tally.js'),
      import('../../lib/notify/record.js'),
      import('../../lib/render/notify.js'),
    ])
    // What the listener sees goes into this machine's history: the orders' stories and their states.
    const {history} = await this.services({signs: false})
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
        this.warning(
          `cannot write to the log ${flags.log} (${error.code ?? error.message}): deliveries from now on are not logged; the listener goes on answering.`,
        ),
      onEvent: (event) => {
        tally.add(event)
        // The listener answers the gateway whatever the history's trouble (held, damaged): said once.
        try {
          recordDelivery(history, profile, event, url)
        } catch (error) {
          if (!historyFailed) this.warning(`the history could not record this delivery (${(error as Error).message}).`)
          historyFailed = true
        }
        if (this.jsonEnabled()) this.io.stdout.write(`${JSON.stringify(event)}\n`)
        else this.log(eventLine(event))
        if (event.verdict === 'REJECTED') this.warning(rejectedWarning(event, profile.name))
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
      this.warning(
        `listening on ${flags.host}: any machine that reaches this one on port ${port} can POST here. Only notifications signed with the gateway key of profile "${profile.name}" for ${profile.appid} are answered SUCCESS${forward}; everything else is refused and logged. Stop it when the test is done.`,
      )
    }
    this.note(
      `listening for notifications at ${url} (profile "${profile.name}"); pass it as: gw order create ... --notify-url ${url}`,
    )
    const interrupt = onInterrupt()
    const timeout = flags.timeout ? [AbortSignal.timeout(flags.timeout * 1000)] : []
    await once(AbortSignal.any([enough.signal, interrupt.signal, ...timeout]), 'abort')
    interrupt.dispose()
    await listener.close()
    const timedOut = Boolean(flags['exit-after']) && !enough.signal.aborted && !interrupt.signal.aborted
    const missed = timedOut ? ` --timeout passed before ${plural(flags['exit-after']!, 'payment')} came.` : ''
    this.note(`${listenSummary(tally, forwardTo?.href)}${missed}`)
    this.setOutcome(timedOut ? 'unknown' : tally.outcome)
  }
}
