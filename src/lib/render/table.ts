/** Tables for people; --json output never goes through here. */
import {createRequire} from 'node:module'

import type TableConstructor from 'cli-table3'

import {shown} from '../untrusted.js'

// Loaded on first use: commands that show no table do not pay for it at start.
let Table: typeof TableConstructor | undefined

export function table(head: string[], rows: (string | number)[][]): string {
  Table ??= createRequire(import.meta.url)('cli-table3') as typeof TableConstructor
  const t = new Table({head, style: {head: process.env.NO_COLOR || !process.stdout.isTTY ? [] : ['cyan'], border: []}})
  t.push(...rows.map((r) => r.map((cell) => shown(cell, 200))))
  return t.toString()
}
