import {GwCommand} from '../lib/cli/base-command.js'
import {zoneFlag} from '../lib/cli/flags.js'
import {isoTime} from '../lib/gateway/protocol/index.js'
import type {HistoryReport} from '../lib/store/store.js'

export default class History extends GwCommand<typeof History> {
  static override summary = 'show what gw keeps of the orders and refunds made on this machine'
  static override description =
    'Where the local database is (in GW_CONFIG_DIR), its size, the earlier history.jsonl it imported, and per gateway (appid, base URL and gateway key) how many orders and refunds it holds, with the oldest and newest. Back it up with: sqlite3 PATH ".backup copy.db" (safe while gw runs).'
  static override examples = ['<%= config.bin %> history', '<%= config.bin %> history --json']
  static override flags = {zone: zoneFlag}

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
      const report: HistoryReport = {
        ...described,
        imported: described.imported && {...described.imported, at: local(described.imported.at)},
        gateways: described.gateways.map((g) => ({...g, oldest: local(g.oldest), newest: local(g.newest)})),
        adopted: described.adopted.map((a) => ({...a, at: local(a.at)})),
      }
      this.log(historyView(report))
      return report
    } finally {
      closeStore(store, this.showing)
    }
  }
}
