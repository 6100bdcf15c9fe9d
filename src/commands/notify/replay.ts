import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {ExitCode, usageError} from '../../lib/errors.js'
import type {Replayed} from '../../lib/notify/replay.js'

export default class NotifyReplay extends GwCommand<typeof NotifyReplay> {
  static override summary = 'send logged notifications again to an endpoint'
  static override description =
    'Reads a log written by gw notify listen --log, and POSTs each verified notification again to --to, exactly as the gateway sent it (the raw body and its content type), one at a time, showing each answer and whether it acknowledges (a JSON object with result SUCCESS and msg OK). A notification the gateway delivered several times is sent once; rejected deliveries are not sent. Exit 0 when every one is acknowledged, 1 when an answer is not an acknowledgement, 3 when the endpoint could not be reached.'
  static override examples = [
    '<%= config.bin %> notify replay notifications.jsonl --to http://localhost:3000/hooks/pay',
    '<%= config.bin %> notify replay notifications.jsonl --to http://localhost:3000/hooks/pay --only INV-1001 --json',
  ]

  static override args = {log: Args.string({description: 'a log of gw notify listen --log', required: true})}
  static override flags = {
    to: Flags.url({description: 'the endpoint to send them to', required: true}),
    only: Flags.string({description: 'only the notifications of this order (merchant or gateway order number)'}),
  }

  async run(): Promise<{to: string; replayed: Replayed[]}> {
    const {args, flags} = this
    const [{readLog, replay}, {replayedLine}] = await Promise.all([
      import('../../lib/notify/replay.js'),
      import('../../lib/render/notify.js'),
    ])
    const {deliveries, unreadable} = readLog(args.log, flags.only)
    if (unreadable.length)
      this.warning(`${args.log}: lines ${unreadable.slice(0, 10).join(', ')} are not JSON; left out`)
    if (!deliveries.length)
      throw usageError(`${args.log} has no verified notification${flags.only ? ` of ${flags.only}` : ''} to send.`)
    const replayed = await replay(deliveries, flags.to.href, (result) => this.log(replayedLine(result)))
    const failed = replayed.filter((r) => !r.acknowledged)
    this.note(`${replayed.length - failed.length} of ${replayed.length} acknowledged by ${flags.to.href}`)
    this.setExitCode(
      replayed.some((r) => r.error) ? ExitCode.Transport : failed.length ? ExitCode.Refused : ExitCode.Done,
    )
    return {to: flags.to.href, replayed}
  }
}
