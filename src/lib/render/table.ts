/** Tables for people; --json output never goes through here. */
import Table from 'cli-table3'

export function table(head: string[], rows: (string | number)[][]): string {
  const t = new Table({head, style: {head: process.env.NO_COLOR || !process.stdout.isTTY ? [] : ['cyan'], border: []}})
  t.push(...rows.map((r) => r.map(String)))
  return t.toString()
}

/** "label: value" lines aligned on the colon; undefined values are left out. */
export function fields(entries: [string, string | number | undefined][]): string {
  const shown = entries.filter(([, v]) => v !== undefined && v !== '') as [string, string | number][]
  const width = Math.max(0, ...shown.map(([k]) => k.length))
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v}`).join('\n')
}
