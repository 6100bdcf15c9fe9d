import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {ExitCode, usageError} from '../../lib/errors.js'
import type {NotificationEvent} from '../../lib/notify/listener.js'
import {formatAmount} from '../../lib/gateway/protocol/index.js'
import {green, red} from '../../lib/render/style.js'

const LOOPBACK = ['127.0.0.1', 'localhost', '::1']

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
    host: Flags.string({description: 'address to listen on', default: '127.0.0.1'}),
    'forward-to': Flags.string({description: 'also POST each verified notification to this URL and relay its answer'}),
    'exit-after': Flags.integer({description: 'exit 0 after N verified notifications', min: 1}),
    timeout: Flags.integer({
      description: 'exit 5 if --exit-after is not reached within SECONDS (without --exit-after: stop after SECONDS)',
      min: 1,
    }),
    log: Flags.string({
      description: 'append every delivery (headers, raw body, verdict, answer) to FILE as JSON lines',
    }),
  }

  async run(): Promise<void> {
    const {flags} = this
    if (flags['forward-to']) {
      try {
        new URL(flags['forward-to'])
      } catch {
        throw usageError(
          `--forward-to "${flags['forward-to']}" is not a URL.`,
          'Give the full address, like http://localhost:3000/hooks/pay.',
        )
      }
    }
    if (!LOOPBACK.includes(flags.host))
      this.warning(
        `listening on ${flags.host}: other machines can send notifications here. Only verified ones are answered SUCCESS.`,
      )
    const profile = this.profile
    const {NotificationListener} = await import('../../lib/notify/listener.js')
    let verified = 0
    let rejected = 0
    let finish: (code: ExitCode) => void = () => {}
    const finished = new Promise<ExitCode>((resolve) => (finish = resolve))
    const listener = new NotificationListener({
      host: flags.host,
      port: flags.port,
      gatewayPublicKeyPem: profile.gatewayPublicKeyPem,
      signScheme: profile.signScheme,
      forwardTo: flags['forward-to'],
      logFile: flags.log,
      onEvent: (event) => {
        if (event.verdict === 'verified') verified++
        else rejected++
        if (this.jsonEnabled()) process.stdout.write(`${JSON.stringify(event)}\n`)
        else this.log(eventLine(event))
        if (event.verdict === 'REJECTED')
          this.warning(
            `rejected a notification: ${event.reason}. It was answered as a failure, so the gateway will retry; check the gateway public key of profile "${profile.name}" if this repeats.`,
          )
        if (flags['exit-after'] && verified >= flags['exit-after']) finish(ExitCode.Done)
      },
    })
    let url: string
    try {
      url = await listener.listen()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
        throw usageError(
          `port ${flags.port} on ${flags.host} is in use.`,
          'Pick another: --port 8789, or --port 0 for any free one.',
        )
      throw error
    }
    this.note(
      `listening for notifications at ${url} (profile "${profile.name}"); pass it as: gw order create ... --notify-url ${url}`,
    )
    const onSignal = () => finish(ExitCode.Done)
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
    const timer = flags.timeout
      ? setTimeout(() => finish(flags['exit-after'] ? ExitCode.Unknown : ExitCode.Done), flags.timeout * 1000)
      : undefined
    const code = await finished
    if (timer) clearTimeout(timer)
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await listener.close()
    this.note(
      `${verified} verified, ${rejected} rejected.${code === ExitCode.Unknown ? ` --timeout passed before ${flags['exit-after']} verified notifications came.` : ''}`,
    )
    this.setExitCode(code)
  }
}

function eventLine(event: NotificationEvent): string {
  const time = event.at.replace('T', ' ').slice(0, 19)
  const verdict = event.verdict === 'verified' ? green('verified') : red('REJECTED')
  const amount = event.total_fee === undefined ? '' : formatAmount(event.total_fee, event.fee_type)
  const parts = [time, verdict, event.mch_order_no ?? '-', event.gw_order_no ?? '-', amount, event.channel ?? '']
  if (event.retry > 0) parts.push(`retry ${event.retry}`)
  if (event.reason) parts.push(`(${event.reason})`)
  if (event.forwarded)
    parts.push(
      event.forwarded.status === undefined
        ? `forward failed: ${event.forwarded.error}`
        : `forwarded: HTTP ${event.forwarded.status} ${JSON.stringify(event.forwarded.body?.slice(0, 80) ?? '')}`,
    )
  return parts.filter(Boolean).join('  ')
}
