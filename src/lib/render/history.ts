import type {OutputForm} from '../io/streams.js'
import type {HistoryReport} from '../store/store.js'
import {table} from './table.js'
import {plural} from '../plural.js'
import {listCount} from './words.js'

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** `gw history` for people: where the database is, its size, and per gateway what it holds. */
export function historyView(report: HistoryReport, form: OutputForm): string {
  const lines = [`${report.database} (${mib(report.bytes)})`]
  if (report.imported) {
    const skipped = report.imported.skipped_lines.length
    lines.push(
      `imported once from an earlier history, ${plural(report.imported.lines, 'line')}${skipped ? ` (${skipped} not a record, skipped)` : ''}, kept as ${report.imported.file}`,
    )
  }
  for (const a of report.adopted)
    lines.push(
      `records from before gw recorded gateways (${plural(a.orders, 'order')}, ${plural(a.refunds, 'refund')}, ${plural(a.events, 'event')}) are ${a.base_url}'s: ${a.why}`,
    )
  if (!report.gateways.length) return [...lines, 'No orders or refunds made on this machine yet.'].join('\n')
  const rows = report.gateways.map((g) => [
    g.appid,
    g.base_url ? `${g.base_url} (key ${g.gateway_key!.slice(0, 11)}…)` : 'unknown*',
    String(g.orders),
    String(g.refunds),
    g.oldest,
    g.newest,
  ])
  const unattributed = report.gateways.some((g) => g.unattributed)
  return [
    ...lines,
    table(['appid', 'gateway', 'orders', 'refunds', 'oldest', 'newest'], rows, form),
    ...(report.gateways_total === undefined
      ? []
      : // --limit left gateways out: the ones shown are as many as it said.
        [listCount(rows.length, 'gateway', {total: report.gateways_total, inFile: false, limit: rows.length}, form)!]),
    ...(unattributed
      ? [
          '* made by an earlier gw, which did not record the gateway, and this machine knows more than one gateway of that appid (a test and a live profile): shown in lists and timelines, never used to settle, skip or refuse a refund.',
        ]
      : []),
  ].join('\n')
}
