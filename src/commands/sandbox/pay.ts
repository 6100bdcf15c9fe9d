import {Args, Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {GwError} from '../../lib/errors.js'
import {formatAmount} from '../../lib/gateway/protocol/index.js'
import {shown} from '../../lib/untrusted.js'
import type {SandboxOrder} from '../../sandbox/ledger.js'

export default class SandboxPay extends GwCommand<typeof SandboxPay> {
  static override summary = 'act as the payer: pay (or decline) a sandbox order'
  static override examples = ['<%= config.bin %> sandbox pay INV-1001', '<%= config.bin %> sandbox pay INV-1002 --fail']
  static override args = {
    mch_order_no: Args.string({ignoreStdin: true, description: 'merchant order number', required: true}),
  }
  static override flags = {fail: Flags.boolean({description: 'decline the payment (the order becomes PAYERROR)'})}

  async run(): Promise<{order: SandboxOrder}> {
    const {profile} = this
    const {sandboxOf} = await import('./control.run.js')
    const sandbox = await sandboxOf(profile)
    const answer = await sandbox((control) =>
      control.pay(this.args.mch_order_no, {appid: profile.appid, fail: this.flags.fail}),
    )
    const {order, error} = answer.body
    if (answer.status !== 200 || !order)
      throw new GwError('refused', error === undefined ? `the sandbox answered HTTP ${answer.status}` : shown(error))
    const outcome = order.state === 'SUCCESS' ? 'paid' : 'payment declined'
    this.log(
      `${shown(order.mch_order_no)}: ${outcome} (${formatAmount(order.total_fee, order.fee_type)}, ${order.channel}).`,
    )
    return {order}
  }
}
