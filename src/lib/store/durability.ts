/**
 * How records reach the database. A single refund's intent and outcome are committed with a
 * synced write before the call returns. A bulk run's records (and the states queries show) are
 * committed together: those of a tenth of a second, or 512, in one transaction (one per refund
 * showed in a bulk run's CPU, bench/RESULTS.md); its journal is what makes each refund once, and what waits
 * is committed before any question and when the command ends.
 *
 * After a refund is sent, recording it never fails the command: when the database cannot take
 * the record (held by another program, a full disk), it is appended, synced, to history.jsonl
 * beside it, which no other program holds (never through a link in its place), merged the next
 * time the history opens; and the caller is told where it went, truthfully.
 */
import {BUSY_WAIT_MS, type LocalDatabase} from '../io/database.js'
import {LocalStateError} from '../io/database-errors.js'
import {appendSynced} from '../io/json-lines.js'
import {plural} from '../plural.js'
import type {GatewayIdentity} from './gateway.js'
import type {Entry} from './records.js'

/** A record waiting to be committed, for the gateway it belongs to. `credit`: see the refunds' CREDITED. */
export interface Pending {
  entry: Entry
  gateway: GatewayIdentity
  credit: boolean
}

/**
 * An order's state as a query or notification showed it, with what else it showed (the payer,
 * when it was paid, the channel's number of it), waiting to be recorded.
 */
export interface Seen {
  gateway: GatewayIdentity
  mchOrderNo: string
  state: string
  at: string
  facts: {by: 'query' | 'notification' | 'close'; openid?: string; time_end?: string; channel_order_no?: string}
}

/**
 * Where a record went: into the database; else (the database held or full) into history.jsonl,
 * which the next open merges (`later`); else nowhere this machine keeps (`lost`: the refund's
 * intent, in the history before it was sent, has the next run look it up).
 */
export type Recorded = {where: 'history'} | {where: 'later' | 'lost'; why: string; file: string}

/** What became of the records waiting when a run ended: those kept for later or lost, and why. */
export interface Settled {
  later: number
  lost: number
  why?: string
  file: string
}

/** The sentence for records put in history.jsonl or lost since `said` was told; undefined when there are none. */
export function keptSentence(database: string, kept: Settled, said: Settled = {later: 0, lost: 0, file: kept.file}) {
  const later = kept.later - said.later
  const lost = kept.lost - said.lost
  if (!later && !lost) return undefined
  const parts = [
    later ? `${plural(later, 'record')} went to ${kept.file} instead, merged the next time gw opens the history` : '',
    lost ? `${plural(lost, 'record')} could not be kept anywhere (the next run looks those refunds up)` : '',
  ].filter(Boolean)
  return `${database} could not take what this run recorded (${kept.why ?? 'not written'}): ${parts.join('; ')}.`
}

const GROUP_MS = 100
const GROUP_RECORDS = 512
/** Records waiting for a database held by another program, past which they go to history.jsonl (memory stays bounded). */
const SPILL_RECORDS = 4096

export interface CommitPorts {
  /** The database, opened. */
  db(): LocalDatabase
  save(pending: Pending): void
  /** A record as a line of history.jsonl (with its gateway). */
  line(pending: Pending): string
  /** What the states seen change: the records to commit (read in one transaction). */
  changes(seen: Seen[]): Pending[]
  /** Why the database refused a record, in words. */
  why(error: unknown): string
  warn?(message: string): void
}

export class GroupCommit {
  #pending: Pending[] = []
  /** Order states queries showed, by gateway and order number, looked up with the records waiting. */
  #seen = new Map<string, Seen>()
  #timer?: NodeJS.Timeout
  /** Records of this process put in history.jsonl, or lost, and the last reason: said when the run ends. */
  #kept: Settled
  /** What settle() has told its callers so far: the end says only what came after. */
  #said: Settled
  /** A background write has been refused: said once, not at every try. */
  #warned = false

  constructor(
    readonly jsonl: string,
    private readonly ports: CommitPorts,
  ) {
    this.#kept = {later: 0, lost: 0, file: jsonl}
    this.#said = {...this.#kept}
  }

  /** A record to commit with the others of a tenth of a second. Never throws (see #flushNow). */
  add(pending: Pending): void {
    this.#pending.push(pending)
    this.#waiting()
  }

  /** A state a query or notification showed: recorded with the records waiting, when it moves the order's. */
  see(seen: Seen): void {
    const {appid, base_url, key} = seen.gateway
    this.#seen.set(`${appid}\n${base_url}\n${key}\n${seen.mchOrderNo}`, seen)
    this.#waiting()
  }

