import type {HistoryReport} from '../orders/history.js'
import {table} from './table.js'
import {plural} from '../plural.js'

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** `gw history` for people: where the database is, its size, and per appid what it holds. */
export function historyView(report: HistoryReport): string {
  const lines = [`${report.database} (${mib(report.bytes)})`]
  if (report.imported) {
    const skipped = report.imported.skipped_lines.length
    lines.push(
      `imported once from an earlier history, ${plural(report.imported.lines, 'line')}${skipped ? ` (${skipped} not a record, skipped)` : ''}, kept as ${report.imported.file}`,
    )
  }
  if (!report.appids.length) return [...lines, 'No orders or refunds made on this machine yet.'].join('\n')
  const rows = report.appids.map((a) => [a.appid, String(a.orders), String(a.refunds), a.oldest, a.newest])
  return [...lines, table(['appid', 'orders', 'refunds', 'oldest', 'newest'], rows)].join('\n')
}
