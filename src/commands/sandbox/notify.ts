import {setTimeout as sleep} from 'node:timers/promises'

import {Args} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {durationFlag} from '../../lib/cli/flags.js'
import {type Ended, GwError, OUTCOME} from '../../lib/errors.js'
import {endpointAnswer} from '../../lib/render/notify.js'
import type {SandboxOrder} from '../../sandbox/ledger.js'

type Attempt = SandboxOrder['notifications'][number]

export default class SandboxNotify extends GwCommand<typeof SandboxNotify> {
  static override summary = "deliver a paid sandbox order's notification again, now"
  static override description =
    "Asks the sandbox to send the order's payment notification to its notify_url once more, as the gateway would (signed, retried until acknowledged), and shows the endpoint's answer. For trying an endpoint you just fixed, without paying a new order."
  static override examples = [
    '<%= config.bin %> sandbox notify INV-1001',
    '<%= config.bin %> sandbox notify INV-1001 --wait 0',
  ]
  static override args = {
    mch_order_no: Args.string({ignoreStdin: true, description: 'merchant order number', required: true}),
  }
  static override flags = {
    wait: durationFlag({
      description: 'time to wait for the endpoint to answer, like 15 or 1m (0: do not wait)',
      default: 15,
      min: 0,
      max: 600,
    }),
  }

  async run(): Promise<{order: string; attempt?: Attempt} & Ended> {
    const {profile, args} = this
    const {sandboxOf} = await import('./control.run.js')
    const sandbox = await sandboxOf(profile)
    const attempts = async () =>
      (await sandbox((control) => control.notifications(args.mch_order_no))).body.notifications ?? []
    const before = (await attempts()).length
    const answer = await sandbox((control) => control.notify(args.mch_order_no, profile.appid))
    if (answer.status !== 202 || !answer.body.order)
      throw new GwError('refused', answer.body.error ?? `the sandbox answered HTTP ${answer.status}`)
    const {order} = answer.body
    this.note(`notification of ${order.mch_order_no} sent to ${order.notify_url}`)
    const deadline = Date.now() + this.flags.wait * 1000
    while (Date.now() < deadline) {
      const attempt = (await attempts())[before]
      if (attempt) {
        // Said as gw notify listen and replay say an endpoint's answer; exit codes as replay's.
        const said = endpointAnswer({...attempt, body: attempt.reply, acknowledged: attempt.delivered})
        if (attempt.delivered) {
          this.log(said)
          return {order: order.mch_order_no, attempt}
        }
        this.log(`${said}; the sandbox retries as the gateway would`)
        return {order: order.mch_order_no, attempt, [OUTCOME]: attempt.status === null ? 'transport' : 'refused'}
      }
      await sleep(200)
    }
    if (this.flags.wait > 0)
      this.warning(
        `no answer from ${order.notify_url} within ${this.flags.wait}s; the sandbox keeps trying (gw order query ${order.mch_order_no} shows the order)`,
      )
    return {order: order.mch_order_no}
  }
}
