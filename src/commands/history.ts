import {GwCommand} from '../lib/cli/base-command.js'
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
    const report = openHistory(
      (message) => this.warning(message),
      (message) => this.note(message),
    ).describe()
    this.log(historyView(report))
    return report
  }
}
