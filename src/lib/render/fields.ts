/** "label: value" lines aligned on the colon; undefined and empty values are left out. */
export function fields(entries: [string, string | number | undefined][]): string {
  const shown = entries.filter(([, v]) => v !== undefined && v !== '') as [string, string | number][]
  const width = Math.max(0, ...shown.map(([k]) => k.length))
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v}`).join('\n')
}
