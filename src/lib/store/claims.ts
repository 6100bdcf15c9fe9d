/**
 * One refund of an order at a time, across processes: a claim row of the history taken in a
 * transaction, held by a lock the system holds for the claiming process (claims/RUN.lock beside
 * the history). A claim whose process has ended is taken over; a live one is refused, naming its
 * process.
 */
import {randomBytes} from 'node:crypto'
import {hostname} from 'node:os'
import {dirname, join} from 'node:path'

import type {LocalDatabase} from '../io/database.js'
import {LocalStateError} from '../io/database-errors.js'
import {type Lock, holdLock, isHeld, removeIfFree} from '../io/lock.js'
import {ensurePrivateDir} from '../io/private-file.js'
import type {Queries} from './queries/index.js'

/** Who holds an order's claim, for messages: a process of a host, since when. */
export interface ClaimHolder {
  pid: number
  host: string
  since: string
}

/**
 * A process's claims are held by one lock of its own (claims/RUN.lock beside the history), which
 * the system holds while the process lives: a claim whose run's lock is free was left by a process
 * that has ended (killed, or before a reboot), whatever its pid and wherever it ran; one whose
 * lock is held is live, whatever pid namespace or container it is in. Taken at the first claim of
 * the process, let go when its last claim is released.
 */
interface Run {
  name: string
  lock: Lock
  claims: number
}
const runs = new Map<string, Run>()

/** The lock of a run's claims, in the history's `folder`. */
const runFile = (folder: string, name: string) => join(folder, `${name}.lock`)

function joinRun(folder: string): Run {
  let run = runs.get(folder)
  if (!run) {
    const name = `${process.pid}-${randomBytes(6).toString('hex')}`
    run = {name, lock: holdLock(runFile(ensurePrivateDir(folder), name)), claims: 0}
    runs.set(folder, run)
  }
  run.claims += 1
  return run
}

function leaveRun(folder: string, run: Run): void {
  run.claims -= 1
  if (run.claims > 0 || runs.get(folder) !== run) return
  runs.delete(folder)
  run.lock.release()
}

/** An order another run is refunding, in a sentence. */
export const heldSentence = (mchOrderNo: string, held: ClaimHolder) =>
  `Order ${mchOrderNo} is being refunded by process ${held.pid} on ${held.host} (since ${held.since}).`

/** A refund of an order under way in this process: released when it ends. */
export interface OrderClaim {
  release(): void
}

/** What claiming needs of a gateway's history (history.ts). */
interface ClaimsCore {
  queries(states: boolean): Queries
  db(): LocalDatabase
  /** The id of this gateway's records; undefined when it has none yet, unless `create` (inside a write). */
  id(create: boolean): number | undefined
  /** The database: the claims' locks are in a folder beside it. */
  file: string
}

/**
 * The claims of many orders (a bulk run's), in one transaction: `refused` names the orders
 * another live process holds, with their holder; the others are this process's until released.
 */
export function claimOrders(
  core: ClaimsCore,
  mchOrderNos: Iterable<string>,
): {claim: OrderClaim; refused: Map<string, ClaimHolder>} {
  const q = core.queries(false)
  const folder = join(dirname(core.file), 'claims')
  const run = joinRun(folder)
  const mine = {pid: process.pid, host: hostname(), since: new Date().toISOString()}
  const db = core.db()
  const orders = [...new Set(mchOrderNos)]
  const refused = new Map<string, ClaimHolder>()
  const ended = new Set<string>()
  const taken: string[] = []
  let id!: number
  /**
   * Whether a live process holds the order's claim (its run's lock is held: then it is refused);
   * one of a process that has ended, or of an earlier gw (no run), is taken over.
   */
  const heldElsewhere = (gateway: number, mchOrderNo: string) => {
    const held = q.claims.of.get(gateway, mchOrderNo) as (ClaimHolder & {run: string | null}) | undefined
    if (held?.run && isHeld(runFile(folder, held.run))) {
      const {run: _run, ...holder} = held
      refused.set(mchOrderNo, holder)
    } else if (held?.run) ended.add(held.run)
    return refused.has(mchOrderNo)
  }
  try {
    db.write(() => {
      id = core.id(true)!
      for (const mchOrderNo of orders.filter((order) => !heldElsewhere(id, order))) {
        q.claims.take.run(id, mchOrderNo, mine.pid, mine.host, mine.since, run.name)
        taken.push(mchOrderNo)
      }
    })
  } catch (error) {
    if (!(error instanceof LocalStateError) || error.problem !== 'busy') {
      leaveRun(folder, run)
      throw error
    }
    // Held by another program: no run can take a claim now (a single refund's intent cannot be
    // written either); the claims of runs under way are read, and respected.
    const known = core.id(false)
    if (known !== undefined) for (const mchOrderNo of orders) heldElsewhere(known, mchOrderNo)
  }
  // The locks of ended runs whose claims were taken over: nothing holds or names them now.
  for (const name of ended) if (name !== run.name) removeIfFree(runFile(folder, name))
  if (!taken.length) leaveRun(folder, run)
  let released = !taken.length
  return {
    refused,
    claim: {
      // Never throws (it runs after refunds were sent): a claim left behind names this run, whose
      // lock the system lets go when the process ends, and is taken over by the next refund of the order.
      release: () => {
        if (released) return
        released = true
        try {
          db.write(() => {
            for (const mchOrderNo of taken) q.claims.release.run(id, mchOrderNo, run.name)
          })
        } catch (error) {
          if (!(error instanceof LocalStateError)) throw error
        } finally {
          leaveRun(folder, run)
        }
      },
    },
  }
}
