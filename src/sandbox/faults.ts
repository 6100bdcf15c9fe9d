/**
 * Faults for testing clients, e.g. `drop-after-commit=0.05,http-500=0.05,latency=50-300ms`.
 * - drop-after-commit: the operation is applied, then the connection closes without an answer.
 * - http-500: nothing is applied; HTTP 500.
 * - code-nonzero: nothing is applied; envelope code 1 ("the call failed; resend").
 * - notsure: the operation is applied; the answer is result NOTSURE (SYSTEMERROR).
 * - bad-signature: the answer is correct but its signature is not.
 * - refund-processing: a refund is accepted as PROCESSING and answered TRADE_STATE_ERROR;
 *   it settles as SUCCESS 20 minutes later (divided by --time-scale).
 * - latency=MIN-MAXms: every answer waits that long.
 * A fault may be limited to one operation: `drop-after-commit=1@order_refund`, `latency=2000ms@refund`
 * (create, query, refund and close name native_pay, order_query, order_refund and order_close).
 */

import {OPERATIONS} from '../lib/gateway/protocol/index.js'

const FAULT_KINDS = [
  'drop-after-commit',
  'http-500',
  'code-nonzero',
  'notsure',
  'bad-signature',
  'refund-processing',
] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export interface Faults {
  rates: Partial<Record<FaultKind, {rate: number; operation?: string}>>
  latency?: {min: number; max: number; operation?: string}
}

export class FaultSpecError extends Error {}

/** Short names for operations in a spec: `latency=50-150ms@refund`. */
const OPERATION_ALIASES: Record<string, string> = {
  create: 'native_pay',
  pay: 'native_pay',
  query: 'order_query',
  refund: 'order_refund',
  close: 'order_close',
}

export function parseFaults(spec: string | undefined): Faults {
  const faults: Faults = {rates: {}}
  if (!spec?.trim()) return faults
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, value = ''] = part.split('=', 2).map((s) => s.trim()) as [string, string?]
    const [amount = '', named] = value.split('@', 2)
    const operation = named === undefined ? undefined : (OPERATION_ALIASES[named] ?? named)
    if (operation !== undefined && !(OPERATIONS as readonly string[]).includes(operation))
      throw new FaultSpecError(
        `fault ${name}=${value}: "${operation}" is not an operation (${OPERATIONS.join(', ')}; or ${Object.keys(OPERATION_ALIASES).join(', ')})`,
      )
    const only = operation ? {operation} : {}
    if (name === 'latency') {
      const match = /^(\d{1,6})(?:-(\d{1,6}))?ms$/.exec(amount)
      if (!match) throw new FaultSpecError(`latency "${value}" must look like 50-300ms (at most 999999ms)`)
      const min = Number(match[1])
      const max = Number(match[2] ?? match[1])
      if (max < min) throw new FaultSpecError(`latency "${value}": the maximum is below the minimum`)
      faults.latency = {min, max, ...only}
      continue
    }
    if (!(FAULT_KINDS as readonly string[]).includes(name))
      throw new FaultSpecError(`unknown fault "${name}"; known: ${FAULT_KINDS.join(', ')}, latency`)
    const rate = Number(amount)
    if (amount === '' || !Number.isFinite(rate) || rate < 0 || rate > 1)
      throw new FaultSpecError(`fault ${name}=${value}: the rate must be a number from 0 to 1`)
    faults.rates[name as FaultKind] = {rate, ...only}
  }
  return faults
}

/** The faults as a spec `parseFaults` reads back ('' for none): what `gw sandbox faults` shows. */
export function faultSpec(faults: Faults): string {
  const at = (operation?: string) => (operation ? `@${operation}` : '')
  const rates = Object.entries(faults.rates).map(([kind, f]) => `${kind}=${f.rate}${at(f.operation)}`)
  const {latency} = faults
  const wait = latency
    ? [
        `latency=${latency.min === latency.max ? latency.min : `${latency.min}-${latency.max}`}ms${at(latency.operation)}`,
      ]
    : []
  return [...rates, ...wait].join(',')
}

export function strikes(faults: Faults, kind: FaultKind, operation: string): boolean {
  const fault = faults.rates[kind]
  if (!fault || (fault.operation && fault.operation !== operation)) return false
  return fault.rate > 0 && Math.random() < fault.rate
}

/** How long the answer to `operation` waits, in ms. */
export function latencyOf(faults: Faults, operation: string): number {
  if (!faults.latency || (faults.latency.operation && faults.latency.operation !== operation)) return 0
  const {min, max} = faults.latency
  return min + Math.floor(Math.random() * (max - min + 1))
}