  /**
   * Before a question: what waits is committed (`states`: the states seen too), so that answers
   * include it. Never waited for: while another program holds the database, a question is
   * answered from what is committed (readers never wait in WAL mode), and the records wait.
   */
  beforeQuestion(states: boolean): void {
    try {
      if (states) this.#flush(0)
      else if (this.#pending.length) this.#commit(0)
    } catch (error) {
      if (!(error instanceof LocalStateError) || error.problem !== 'busy') throw error
    }
  }

  /**
   * A record committed with a synced write before this returns, after what waits. `intent`: it
   * must be on disk before its refund is sent: throws (LocalStateError) when the database cannot
   * take it, and then the refund is not sent. Otherwise never throws: what the database cannot
   * take goes to history.jsonl, and the answer says where it went.
   */
  now(pending: Pending, options: {intent: boolean}): Recorded {
    if (options.intent) {
      this.#flush()
      this.ports.db().write(() => this.ports.save(pending), {durable: true})
      return {where: 'history'}
    }
    try {
      this.ports.db().write(() => this.ports.save(pending), {durable: true})
      return {where: 'history'}
    } catch (error) {
      // Whatever the database's trouble (held, full, not gw's any more): the record is kept beside it.
      const why = this.ports.why(error)
      try {
        appendSynced(this.jsonl, [this.ports.line(pending)])
        return {where: 'later', why, file: this.jsonl}
      } catch (failed) {
        const more = `${this.jsonl} could not be written either (${describeAppendFailure(failed)}).`
        return {where: 'lost', why: `${why} ${more}`, file: this.jsonl}
      }
    }
  }

  /**
   * Commits every record waiting, waiting a bounded time for another program; what the database
   * cannot take goes to history.jsonl. Says what went there or was lost (this process's, in all).
   * Never throws: it runs after refunds were sent.
   */
  settle(): Settled {
    try {
      this.#flush()
    } catch (error) {
      this.#seen.clear()
      if (this.#pending.length) this.#keepForLater(this.ports.why(error))
    }
    // Told to the caller, who says it: the end says only what comes after.
    this.#said = {...this.#kept}
    return {...this.#kept}
  }

  /** The sentence for what went to history.jsonl or was lost since it was last said (settling first). */
  settledSentence(database: string): string | undefined {
    const said = this.#said
    return keptSentence(database, this.settle(), said)
  }

  /** Something waits to be committed: with what a tenth of a second brings, or now when it is 512. */
  #waiting(): void {
    if (this.#pending.length + this.#seen.size >= GROUP_RECORDS) this.#flushNow()
    else this.#timer ??= setTimeout(() => this.#flushNow(), GROUP_MS).unref()
  }

  /**
   * Commits what waits without waiting for another program: a write that waited would stop
   * everything else in flight (answers would time out). Held, the records wait for the next try,
   * and beyond SPILL_RECORDS go to history.jsonl.
   */
  #flushNow(): void {
    try {
      this.#flush(0)
    } catch (error) {
      // Any refusal (held, full, a database changed under gw): this runs after refunds were sent, and never throws.
      const why = this.ports.why(error)
      if (!this.#warned) this.ports.warn?.(`${why} The records of this run wait until it is free.`)
      this.#warned = true
      if (this.#pending.length >= SPILL_RECORDS) this.#keepForLater(why)
      else this.#timer ??= setTimeout(() => this.#flushNow(), GROUP_MS * 10).unref()
    }
  }

  /** Commits the records waiting, in one transaction; then what the states seen change, in another. */
  #flush(waitMs = BUSY_WAIT_MS): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#pending.length) this.#commit(waitMs)
    if (!this.#seen.size) return
    const changed = this.ports.changes([...this.#seen.values()])
    this.#seen.clear()
    if (!changed.length) return
    this.#pending.push(...changed)
    this.#commit(waitMs)
  }

  #commit(waitMs = BUSY_WAIT_MS): void {
    const pending = this.#pending
    this.#pending = []
    try {
      this.ports.db().write(() => pending.forEach((p) => this.ports.save(p)), {waitMs})
    } catch (error) {
      this.#pending = [...pending, ...this.#pending]
      throw error
    }
  }

  /** The records waiting, appended to history.jsonl (merged next time), or counted as lost when even that fails. */
  #keepForLater(why: string): void {
    const pending = this.#pending
    this.#pending = []
    try {
      appendSynced(
        this.jsonl,
        pending.map((p) => this.ports.line(p)),
      )
      this.#kept.later += pending.length
    } catch (error) {
      this.#kept.lost += pending.length
      why = `${why} ${this.jsonl} could not be written either (${describeAppendFailure(error)}).`
    }
    this.#kept.why = why
  }
}

/** Why history.jsonl could not be appended to: a link in its place is said as that, never written through. */
function describeAppendFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ELOOP' ? 'it is a link, which gw never writes through' : (error as Error).message
}
