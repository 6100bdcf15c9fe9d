/**
 * Where a run writes, checked before it starts (before any money moves, before a gateway is
 * asked): each output is a CSV or workbook name where one is written, can be written, is not
 * the input file or another output, and is not a folder, a device or a pipe (a report is
 * written beside and moved into place, which would replace a device's node).
 */
import {accessSync, constants, existsSync, realpathSync, statSync} from 'node:fs'
import {dirname, extname, resolve} from 'node:path'

import {usageError} from '../errors.js'

const real = (path: string) =>
  existsSync(path) ? realpathSync(path) : resolve(realpathSync(dirname(resolve(path))), path.split(/[\\/]/).pop()!)

/** A table output's name: a workbook (.xlsx) or CSV (.csv), the two gw writes; any other name is refused. */
export function checkTableName(flag: string, path: string): void {
  const extension = extname(path).toLowerCase()
  if (extension === '.csv' || extension === '.xlsx') return
  throw usageError(
    `${flag} ${path}: gw writes .xlsx workbooks and CSV files${extension ? `, not ${extension}` : ''}.`,
    'Name it .xlsx or .csv.',
  )
}

/**
 * `outputs`: what each output is called (its flag), its path, and whether it is a table (named
 * .csv or .xlsx). Throws a usage error naming the first that cannot be written.
 */
export function checkOutputs(
  input: string | undefined,
  outputs: {flag: string; path: string; table?: boolean}[],
): void {
  const seen = new Map<string, string>(input === undefined ? [] : [[realpathSync(input), 'the input file']])
  for (const {flag, path, table} of outputs) {
    if (/[\\/]$/.test(path)) throw usageError(`${flag} ${path} ends in a folder separator; give a file name.`)
    if (table) checkTableName(flag, path)
    const dir = dirname(resolve(path))
    if (!existsSync(dir)) throw usageError(`${flag} ${path}: the folder ${dir} does not exist.`)
    if (!statSync(dir).isDirectory()) throw usageError(`${flag} ${path}: ${dir} is not a folder.`)
    const where = real(path)
    const same = seen.get(where)
    if (same) throw usageError(`${flag} ${path} is ${same}; give it a path of its own.`, 'Nothing was sent.')
    seen.set(where, flag)
    if (existsSync(path)) {
      const stat = statSync(path)
      if (stat.isDirectory()) throw usageError(`${flag} ${path} is a folder; give a file name.`)
      if (!stat.isFile()) throw usageError(`${flag} ${path} is not a file (a device or a pipe); give a file name.`)
    }
    try {
      accessSync(existsSync(path) ? path : dir, constants.W_OK)
    } catch {
      throw usageError(
        `${flag} ${path} cannot be written here (no permission).`,
        'Give another path; nothing was sent.',
      )
    }
  }
}
