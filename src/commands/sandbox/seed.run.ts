/**
 * `gw sandbox seed`: practice data for the finance tour. Orders are made through gw (so its
 * history knows them, as real ones would be), across channels and currencies; some are paid
 * as a payer would pay them (the sandbox's control API), some of those partly refunded through
 * gw; then a merchant export to reconcile, with a few planted differences, and a refunds file
 * of orders still to refund are written.
 */
import {randomBytes} from 'node:crypto'
import {mkdirSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {runBatch} from '../../lib/batch.js'
import {GwError, usageError} from '../../lib/errors.js'
import type {OrderService} from '../../lib/orders/service.js'
import type {RefundService} from '../../lib/refunds/service.js'
import {writeTable} from '../../lib/files/annotated-output.js'
import {checkOutputs} from '../../lib/files/output-paths.js'
import {hasRefundQuery, toDecimal} from '../../lib/gateway/protocol/index.js'
import {compactTimestamp} from '../../lib/gateway/protocol/time.js'
import type {SeedResult} from '../../lib/render/sandbox.js'

interface SeedOptions {
  orders: number
  /** The share of orders paid, then of paid orders partly refunded. */
  paid: number
  refunded: number
  outDir: string
  /**
   * The sandbox pays every order by itself (--auto-pay): orders meant to stay unpaid are closed
   * at once, and one its payer paid first counts as paid.
   */
  autoPaid: boolean
  /** Pays an order as its payer would (an order already paid stays paid). */
  pay(mchOrderNo: string): Promise<void>
  /** Called as each order is made and settled. */
  tick(): void
}

interface Seeded {
  mch_order_no: string
  channel: string
  total_fee: number
  fee_type: string
  paid: boolean
  closed: boolean
  refunded: number
}

/** Channels and currencies in turn: wallets in every currency, Thai QR payments in THB. */
const KINDS: readonly [string, string][] = [
  ['wechat', 'THB'],
  ['promptpay', 'THB'],
  ['alipay', 'THB'],
  ['truemoney', 'THB'],
  ['wechat', 'MYR'],
  ['alipay', 'JPY'],
  ['wechat', 'THB'],
  ['alipay', 'AED'],
]

/** A varied amount for order `i` in minor units: 10.00 to about 2,500.00 (JPY whole yen). */
const seedFee = (i: number, currency: string) => {
  const base = ((i * 7919) % 2500) + 10
  return currency === 'JPY' ? base * 10 : base * 100 + ((i * 37) % 100)
}

/** The folder the practice files go to (--out-dir), made if missing; their paths checked before anything is made. */
export function practiceFolder(given: string): string {
  const outDir = resolve(given)
  try {
    mkdirSync(outDir, {recursive: true})
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'exists but is not a directory' : `cannot be made (${code})`
    throw usageError(`--out-dir: ${given} ${why}.`, 'Give a folder, new or existing; nothing was made.')
  }
  const files = ['orders-export.csv', 'refunds.csv'].map((name) => ({flag: '--out-dir', path: join(outDir, name)}))
  checkOutputs(undefined, files)
  return outDir
}

export async function seedSandbox(
  services: {orders: OrderService; refunds: RefundService},
  options: SeedOptions,
): Promise<SeedResult> {
  // Two seeds in the same second still make orders of their own.
  const run = `SEED-${compactTimestamp().slice(2, 14)}-${randomBytes(2).toString('hex').toUpperCase()}`
  const seeded: Seeded[] = Array.from({length: options.orders}, (_, i) => {
    const [channel, fee_type] = KINDS[i % KINDS.length]!
    const mch_order_no = `${run}-${String(i + 1).padStart(3, '0')}`
    return {mch_order_no, channel, fee_type, total_fee: seedFee(i, fee_type), paid: false, closed: false, refunded: 0}
  })
  await makeOrders(seeded, services, options)
  return {
    orders: seeded.length,
    paid: seeded.filter((o) => o.paid).length,
    refunded: seeded.filter((o) => o.refunded).length,
    ...(await writeFiles(seeded, run, options.outDir)),
  }
}

/** Makes the orders at the gateway, paid and refunded in even spreads as the options' shares say. */
async function makeOrders(
  seeded: Seeded[],
  services: {orders: OrderService; refunds: RefundService},
  options: SeedOptions,
): Promise<void> {
  const paidEvery = options.paid > 0 ? 1 / options.paid : Number.POSITIVE_INFINITY
  const refundEvery = options.refunded > 0 ? 1 / options.refunded : Number.POSITIVE_INFINITY
  let paidSoFar = 0
  await runBatch(
    seeded.entries(),
    async ([i, order]) => {
      const {mch_order_no, channel, total_fee, fee_type} = order
      await services.orders.create({
        channel,
        total_fee,
        fee_type,
        mch_order_no,
        product: `Seed order ${i + 1}`,
        madeBy: 'gw sandbox seed',
      })
      // Paid and refunded in even spreads: paid when the running count falls behind the share.
      const toPay = Math.floor((i + 1) / paidEvery) > Math.floor(i / paidEvery)
      if (!toPay && options.autoPaid) {
        // Closed before the sandbox pays it; when its payer was quicker, it is paid (and not refunded).
        await services.orders.close({mch_order_no}, channel).then(
          () => (order.closed = true),
          (error: unknown) => {
            // CANCEL_ERROR: the order is paid and cannot be closed.
            if (!(error instanceof GwError && error.details?.err_code === 'CANCEL_ERROR')) throw error
            order.paid = true
          },
        )
      }
      if (toPay) {
        await options.pay(mch_order_no)
        order.paid = true
        const nth = ++paidSoFar
        // Refunded only where the gateway answers refund queries, so reconcile can tell partly from fully.
        if (hasRefundQuery(channel) && Math.floor(nth / refundEvery) > Math.floor((nth - 1) / refundEvery)) {
          const found = await services.orders.find({mch_order_no}, channel)
          const planned = services.refunds.plan(
            {ref: {mch_order_no}, amount: {minor: Math.floor(total_fee / 4)}},
            found,
            0,
          )
          if (!('kind' in planned) && (await services.refunds.send(planned, 'sandbox seed')).status === 'refunded')
            order.refunded = planned.refund_fee
        }
      }
      options.tick()
    },
    {concurrency: 4},
  )
}

/** The files finance works from: the export (with three differences planted for reconcile) and the refunds to send. */
async function writeFiles(seeded: Seeded[], run: string, outDir: string) {
  const planted: SeedResult['planted'] = []
  const rows = seeded.map((order, i) => {
    const row = {
      mch_order_no: order.mch_order_no,
      amount: toDecimal(order.total_fee, order.fee_type),
      fee_type: order.fee_type,
      // The merchant's word: a partly refunded order is still paid to it.
      status: order.paid ? 'paid' : order.closed ? 'closed' : 'unpaid',
      channel: order.channel,
    }
    const line = i + 2
    // Three planted differences, at fixed places, for reconcile to find.
    if (i === 2) {
      row.amount = toDecimal(order.total_fee + (order.fee_type === 'JPY' ? 100 : 1000), order.fee_type)
      planted.push({line, mch_order_no: order.mch_order_no, difference: 'amount_mismatch'})
    } else if (i === 5 && order.paid) {
      row.status = 'unpaid'
      planted.push({line, mch_order_no: order.mch_order_no, difference: 'status_mismatch (a missed notification)'})
    }
    return row
  })
  const missing = `${run}-LOST`
  rows.push({mch_order_no: missing, amount: '99.00', fee_type: 'THB', status: 'paid', channel: 'wechat'})
  planted.push({line: rows.length + 1, mch_order_no: missing, difference: 'missing_at_gateway'})
  const exportFile = join(outDir, 'orders-export.csv')
  await writeTable(exportFile, ['mch_order_no', 'amount', 'fee_type', 'status', 'channel'] as const, rows, {
    sheet: 'orders',
  })
  // The refunds finance would send next: a tenth of each paid, unrefunded order but the last.
  const toRefund = seeded.filter((o) => o.paid && !o.refunded && o.channel !== 'promptpay')
  const refundRows = toRefund.map((o) => ({
    mch_order_no: o.mch_order_no,
    refund_amount: toDecimal(Math.max(1, Math.floor(o.total_fee / 10)), o.fee_type),
    reason: 'customer request',
  }))
  const refundsFile = join(outDir, 'refunds.csv')
  await writeTable(refundsFile, ['mch_order_no', 'refund_amount', 'reason'] as const, refundRows, {sheet: 'refunds'})
  return {export_file: exportFile, refunds_file: refundsFile, planted}
}
