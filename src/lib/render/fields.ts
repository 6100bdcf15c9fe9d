/**
 * "label: value" lines aligned on the colon; undefined and empty values are left out. Values
 * often come from the gateway, so each is shown safely; the first line's value may be bold.
 */
import {bold} from './style.js'
import {shown} from '../untrusted.js'

export function fields(entries: [string, string | number | undefined][], options: {boldFirst?: boolean} = {}): string {
  const present = entries.filter(([, v]) => v !== undefined && v !== '') as [string, string | number][]
  const width = Math.max(0, ...present.map(([k]) => k.length))
  return present
    .map(([k, v], i) => {
      const value = shown(v, 400)
      return `${`${k}:`.padEnd(width + 1)} ${options.boldFirst && i === 0 ? bold(value) : value}`
    })
    .join('\n')
}
