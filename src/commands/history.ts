import {Flags} from '@oclif/core'

import {GwCommand} from '../lib/cli/base-command.js'
import {zoneFlag} from '../lib/cli/flags.js'
import {isoTime} from '../lib/gateway/protocol/index.js'
import {formOf} from '../lib/io/streams.js'
import type {HistoryReport} from '../lib/store/store.js'

export default class History extends GwCommand<typeof History> {
  static override summary = 'show what gw keeps of the orders and refunds made on this machine'
  static override description =
    'Where the local database is (in GW_CONFIG_DIR), its size, the earlier history.jsonl it imported, and per gateway (appid, base URL and gateway key) how many orders and refunds it holds, with the oldest and newest. Back it up with: sqlite3 PATH ".backup copy.db" (safe while gw runs).'
  static override examples = [
    '<%= config.bin %> history',
    '<%= config.bin %> history --limit 3',
    '<%= config.bin %> history --json',
  ]

  static override flags = {
    zone: zoneFlag,
    limit: Flags.integer({
      description: 'at most this many gateways, those with the newest records: on the screen and in --json alike',
      min: 1,
    }),
  }

  async run(): Promise<HistoryReport> {
    const [factory, {closeStore}, {historyView}] = await Promise.all([
      this.serviceFactory(),
      import('../lib/cli/services.js'),
      import('../lib/render/history.js'),
    ])
    const store = factory.store(this.io, this.showing)
    try {
      const described = store.describe()
      // The history keeps UTC instants; gw says times one way everywhere: ISO 8601 to the second with the offset.
      const local = (at: string) => isoTime(new Date(at))
      const {gateways, gateways_total} = newestGateways(described.gateways, this.flags.limit)
      const report: HistoryReport = {
        ...described,
        imported: described.imported && {...described.imported, at: local(described.imported.at)},
        gateways: gateways.map((g) => ({...g, oldest: local(g.oldest), newest: local(g.newest)})),
        ...(gateways_total === undefined ? {} : {gateways_total}),
        adopted: described.adopted.map((a) => ({...a, at: local(a.at)})),
      }
      this.log(historyView(report, formOf(this.io.stdout)))
      return report
    } finally {
      closeStore(store, this.showing)
    }
  }
}

/** --limit: the `limit` gateways whose newest record is newest, in the history's order, and how many there are. */
function newestGateways(
  gateways: HistoryReport['gateways'],
  limit: number | undefined,
): Pick<HistoryReport, 'gateways' | 'gateways_total'> {
  if (limit === undefined || gateways.length <= limit) return {gateways}
  // Of two as new, the later in the history's order.
  const newestFirst = gateways
    .map((g, at) => ({g, at, ms: Date.parse(g.newest)}))
    .sort((a, b) => b.ms - a.ms || b.at - a.at)
  const kept = new Set(newestFirst.slice(0, limit).map(({g}) => g))
  return {gateways: gateways.filter((g) => kept.has(g)), gateways_total: gateways.length}
}
