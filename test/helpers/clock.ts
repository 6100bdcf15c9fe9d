import type {RetryClock} from '../../src/sandbox/notifier.js'

/**
 * A clock the test moves: timers set on it wait until the test runs them (`next`), and time stands
 * where the last one was due. A retry schedule on it is checked to the second, however busy the machine.
 */
export class ManualClock implements RetryClock {
  #now = Date.parse('2026-11-21T09:00:00Z')
  #timers = new Map<number, {at: number; run: () => void}>()
  #id = 0

  now(): number {
    return this.#now
  }

  setTimeout(run: () => void, ms: number): number {
    this.#timers.set(++this.#id, {at: this.#now + ms, run})
    return this.#id
  }

  clearTimeout(timer: unknown): void {
    this.#timers.delete(timer as number)
  }

  /** Timers set and not run yet. */
  get waiting(): number {
    return this.#timers.size
  }

  /** Moves time to the next timer due and runs it. */
  next(): void {
    const [id, timer] = [...this.#timers.entries()].sort(([, a], [, b]) => a.at - b.at)[0]!
    this.#timers.delete(id)
    this.#now = Math.max(this.#now, timer.at)
    timer.run()
  }
}
