/**
 * The outputs of a list (gw order list, gw refund list) fed as its items come from the history's
 * query, so a year of history is never in memory: --json's one document written an item at a
 * time, and what --refresh could not ask counted on the way.
 */
import type {Writable} from 'node:stream'

import {type Outcome, gravest} from '../errors.js'
import {JSON_CHUNK, jsonPieces} from '../io/json-text.js'
import {REFRESH_OUTCOME} from '../orders/list.js'

/**
 * The --json document `{"KEY": [items...]}` exactly as JSON.stringify(document, null, 2) writes
 * it (io/json-text's pieces), written an item at a time as the items come, each awaited: a list
 * whose items are asked about first (--refresh) cannot be a lazy list of writeJson, and a slow
 * reader of stdout slows the list.
 */
export class JsonListWriter {
  #pending: string
  #items = 0
  #written = false

  constructor(
    key: string,
    readonly out: NodeJS.WritableStream,
  ) {
    this.#pending = `{\n  ${JSON.stringify(key)}: [`
  }

  /** Whether any of the document reached stdout (an error then ends this document instead of writing its own). */
  get started(): boolean {
    return this.#written
  }

  async add(item: unknown): Promise<void> {
    this.#pending += `${this.#items++ ? ',' : ''}\n    ${indented(item, '    ')}`
    if (this.#pending.length >= JSON_CHUNK) await this.#write()
  }

  /** Ends the array and the document; `more` (an error met after items were written) as its last members. */
  async end(more: Record<string, unknown> = {}): Promise<void> {
    this.#pending += this.#items ? '\n  ]' : ']'
    for (const [key, value] of Object.entries(more))
      this.#pending += `,\n  ${JSON.stringify(key)}: ${indented(value, '  ')}`
    this.#pending += '\n}\n'
    await this.#write()
  }

  async #write(): Promise<void> {
    const chunk = this.#pending
    this.#pending = ''
    this.#written = true
    // A reader gone (| head: EPIPE) is no failure of the work, as oclif takes it: the rest is not written.
    if ((this.out as Writable).destroyed) return
    if (!this.out.write(chunk)) await drainedOrGone(this.out)
  }
}

/** Resolves once `out` has taken what it was given, or cannot take more (its reader went away). */
function drainedOrGone(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'error']) out.off(event, done)
      resolve()
    }
    for (const event of ['drain', 'close', 'error']) out.on(event, done)
  })
}

/** A value as JSON.stringify(value, null, 2) writes it nested at `indent`. */
const indented = (value: unknown, indent: string) => [...jsonPieces(value, indent)].join('')

/** What --refresh could not ask about, counted over the listed items as they go by. */
export class RefreshTally {
  listed = 0
  failed = 0
  firstFailure?: string
  skipped = 0
  readonly skippedWhy = new Set<string>()

  /** How the failures end the list: the gravest (an answer that failed verification over one not reached). */
  outcome?: Outcome

  add(item: {refresh_failed?: string; refresh_skipped?: string; [REFRESH_OUTCOME]?: Outcome}): void {
    this.listed += 1
    if (item.refresh_failed !== undefined) {
      this.failed += 1
      this.firstFailure ??= item.refresh_failed
      this.outcome = gravest([this.outcome ?? 'done', item[REFRESH_OUTCOME] ?? 'transport'])
    }
    if (item.refresh_skipped !== undefined) {
      this.skipped += 1
      this.skippedWhy.add(item.refresh_skipped)
    }
  }
}
