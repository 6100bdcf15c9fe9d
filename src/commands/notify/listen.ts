import {once} from 'node:events'

import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {checkEndpoint, durationFlag, zoneFlag} from '../../lib/cli/flags.js'
import {onInterrupt} from '../../lib/cli/interrupt.js'
import {checkHost} from '../../lib/cli/listening.js'
import {type Ended, OUTCOME} from '../../lib/errors.js'
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
      description:
        'address to listen on: 0.0.0.0 for every interface, so the gateway can reach it (see gw help developers)',
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
    zone: zoneFlag,
  }

  async run(): Promise<Ended> {
    const {flags, profile} = this
    const forwardTo = flags['forward-to']
    if (forwardTo) checkEndpoint('--forward-to', forwardTo)
    checkHost(flags.host)
    const [{startListener}, {listenSummary}] = await Promise.all([
      import('./listen.run.js'),
      import('../../lib/render/notify.js'),
    ])
    // What the listener sees goes into this machine's history: the orders' stories and their states.
    const {history} = await this.services({signs: false})
    const {url, tally, enough, close} = await startListener(flags, forwardTo, profile, history, this.showing)
    this.note(
      `listening for notifications at ${url} (profile "${profile.name}"); pass it as: gw order create ... --notify-url ${url}`,
    )
    const interrupt = onInterrupt()
    const timeout = flags.timeout ? [AbortSignal.timeout(flags.timeout * 1000)] : []
    await once(AbortSignal.any([enough, interrupt.signal, ...timeout]), 'abort')
    interrupt.dispose()
    await close()
    const timedOut = Boolean(flags['exit-after']) && !enough.aborted && !interrupt.signal.aborted
    const missed = timedOut ? ` --timeout passed before ${plural(flags['exit-after']!, 'payment')} came.` : ''
    this.note(`${listenSummary(tally, forwardTo?.href)}${missed}`)
    return {[OUTCOME]: timedOut ? 'unknown' : tally.outcome}
  }
}
