import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {anyNumberArgs, networkFlags, orderFlags, orderReference, usage, zoneFlag} from '../../lib/cli/flags.js'
import {formOf} from '../../lib/io/streams.js'
import {findNamed} from '../../lib/orders/any-number.js'
import type {FoundOrder} from '../../lib/orders/finding.js'
import type {RefundRecord} from '../../lib/gateway/protocol/index.js'
import type {RefundEntry} from '../../lib/store/records.js'
import {foundByNote} from '../../lib/render/orders.js'
import {madeHereView, refundRecordView} from '../../lib/render/refunds.js'

interface RefundQueryResult {
  order: FoundOrder['record']
  channel: string
  /** The number the gateway was asked with; null when there was nothing to ask (an order never refunded). */
  mch_refund_no: string | null
  refund: RefundRecord | null
  /** For a channel without a refund query (alipay): the refunds this machine made of the order. */
  made_here?: RefundEntry[]
}

export default class RefundQuery extends GwCommand<typeof RefundQuery> {
  static override summary = 'list the refunds of an order, with their states'
  static override description =
    "Name the order by any number support has: its merchant, gateway or channel order number, or a refund number of it this machine knows (gw's or the gateway's: then that refund is the one asked with). The gateway answers for the whole order (every refund, and the total refunded) but needs one refund number of it: --mch-refund-no, else the last refund gw made of this order on this machine. An order never refunded needs none; for one refunded elsewhere, the merchant platform shows each refund's merchant refund number. The gateway has no refund query for alipay: for an alipay order gw lists the refunds this machine made of it, from its own history, and says so."
  static override examples = [
    '<%= config.bin %> refund query INV-1001',
    '<%= config.bin %> refund query 91020261121093015000002',
    '<%= config.bin %> refund query INV-1001 --mch-refund-no INV-1001-R1 --json',
  ]
  static override usage = usage.anyNumber(' [--mch-refund-no R]')
  static override args = anyNumberArgs
  static override flags = {
    'mch-refund-no': Flags.string({description: 'a refund number of the order'}),
    ...orderFlags,
    zone: zoneFlag,
    ...networkFlags,
  }

  async run(): Promise<RefundQueryResult> {
    const {orders, refunds} = await this.services()
    const {number} = this.args
    const found = await findNamed(orders, orderReference(number, this.flags, 'NUMBER'), this.flags.channel)
    const note = foundByNote(number, found)
    if (note) this.note(note)
    // A refund's number given as the argument is the one the gateway is asked with.
    const asked = this.flags['mch-refund-no'] ?? found.refund?.mch_refund_no
    const {refund, mch_refund_no, none, made_here} = await refunds.query(found, asked)
    const mchOrderNo = found.record.mch_order_no ?? ''
    const form = formOf(this.io.stdout)
    if (refund) this.log(refundRecordView(mchOrderNo, refund, form))
    else if (made_here?.length) this.log(madeHereView(mchOrderNo, found.channel, made_here, form))
    else this.log(none)
    const result = {
      order: found.record,
      channel: found.channel,
      mch_refund_no: mch_refund_no ?? null,
      refund: refund ?? null,
    }
    return made_here ? {...result, made_here} : result
  }
}
