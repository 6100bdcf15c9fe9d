/**
 * Step 3 of a bulk refund: each distinct order of the rows still to send is queried once.
 * An order whose query fails on the network is asked again in later rounds, so one flaky
 * answer does not stop a whole batch; one that is refused or unknown is a problem of its rows.
 */
import {runBatch} from '../../batch.js'
import {GwError} from '../../errors.js'
import {describeReference, orderKey} from '../../orders/reference.js'
import type {OrderReference} from '../../orders/reference.js'
import type {FoundOrder} from '../../orders/finding.js'
import {type RetryPolicy, linearBackoff, tries} from '../../retry.js'
import type {Problem, RefundRow, RowRequest} from './rows.js'

/** Rounds of order queries before a network failure stops the batch (each query retries within). */
const PREFLIGHT_ROUNDS: RetryPolicy = {tries: 3, delayMs: linearBackoff(500)}

/** The rows of one order. */
export interface OrderGroup {
  request: RowRequest
  rows: (RefundRow & {request: RowRequest})[]
}

export function groupByOrder(rows: (RefundRow & {request: RowRequest})[]): Map<string, OrderGroup> {
  const groups = new Map<string, OrderGroup>()
  for (const row of rows) {
    const key = orderKey(row.request.ref)
    const group = groups.get(key)
    if (group) group.rows.push(row)
    else groups.set(key, {request: row.request, rows: [row]})
  }
  return groups
}

/** How the checks run: their pace, the signal that stops them (Ctrl-C), and a tick per order checked. */
export interface CheckPace {
  concurrency: number
  signal: AbortSignal
  tick(problem: boolean): void
}

/** The orders as the gateway shows them, by their groups' keys, and the rows whose order cannot be used. */
export interface Preflighted {
  found: Map<string, FoundOrder>
  problems: Problem[]
}

export async function preflight(
  groups: Map<string, OrderGroup>,
  orders: {order(ref: OrderReference, channel?: string): Promise<FoundOrder>},
  pace: CheckPace,
): Promise<Preflighted> {
  const found = new Map<string, FoundOrder>()
  const problems: Problem[] = []
  const ofRows = (group: OrderGroup, message: string) => {
    for (const row of group.rows) problems.push({line: row.line, message})
    pace.tick(true)
  }
  let waiting = [...groups.entries()]
  for await (const round of tries(PREFLIGHT_ROUNDS)) {
    const failed: [string, OrderGroup][] = []
    let lastFailure: GwError | undefined
    await runBatch(
      waiting,
      async ([key, group]) => {
        const channels = [...new Set(group.rows.map((r) => r.request.channel).filter(Boolean))]
        if (channels.length > 1) {
          const order = describeReference(group.request.ref)
          return ofRows(group, `the rows of order ${order} name different channels (${channels.join(', ')})`)
        }
        try {
          found.set(key, await orders.order(group.request.ref, channels[0]))
          pace.tick(false)
        } catch (error) {
          if (!(error instanceof GwError)) throw error
          if (error.kind === 'refused' || error.kind === 'usage') return ofRows(group, error.message)
          failed.push([key, group])
          lastFailure = error
        }
      },
      pace,
    )
    if (pace.signal.aborted) break
    if (failed.length && round === PREFLIGHT_ROUNDS.tries) throw lastFailure
    waiting = failed
    if (!waiting.length) break
  }
  return {found, problems}
}
