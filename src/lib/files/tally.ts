/**
 * Summaries of a run: rows and amounts per group (a status or class, and a currency),
 * counted as the rows go by, so a streamed file need not be held. A row without an amount
 * (a skipped row, an unreadable one) is counted, never summed as zero.
 */

export interface TallyLine<G extends string> {
  group: G
  /** '?' when the row's currency is not known. */
  currency: string
  rows: number
  /** In minor units of the currency; undefined when no row of the line has an amount. */
  amount?: number
}

export class Tally<G extends string> {
  readonly #lines = new Map<string, TallyLine<G>>()

  add(group: G, currency: string | undefined, amount: number | undefined): void {
    const key = JSON.stringify([group, currency ?? '?'])
    const line = this.#lines.get(key) ?? {group, currency: currency ?? '?', rows: 0}
    line.rows += 1
    if (amount !== undefined) line.amount = (line.amount ?? 0) + amount
    this.#lines.set(key, line)
  }

  /** Lines in the order of `groups`, then by currency. */
  lines(groups: readonly G[]): TallyLine<G>[] {
    const rank = (line: TallyLine<G>) => groups.indexOf(line.group)
    return [...this.#lines.values()].sort((a, b) => rank(a) - rank(b) || a.currency.localeCompare(b.currency))
  }
}
