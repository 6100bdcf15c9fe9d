/**
 * The ranges of a sheet's conditional formats indexed by the lines they cover, so that each row
 * asks only the rules that can format it.
 */
/** A range of lines (1-based) and columns (0-based), as a rule covers them. */
interface Range {
  top: number
  bottom: number
  left: number
  right: number
}

/** A rule's range, with the rule and its place among the sheet's rules (the first listed formats a cell first). */
interface RangeEntry<R> {
  rule: R
  range: Range
  order: number
}

/** Lines a bucket of the index covers; a range over more buckets than BUCKETS_AT_MOST is asked on every row. */
const BUCKET_LINES = 256
const BUCKETS_AT_MOST = 8

/**
 * The rules' ranges by the lines they cover: a sheet whose rule was copied row by row holds
 * thousands of one-row ranges, and each row asks only the few that cover it (not every range of
 * the sheet: 20,000 of them made each row 21 ms).
 */
class RangeIndex<R extends {ranges: readonly Range[]}> {
  readonly #everywhere: RangeEntry<R>[] = []
  readonly #buckets = new Map<number, RangeEntry<R>[]>()

  constructor(rules: readonly R[]) {
    let order = 0
    for (const rule of rules)
      for (const range of rule.ranges) {
        const entry = {rule, range, order: order++}
        const [first, last] = [Math.floor(range.top / BUCKET_LINES), Math.floor(range.bottom / BUCKET_LINES)]
        if (last - first >= BUCKETS_AT_MOST) this.#everywhere.push(entry)
        else
          for (let bucket = first; bucket <= last; bucket++) {
            const entries = this.#buckets.get(bucket) ?? []
            entries.push(entry)
            this.#buckets.set(bucket, entries)
          }
      }
  }

  /** The ranges covering `line`, in the rules' order. */
  covering(line: number): RangeEntry<R>[] {
    const bucket = this.#buckets.get(Math.floor(line / BUCKET_LINES)) ?? []
    const entries = [...this.#everywhere, ...bucket].filter(({range}) => line >= range.top && line <= range.bottom)
    return bucket.length && this.#everywhere.length ? entries.sort((a, b) => a.order - b.order) : entries
  }
}

/** Each sheet's rules indexed once (the reader passes the same array for every row). */
const indexes = new WeakMap<readonly object[], RangeIndex<{ranges: readonly Range[]}>>()
export function indexOf<R extends {ranges: readonly Range[]}>(rules: readonly R[]): RangeIndex<R> {
  let index = indexes.get(rules) as RangeIndex<R> | undefined
  if (!index) indexes.set(rules, (index = new RangeIndex(rules)))
  return index
}
