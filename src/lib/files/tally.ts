/**
 * Summaries of a run: rows and amounts per group (a status or class, and a currency),
 * counted as the rows go by, so a streamed file need not be held. A row without an amount
 * (a skipped row, an unreadable one) is counted, never summed as zero. Each amount is named
 * as docs/conventions.md names amounts: `refund_fee` in minor units, `refund_amount` the same as a
 * decimal in the currency.
 */
import {isCurrency, toDecimal} from '../gateway/protocol/index.js'

/** `refund_fee` -> `refund_amount`. */
type DecimalName<F extends string> = F extends `${infer P}_fee` ? `${P}_amount` : never

export type TallyLine<G extends string, F extends `${string}_fee`> = {
  group: G
  /** '?' when the row's currency is not known. */
  currency: string
  rows: number
} & {[K in F]?: number} & {[K in DecimalName<F>]?: string}

export class Tally<G extends string, F extends `${string}_fee`> {
  readonly #lines = new Map<string, {group: G; currency: string; rows: number; sums: Partial<Record<F, number>>}>()

  add(group: G, currency: string | undefined, amounts: Partial<Record<F, number | undefined>>): void {
    const key = JSON.stringify([group, currency ?? '?'])
    const line = this.#lines.get(key) ?? {
      group,
      currency: currency ?? '?',
      rows: 0,
      sums: {} as Partial<Record<F, number>>,
    }
    line.rows += 1
    for (const [field, amount] of Object.entries(amounts) as [F, number | undefined][])
      if (amount !== undefined) line.sums[field] = (line.sums[field] ?? 0) + amount
    this.#lines.set(key, line)
  }

  /** Lines in the order of `groups`, then by currency; each sum in minor units and as a decimal. */
  lines(groups: readonly G[]): TallyLine<G, F>[] {
    const rank = (line: {group: G}) => groups.indexOf(line.group)
    return [...this.#lines.values()]
      .sort((a, b) => rank(a) - rank(b) || a.currency.localeCompare(b.currency))
      .map(({group, currency, rows, sums}) => {
        const line: Record<string, unknown> = {group, currency, rows}
        for (const [field, minor] of Object.entries(sums) as [F, number][]) {
          line[field] = minor
          if (isCurrency(currency)) line[field.replace(/_fee$/, '_amount')] = toDecimal(minor, currency)
        }
        return line as TallyLine<G, F>
      })
  }
}
