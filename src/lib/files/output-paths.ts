/**
 * Where a run writes, checked before it starts (before any money moves): each output can be
 * written, none is the input file or another output, and none is a folder.
 */
import {accessSync, constants, existsSync, realpathSync, statSync} from 'node:fs'
import {dirname, resolve} from 'node:path'

import {usageError} from '../errors.js'

const real = (path: string) =>
  existsSync(path) ? realpathSync(path) : resolve(realpathSync(dirname(resolve(path))), path.split(/[\\/]/).pop()!)

/** `outputs`: what each output is called (its flag) and its path. Throws a usage error naming the first that cannot be. */
export function checkOutputs(input: string, outputs: {flag: string; path: string}[]): void {
  const seen = new Map<string, string>([[realpathSync(input), 'the input file']])
  for (const {flag, path} of outputs) {
    const dir = dirname(resolve(path))
    if (!existsSync(dir)) throw usageError(`${flag} ${path}: the folder ${dir} does not exist.`)
    const where = real(path)
    const same = seen.get(where)
    if (same) throw usageError(`${flag} ${path} is ${same}; give it a path of its own.`, 'Nothing was sent.')
    seen.set(where, flag)
    if (existsSync(path) && statSync(path).isDirectory())
      throw usageError(`${flag} ${path} is a folder; give a file name.`)
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
