import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {checkEndpoint} from '../../lib/cli/flags.js'
import {type Ended, OUTCOME, gravest, usageError} from '../../lib/errors.js'
import type {Replayed, Skipped} from '../../lib/notify/replay.js'
import {plural} from '../../lib/plural.js'
import {quoted} from '../../lib/untrusted.js'

export default class NotifyReplay extends GwCommand<typeof NotifyReplay> {
  static override summary = 'send logged notifications again to an endpoint'
  static override description =
    'Reads a log written by gw notify listen --log, and POSTs each notification the listener verified again to --to, exactly as the gateway sent it (the raw body and its content type), one at a time, showing each answer and whether it acknowledges (a JSON object with result SUCCESS and msg OK). The log is not taken on trust: each body is verified again with the gateway public key of the profile, and one that does not verify (or came with a content type the gateway does not send) is skipped, with why. A notification the gateway delivered several times is sent once; rejected deliveries are not sent. Exit 0 when every logged notification was sent and acknowledged; otherwise the highest of: 1 when an answer is not an acknowledgement, 3 when the endpoint could not be reached, 4 when a line was not sent (it no longer verifies, or is not as the gateway sends).'
  static override examples = [
    '<%= config.bin %> notify replay notifications.jsonl --to http://localhost:3000/hooks/pay',
    '<%= config.bin %> notify replay notifications.jsonl --to http://localhost:3000/hooks/pay --only INV-1001 --json',
  ]

  static override args = {
    log: Args.string({ignoreStdin: true, description: 'a log of gw notify listen --log', required: true}),
  }
  static override flags = {
    to: Flags.url({description: 'the endpoint to send them to', required: true}),
    only: Flags.string({description: 'only the notifications of this order (merchant or gateway order number)'}),
  }

  async run(): Promise<{to: string; replayed: Replayed[]; skipped: Skipped[]} & Ended> {
    const {args, flags} = this
    checkEndpoint('--to', flags.to)
    if (flags.only !== undefined && !flags.only.trim())
      throw usageError(
        '--only is empty: give an order number (merchant or gateway), or leave --only out to send them all.',
      )
    const [{readLog, replay}, {verifierOf}, {replayedLine}] = await Promise.all([
      import('../../lib/notify/replay.js'),
      import('../../lib/notify/verification.js'),
      import('../../lib/render/notify.js'),
    ])
    const {deliveries, skipped, unreadable} = readLog(args.log, verifierOf(this.profile), flags.only)
    if (unreadable.length) {
      const which = `${unreadable.slice(0, 10).join(', ')}${unreadable.length > 10 ? ' …' : ''}`
      this.warning(
        `${args.log}: ${unreadable.length === 1 ? `line ${which} is not a delivery` : `lines ${which} are not deliveries`} logged by gw notify listen; left out`,
      )
    }
    for (const {line, reason} of skipped)
      this.warning(`${args.log}: line ${line} not sent: ${reason} (profile "${this.profile.name}")`)
    if (!deliveries.length && !skipped.length)
      throw usageError(
        `${args.log} has no verified notification${flags.only ? ` of ${quoted(flags.only)}` : ''} to send.`,
      )
    const replayed = await replay(deliveries, flags.to.href, (result) => this.log(replayedLine(result)))
    const acknowledged = replayed.filter((r) => r.acknowledged).length
    // Lines not sent count against the run: the endpoint never got what they logged.
    const notSent = skipped.length ? `; ${plural(skipped.length, 'line')} of the log not sent (above)` : ''
    this.note(
      `${acknowledged} of ${plural(replayed.length + skipped.length, 'logged notification')} acknowledged by ${flags.to.href}${notSent}`,
    )
    // The gravest of what happened: a line that no longer verifies, an endpoint unreachable, an answer not an acknowledgement.
    const outcome = gravest([
      skipped.length ? 'signature' : 'done',
      replayed.some((r) => r.error) ? 'transport' : 'done',
      acknowledged < replayed.length ? 'refused' : 'done',
    ])
    return {to: flags.to.href, replayed, skipped, [OUTCOME]: outcome}
  }
}
