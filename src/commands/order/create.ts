import {Flags} from '@oclif/core'

import {amountOf, minorUnitsOrUsage} from '../../lib/cli/amount-input.js'
import {GwCommand} from '../../lib/cli/base-command.js'
import {durationFlag, endpointOf, fieldsOf, liveFlags, networkFlags, zoneFlag} from '../../lib/cli/flags.js'
import type {Ended} from '../../lib/errors.js'
import type {FoundOrder} from '../../lib/orders/finding.js'
import type {CreatedOrder} from '../../lib/orders/service.js'
import {CURRENCIES, ORDER_CHANNELS, formatAmount} from '../../lib/gateway/protocol/index.js'
import {createdView} from '../../lib/render/orders.js'
import {qrFlags} from './create.run.js'

type Result = CreatedOrder & {qr_file?: string; waited?: {state: string; record?: FoundOrder['record']}} & Ended

export default class OrderCreate extends GwCommand<typeof OrderCreate> {
  static override summary = 'create a QR order and show its QR code'
  static override description =
    'The merchant order number is generated when not given. The QR code is drawn when stdout is a terminal (elsewhere with --qr; a note says when it is not); --qr-out saves the image. With --wait, gw polls until the order is paid, fails, closes or its QR expires.'
  static override examples = [
    '<%= config.bin %> order create --channel promptpay --amount 150.50 --fee-type THB',
    '<%= config.bin %> order create --channel wechat --total-fee 15050 --fee-type THB --mch-order-no INV-1001 --qr-out qr.png',
    '<%= config.bin %> order create --channel alipay --amount 25 --fee-type MYR --notify-url https://shop.example/hooks/pay --wait',
  ]

  static override usage = '<%= command.id %> --channel C --amount D --fee-type CURRENCY [FLAGS]'
  static override flags = {
    channel: Flags.string({description: 'wallet channel', required: true, options: [...ORDER_CHANNELS]}),
    amount: Flags.string({description: 'amount as a decimal in the currency, e.g. 150.50', exclusive: ['total-fee']}),
    'total-fee': Flags.integer({description: 'amount in minor units, e.g. 15050 for 150.50', exclusive: ['amount']}),
    'fee-type': Flags.string({description: 'currency', required: true, options: [...CURRENCIES]}),
    'mch-order-no': Flags.string({description: 'merchant order number (default: generated)'}),
    'notify-url': Flags.string({description: 'URL that receives the payment notification'}),
    product: Flags.string({description: 'product name or description'}),
    attach: Flags.string({description: 'extra information returned with the order'}),
    'device-id': Flags.string({description: 'terminal id'}),
    'operator-id': Flags.string({description: 'cashier operator number'}),
    'img-type': Flags.string({description: 'image format of the QR the gateway returns', options: ['png', 'svg']}),
    expire: durationFlag({
      description: 'how long the QR stays usable, like 300 (seconds) or 5m (truemoney and scb_qrcard only)',
      min: 0,
      max: 999_999_999,
    }),
    ...qrFlags,
    zone: zoneFlag,
    wait: Flags.boolean({description: 'wait until the order is paid, fails, closes or expires'}),
    'wait-timeout': durationFlag({
      description: 'with --wait: give up after this time, like 90 or 5m (default: QR expiry, at most 15m)',
      min: 1,
      max: 900,
    }),
    ...liveFlags,
    ...networkFlags,
  }

  async run(): Promise<Result> {
    const {flags} = this
    // The gateway would take any text and fail every delivery to it: refused before the order is made.
    if (flags['notify-url'] !== undefined) endpointOf('--notify-url', flags['notify-url'])
    const names = {decimal: '--amount', minor: '--total-fee'}
    const total_fee = minorUnitsOrUsage(
      amountOf(flags.amount, flags['total-fee'], names, flags['fee-type']),
      flags['fee-type'],
      names,
    )
    await this.confirm(`create an order of ${formatAmount(total_fee, flags['fee-type'])} on ${flags.channel}`)
    const {orders} = await this.services()
    const fields = fieldsOf(flags, ['channel', 'fee-type', 'mch-order-no', 'notify-url', 'product', 'attach'])
    const terminal = fieldsOf(flags, ['device-id', 'operator-id', 'img-type'])
    const created = await orders.create({...fields, ...terminal, total_fee, expireSeconds: flags.expire})
    this.log(createdView(created))
    const {showOrderQr, waitShown} = await import('./create.run.js')
    const qr_file = await showOrderQr(created, flags, orders, this.showing)
    if (!flags.wait) return {...created, qr_file}
    const showing = {...this.showing, profile: this.profile}
    return {...created, qr_file, ...(await waitShown(created, flags['wait-timeout'], orders, showing))}
  }
}
