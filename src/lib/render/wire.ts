/**
 * --verbose: each attempt on the wire, on stderr, to compare with one's own integration: the
 * URL, the parameters, the canonical string that was signed, the signature (abbreviated), then
 * the HTTP status, the time taken and the raw answer. Nothing secret is in any of them.
 */
import type {WireEvent} from '../gateway/client.js'
import {shown} from '../untrusted.js'

const abbreviated = (hex: string) =>
  hex.length > 24 ? `${hex.slice(0, 12)}…${hex.slice(-8)} (${hex.length / 2} bytes)` : hex

export function wireLines(event: WireEvent): string {
  if (event.kind === 'request') {
    const params = Object.entries(event.params).map(([key, value]) => `${key}=${shown(value, 200)}`)
    return [
      `› ${event.operation} attempt ${event.attempt}: POST ${event.url}`,
      `  parameters: ${params.join(' ')}`,
      `  signed string: ${shown(event.canonical, 2000)}`,
      `  sign: ${abbreviated(event.sign)}`,
    ].join('\n')
  }
  const took = `${event.ms.toFixed(0)} ms`
  if (event.error)
    return `‹ ${event.operation} attempt ${event.attempt}: ${event.status ? `HTTP ${event.status}, ` : ''}${event.error} (${took})`
  return `‹ ${event.operation} attempt ${event.attempt}: HTTP ${event.status} in ${took}\n  ${shown(event.body, 4000)}`
}
