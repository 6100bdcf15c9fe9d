/**
 * Annotated output: every input row with its own columns, plus ours (a bulk refund's status,
 * reconcile's classification). One of ours that the input already has is filled in place.
 * Written row by row to a temporary file and moved into place on close: readers never see
 * half a file.
 */
import {once} from 'node:events'
import {createWriteStream, renameSync, rmSync} from 'node:fs'
import {basename, dirname, extname, join, resolve} from 'node:path'
import {pipeline} from 'node:stream/promises'

import {stringify} from 'csv-stringify'

import {temporaryBeside} from '../io/private-file.js'
import type {TableHeader} from './table.js'

type Cell = string | number | undefined

/**
 * A cell as text a spreadsheet will not run: text starting with =, +, -, @, a tab or a
 * carriage return is read as a formula by Excel and others, so it gets a leading ' (OWASP's
 * rule for CSV injection). gw's own numbers are written as they are.
 */
export function spreadsheetSafe(value: Cell): string {
  if (value === undefined) return ''
  if (typeof value === 'number') return String(value)
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
}

/** A file beside the input: `orders.csv` -> `orders.reconciled.csv` for suffix `.reconciled.csv`. */
export function besideInput(input: string, suffix: string): string {
  const absolute = resolve(input)
  return join(dirname(absolute), `${basename(absolute, extname(absolute))}${suffix}`)
}

export class AnnotatedWriter<C extends string> {
  readonly #temporary: string
  readonly #stringifier
  readonly #done: Promise<void>
  readonly #width: number
  /** For each of our columns, where it goes: an input column of the same name, or after the input's. */
  readonly #placement: [C, number][]

  constructor(
    readonly path: string,
    header: TableHeader,
    ours: readonly C[],
  ) {
    this.#width = header.names.length
    const extra = ours.filter((c) => !header.keys.includes(c))
    this.#placement = ours.map((c) => [
      c,
      header.keys.includes(c) ? header.keys.indexOf(c) : this.#width + extra.indexOf(c),
    ])
    this.#temporary = temporaryBeside(path)
    this.#stringifier = stringify({header: true, columns: [...header.names, ...extra], record_delimiter: 'unix'})
    this.#done = pipeline(this.#stringifier, createWriteStream(this.#temporary, {flags: 'wx', mode: 0o600}))
  }

  /** Resolves when the row is buffered; waits when the disk is slower than the rows. */
  async write(values: readonly string[], annotations: Partial<Record<C, Cell>>): Promise<void> {
    const cells: string[] = Array.from({length: this.#width}, (_, i) => spreadsheetSafe(values[i]))
    for (const [column, at] of this.#placement) cells[at] = spreadsheetSafe(annotations[column])
    if (!this.#stringifier.write(cells)) await once(this.#stringifier, 'drain')
  }

  async close(): Promise<void> {
    this.#stringifier.end()
    await this.#done
    renameSync(this.#temporary, this.path)
  }

  async abort(): Promise<void> {
    this.#stringifier.destroy()
    await this.#done.catch(() => {})
    rmSync(this.#temporary, {force: true})
  }
}
