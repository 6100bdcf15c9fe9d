import {Flags} from '@oclif/core'

import {GwCommand} from '../../lib/cli/base-command.js'
import {GwError, usageError} from '../../lib/errors.js'
import type {SeedResult} from '../../lib/render/sandbox.js'

const share = (name: string, fallback: number) =>
  Flags.custom<number>({
    description: `share of ${name}, 0 to 1`,
    default: fallback,
    parse: async (input) => {
      const value = Number(input)
      if (!(value >= 0 && value <= 1)) throw new Error(`${input} is not a share from 0 to 1`)
      return value
    },
  })()

export default class SandboxSeed extends GwCommand<typeof SandboxSeed> {
  static override summary = 'fill the sandbox with practice orders, and write files to reconcile and refund'
  static override description =
    "Makes orders through gw in the running sandbox (so gw's history knows them), across channels and currencies; pays a share of them as their payers would, and partly refunds a share of the paid ones (when the sandbox pays orders by itself, --auto-pay, the orders meant to stay unpaid are closed at once). Then writes, in --out-dir (made if missing), orders-export.csv (a merchant export of those orders with three planted differences for gw reconcile to find) and refunds.csv (refunds still to make, for gw refund create --from-csv). Only against gw sandbox, never a live profile."
  static override examples = [
    '<%= config.bin %> sandbox seed',
    '<%= config.bin %> sandbox seed --orders 200 --paid 0.9 --out-dir practice',
  ]
  static override flags = {
    orders: Flags.integer({description: 'orders to make', default: 40, min: 1, max: 10_000}),
    paid: share('paid', 0.75),
    refunded: share('refunded', 0.2),
    'out-dir': Flags.string({description: 'where to write the files (a folder, made if missing)', default: '.'}),
  }

  async run(): Promise<SeedResult> {
    const {flags, profile} = this
    if (profile.live) throw usageError(`Profile "${profile.name}" is live: seeding is for the sandbox only.`)
    const [{sandboxOf}, {practiceFolder, seedSandbox}, {seedView}] = await Promise.all([
      import('./control.run.js'),
      import('./seed.run.js'),
      import('../../lib/render/sandbox.js'),
    ])
    const outDir = practiceFolder(flags['out-dir'])
    // Only gw's sandbox: anything else is refused before an order is made.
    const sandbox = await sandboxOf(profile)
    const autoPaid = (await sandbox((control) => control.autoPay())) !== null
    const pay = async (mchOrderNo: string) => {
      const answer = await sandbox((control) => control.pay(mchOrderNo, {appid: profile.appid}))
      // Paid already: by the sandbox itself (--auto-pay), before its payer came.
      const paid = answer.status === 200 || (autoPaid && answer.body.order?.state === 'SUCCESS')
      if (!paid) throw new GwError('refused', answer.body.error ?? `HTTP ${answer.status}`)
    }
    const work = await this.longWork('seeding', flags.orders, 'stopping: finishing the orders in flight')
    let result
    try {
      result = await seedSandbox(await this.services(), {
        ...flags,
        outDir,
        autoPaid,
        pay,
        tick: () => work.progress.tick(false),
      })
    } finally {
      work.done()
    }
    this.log(seedView(result, profile))
    return result
  }
}
