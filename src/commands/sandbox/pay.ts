import {Args, Flags} from '@oclif/core'
import {request} from 'undici'

import {GwCommand} from '../../lib/cli/base-command.js'
import {GwError, usageError} from '../../lib/errors.js'
import {formatAmount} from '../../lib/gateway/protocol/index.js'

interface PaidOrder {
  mch_order_no: string
  gw_order_no: string
  state: string
  total_fee: number
  fee_type: string
  channel: string
}

export default class SandboxPay extends GwCommand<typeof SandboxPay> {
  static override summary = 'act as the payer: pay (or decline) a sandbox order'
  static override examples = ['<%= config.bin %> sandbox pay INV-1001', '<%= config.bin %> sandbox pay INV-1002 --fail']
  static override args = {mch_order_no: Args.string({description: 'merchant order number', required: true})}
  static override flags = {fail: Flags.boolean({description: 'decline the payment (the order becomes PAYERROR)'})}

  async run(): Promise<{order: PaidOrder}> {
    const profile = this.profile
    const origin = new URL(profile.baseUrl).origin
    let response
    try {
      response = await request(`${origin}/sandbox/pay`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({mch_order_no: this.args.mch_order_no, appid: profile.appid, fail: this.flags.fail}),
      })
    } catch (error) {
      throw new GwError('transport', `cannot reach the sandbox at ${origin}: ${(error as Error).message}.`, {
        advice: 'Start it with gw sandbox start, or pick its profile with --profile.',
      })
    }
    const body = (await response.body.json().catch(() => ({}))) as {order?: PaidOrder; error?: string}
    if (response.statusCode === 404 && !body.order && !body.error?.startsWith('no order')) {
      throw usageError(`${origin} has no sandbox control API; gw sandbox pay works only against gw sandbox.`)
    }
    if (response.statusCode !== 200 || !body.order)
      throw new GwError('refused', body.error ?? `the sandbox answered HTTP ${response.statusCode}`)
    const order = body.order
    this.log(
      `${order.mch_order_no}: ${order.state === 'SUCCESS' ? 'paid' : 'payment declined'} (${formatAmount(order.total_fee, order.fee_type)}, ${order.channel}).`,
    )
    return {order}
  }
}
