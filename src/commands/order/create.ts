import {Flags} from '@oclif/core'

import {minorUnitsFrom} from '../../lib/cli/amount-input.js'
import {GwCommand, liveFlags, networkFlags} from '../../lib/cli/base-command.js'
import {ExitCode} from '../../lib/errors.js'
import type {CreatedOrder, FoundOrder} from '../../lib/orders/service.js'
import {CHANNELS_BY_OPERATION, CURRENCIES, describeOrderState, formatAmount} from '../../lib/gateway/protocol/index.js'
import {createdView, orderView} from '../../lib/render/views.js'

type Result = CreatedOrder & {qr_file?: string; waited?: {state: string; record?: FoundOrder['record']}}

export default class OrderCreate extends GwCommand<typeof OrderCreate> {
  static override summary = 'create a QR order and show its QR code'
  static override description =
    'The merchant order number is generated when not given. The QR code is drawn when stdout is a terminal; --qr-out saves the image. With --wait, gw polls until the order is paid, fails, closes or its QR expires.'
  static override examples = [
    '<%= config.bin %> order create --channel promptpay --amount 150.50 --fee-type THB',
    '<%= config.bin %> order create --channel wechat --total-fee 15050 --fee-type THB --mch-order-no INV-1001 --qr-out qr.png',
    '<%= config.bin %> order create --channel alipay --amount 25 --fee-type MYR --notify-url https://shop.example/hooks/pay --wait',
  ]

  static override flags = {
    channel: Flags.string({
      description: 'wallet channel',
      required: true,
      options: [...CHANNELS_BY_OPERATION.native_pay],
    }),
    amount: Flags.string({description: 'amount as a decimal in the currency, e.g. 150.50', exclusive: ['total-fee']}),
    'total-fee': Flags.integer({
      description: 'amount in minor units, e.g. 15050 for 150.50 THB',
      exclusive: ['amount'],
    }),
    'fee-type': Flags.string({description: 'currency', required: true, options: [...CURRENCIES]}),
    'mch-order-no': Flags.string({description: 'merchant order number (default: generated)'}),
    'notify-url': Flags.string({description: 'URL that receives the payment notification'}),
    product: Flags.string({description: 'product name or description'}),
    attach: Flags.string({description: 'extra information returned with the order'}),
    'device-id': Flags.string({description: 'terminal id'}),
    'operator-id': Flags.string({description: 'cashier operator number'}),
    'img-type': Flags.string({description: 'image format of the QR the gateway returns', options: ['png', 'svg']}),
    expire: Flags.integer({description: 'seconds the QR stays usable (truemoney and scb_qrcard only)', min: 0}),
    'qr-out': Flags.string({description: 'save the QR image to FILE (for airpay: the code_url image)'}),
    qr: Flags.boolean({description: 'draw the QR code in the terminal', default: true, allowNo: true}),
    wait: Flags.boolean({description: 'wait until the order is paid, fails, closes or expires'}),
    'wait-timeout': Flags.integer({
      description: 'with --wait: give up after SECONDS (default: when the QR expires, at most 15 minutes)',
      min: 1,
    }),
    ...liveFlags,
    ...networkFlags,
  }

  async run(): Promise<Result> {
    const {flags} = this
    const totalFee = minorUnitsFrom(
      {amount: flags.amount, minor: flags['total-fee'], names: ['--amount', '--total-fee']},
      flags['fee-type'],
    )
    await this.confirmLive(`create an order of ${formatAmount(totalFee, flags['fee-type'])} on ${flags.channel}`)
    const created = await this.orders.create({
      channel: flags.channel,
      totalFee,
      feeType: flags['fee-type'],
      mchOrderNo: flags['mch-order-no'],
      notifyUrl: flags['notify-url'],
      product: flags.product,
      attach: flags.attach,
      deviceId: flags['device-id'],
      operatorId: flags['operator-id'],
      imgType: flags['img-type'] as 'png' | 'svg' | undefined,
      expireSeconds: flags.expire,
    })
    const result: Result = {...created}
    this.log(createdView(created))
    if (created.qr_lost) {
      this.warning(
        'the order was created, but the answer carrying its QR code was lost. Close it (gw order close) and create a new one to show a QR code.',
      )
    } else if (created.channel === 'airpay') {
      this.note('airpay: code_url is an image URL to show as is, not text to encode; open it or save it with --qr-out.')
    } else if (flags.qr && process.stdout.isTTY && !this.jsonEnabled() && created.order.code_url) {
      const {terminalQr} = await import('../../lib/orders/qr.js')
      this.log(await terminalQr(created.order.code_url))
    }
    if (flags['qr-out'] && !created.qr_lost) {
      const {saveQrImage} = await import('../../lib/orders/qr.js')
      const type = await saveQrImage(created, flags['qr-out'])
      result.qr_file = flags['qr-out']
      this.note(`QR image (${type}) saved to ${flags['qr-out']}`)
    }
    if (flags.wait) result.waited = await this.#wait(created)
    return result
  }

  async #wait(created: CreatedOrder): Promise<{state: string; record?: FoundOrder['record']}> {
    const expires = created.expires_at ? Date.parse(created.expires_at) : Number.POSITIVE_INFINITY
    const deadline = Math.min(expires, Date.now() + (this.flags['wait-timeout'] ?? 15 * 60) * 1000)
    const spinner = ['|', '/', '-', '\\']
    let tick = 0
    const interactive = process.stderr.isTTY
    const found = await this.orders.waitForPayment(
      {mch_order_no: created.order.mch_order_no},
      created.channel,
      deadline,
      (state) => {
        const left = Math.max(0, Math.round((deadline - Date.now()) / 1000))
        const line = `${spinner[tick++ % 4]} waiting for payment: ${state}, ${Math.floor(left / 60)}m${String(left % 60).padStart(2, '0')}s left`
        if (interactive) process.stderr.write(`\r${line}   `)
        else if (tick % 10 === 1) process.stderr.write(`${line}\n`)
      },
    )
    if (interactive) process.stderr.write('\n')
    if (!found) {
      this.note(
        `Not paid before the wait ended. Check later: gw order query ${created.order.mch_order_no} --channel ${created.channel}`,
      )
      this.setExitCode(ExitCode.Unknown)
      return {state: 'WAITING'}
    }
    this.log(orderView(found))
    const state = found.record.result
    if (state !== 'SUCCESS') {
      this.note(`The order ended ${state}: ${describeOrderState(state)}.`)
      this.setExitCode(ExitCode.Refused)
    }
    return {state, record: found.record}
  }
}
