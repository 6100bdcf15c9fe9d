import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {GwError, usageError} from '../../lib/errors.js'
import {formatAmount} from '../../lib/gateway/protocol/index.js'
import type {SandboxOrder} from '../../sandbox/ledger.js'

export default class SandboxPay extends GwCommand<typeof SandboxPay> {
  static override summary = 'act as the payer: pay (or decline) a sandbox order'
  static override examples = ['<%= config.bin %> sandbox pay INV-1001', '<%= config.bin %> sandbox pay INV-1002 --fail']
  static override args = {mch_order_no: Args.string({description: 'merchant order number', required: true})}
  static override flags = {fail: Flags.boolean({description: 'decline the payment (the order becomes PAYERROR)'})}

  async run(): Promise<{order: SandboxOrder}> {
    const profile = this.profile
    const origin = new URL(profile.baseUrl).origin
    const {SandboxControl} = await import('../../sandbox/control-client.js')
    const answer = await new SandboxControl(origin)
      .pay(this.args.mch_order_no, {appid: profile.appid, fail: this.flags.fail})
      .catch((error: Error) => {
        const advice = 'Start it with gw sandbox start, or pick its profile with --profile.'
        throw new GwError(
          'transport',
          `cannot reach the sandbox at ${origin}: ${(error.cause as Error | undefined)?.message ?? error.message}.`,
          {advice},
        )
      })
    const {order, error} = answer.body
    if (answer.status === 404 && !order && !error?.startsWith('no order')) {
      throw usageError(`${origin} has no sandbox control API; gw sandbox pay works only against gw sandbox.`)
    }
    if (answer.status !== 200 || !order)
      throw new GwError('refused', error ?? `the sandbox answered HTTP ${answer.status}`)
    const outcome = order.state === 'SUCCESS' ? 'paid' : 'payment declined'
    this.log(`${order.mch_order_no}: ${outcome} (${formatAmount(order.total_fee, order.fee_type)}, ${order.channel}).`)
    return {order}
  }
}
