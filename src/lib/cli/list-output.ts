/**
 * The outputs of a list (gw order list, gw refund list) fed as its items come from the history's
 * query, so a year of history is never in memory: --json's one document written an item at a
 * time, and what --refresh could not ask counted on the way.
 */
import type {Writable} from 'node:stream'

import {type Outcome, gravest, outcomeOfSignal} from '../errors.js'
import type {Cell} from '../files/cells.js'
import {JSON_CHUNK, jsonPieces} from '../io/json-text.js'
import {type OutputForm, formOf} from '../io/streams.js'
import {type ListFilter, REFRESH_OUTCOME} from '../orders/list.js'
import type {ListCounted, ListView} from '../render/words.js'
import {fileShown, shown} from '../untrusted.js'
import type {Showing} from './command-ports.js'
import {listFilterOf} from './flags.js'
import {onInterrupt} from './interrupt.js'

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

/**
 * How many rows of a list stdout shows: a table of hundreds of thousands of rows helps no one
 * at a terminal (and cli-table3 lays out every row before printing any), so beyond this the
 * first ones and how many, and where all of them are: --out FILE or --json.
 */
const LIST_SHOWN = 1000
/** With --out, the file holds them all: stdout shows the first few. */
const LIST_SHOWN_WITH_FILE = 200

/** An item of a list, marked when --refresh could not ask the gateway about it. */
export type RefreshMarks = Parameters<RefreshTally['add']>[0]

/** How a list is written: what its items are called (its --json key too), its file's columns, its text view. */
export interface ListShape<T, C extends string> {
  what: string
  file: {columns: readonly C[]; row: (item: T) => Partial<Record<C, Cell>>; sheet: string}
  /** The first items shown, with how many there are, as a table on a terminal or lines in a pipe (render/table's `listed`). */
  view: (shown: T[], counted: ListCounted, form: OutputForm) => ListView
}

/** The history's query of a list: each item given to `emit`, as the filter selects them. */
export type ListQuery<T> = (
  emit: (item: T) => Promise<void>,
  filter: ListFilter,
) => Promise<{stopped: boolean; total: number}>

/** What a list needs of the command showing it. */
interface ListCommand {
  flags: Parameters<typeof listFilterOf>[0] & {bom?: boolean}
  showing: Showing
  startJsonList(key: string): Promise<JsonListWriter>
  endJsonList(more: Record<string, unknown>): Promise<void>
  present(view: {text?: string; notes?: string[]}): void
  setOutcome(outcome: Outcome): void
}

/**
 * A list from the history's query, each item to every output as it comes (a year of history
 * never sits whole in memory): --json's document written an item at a time, --out's file a
 * row at a time, and on stdout a table of the first rows with how many there are (all of them
 * are in the file or --json). After a --refresh, what could not be asked is said. Ctrl-C ends
 * the list where it is: --json's document still closes (with `stopped_by`), no half file is put in place.
 */
export async function showList<T extends RefreshMarks, C extends string>(
  command: ListCommand,
  shape: ListShape<T, C>,
  list: ListQuery<T>,
): Promise<void> {
  const {flags, showing} = command
  const filter = listFilterOf(flags)
  const {openTable} = await import('../files/annotated-output.js')
  const json = showing.json ? await command.startJsonList(shape.what) : undefined
  const {columns, row, sheet} = shape.file
  const file = flags.out ? await openTable(flags.out, columns, {sheet, bom: flags.bom}) : undefined
  const asked = flags.limit
  const limit = Math.min(file ? LIST_SHOWN_WITH_FILE : LIST_SHOWN, asked ?? Infinity)
  const shown: T[] = []
  const tally = new RefreshTally()
  const interrupt = onInterrupt(() => showing.note(`Stopping: the list ends with the ${shape.what} read so far.`))
  // Only a table on stdout needs no more than its first rows: the others are counted, not read.
  // --limit: every output holds the newest so many (the rest are counted, not read).
  const first = json || file || flags.refresh ? asked : limit
  let stopped: boolean
  let total: number
  try {
    const emit = async (item: T) => {
      tally.add(item)
      if (!json && shown.length < limit) shown.push(item)
      await json?.add(item)
      await file?.write(row(item))
    }
    const pace = {...filter.pace, signal: interrupt.signal}
    ;({stopped, total} = await list(emit, {...filter, first, pace}))
  } catch (error) {
    await file?.abort()
    throw error
  } finally {
    interrupt.dispose()
  }
  const signal = stopped ? String(interrupt.signal.reason) : undefined
  if (file && signal) await file.abort()
  else if (file) {
    await file.close()
    showing.note(`written to ${fileShown(flags.out!)}`)
  }
  if (json) await command.endJsonList(signal ? {stopped_by: signal} : {})
  else {
    const counted = {total, inFile: Boolean(file && !signal), ...(asked === undefined ? {} : {limit: asked})}
    command.present(shape.view(shown, counted, formOf(showing.io.stdout)))
  }
  refreshFailures(command, tally, shape.what)
  if (signal) {
    if (file) showing.note(`Nothing was written to ${fileShown(flags.out!)}: the list was stopped.`)
    command.setOutcome(outcomeOfSignal(signal))
  }
}

/**
 * After a --refresh: those the gateway could not be asked about are said (their state is the
 * one known before), and the run ends with the exit code of their failures (3 for transport, 4
 * when an answer failed verification: the highest), so a script does not take old states for new ones.
 * Those on a channel without the query are said too, without failing: asking cannot help.
 */
function refreshFailures(command: ListCommand, tally: RefreshTally, what: string): void {
  if (tally.skipped)
    command.showing.note(
      `${tally.skipped} of ${tally.listed} ${what} keep the state gw knew, marked "as known": ${[...tally.skippedWhy].join('; ')}, so the gateway cannot be asked.`,
    )
  if (!tally.failed) return
  command.showing.warn(
    `${tally.failed} of ${tally.listed} ${what} could not be refreshed (${shown(tally.firstFailure?.replace(/\.$/, ''))}): their state is the one gw knew before, marked "not refreshed".`,
  )
  command.setOutcome(tally.outcome!)
}
