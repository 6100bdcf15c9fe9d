import {GwCommand} from '../lib/cli/base-command.js'
import {isoTime} from '../lib/gateway/protocol/index.js'
import type {HistoryReport} from '../lib/orders/history.js'

export default class History extends GwCommand<typeof History> {
  static override summary = 'show what gw keeps of the orders and refunds made on this machine'
  static override description =
    'Where the local database is (in GW_CONFIG_DIR), its size, the earlier history.jsonl it imported, and per appid how many orders and refunds it holds, with the oldest and newest. Back it up with: sqlite3 PATH ".backup copy.db" (safe while gw runs).'
  static override examples = ['<%= config.bin %> history', '<%= config.bin %> history --json']

  async run(): Promise<HistoryReport> {
    const [{openHistory}, {historyView}] = await Promise.all([
      import('../lib/cli/services.js'),
      import('../lib/render/history.js'),
    ])
    const described = openHistory(
      (message) => this.warning(message),
      (message) => this.note(message),
    ).describe()
    // The history keeps UTC instants; gw says times one way everywhere: ISO 8601 to the second with the offset.
    const local = (at: string) => isoTime(new Date(at))
    const report: HistoryReport = {
      ...described,
      imported: described.imported && {...described.imported, at: local(described.imported.at)},
      appids: described.appids.map((a) => ({...a, oldest: local(a.oldest), newest: local(a.newest)})),
    }
    this.log(historyView(report))
    return report
  }
}
