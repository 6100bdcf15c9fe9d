/**
 * gw signature sign's parameters: --param KEY=VALUE, over those of --params-file (a JSON object, or
 * standard input with -), refused when none is given.
 */
import {readFileSync} from 'node:fs'

import {usageError} from '../../lib/errors.js'
import {type StandardInput, standardInputText} from '../../lib/io/standard-input.js'

export function paramsOf(pairs: readonly string[], file: string | undefined, stdin: StandardInput) {
  const params: Record<string, unknown> = file ? readParams(file, stdin) : {}
  for (const pair of pairs) {
    const at = pair.indexOf('=')
    if (at <= 0) throw usageError(`--param "${pair}" must be KEY=VALUE.`)
    params[pair.slice(0, at)] = pair.slice(at + 1)
  }
  if (Object.keys(params).length === 0)
    throw usageError('Give parameters with --param KEY=VALUE or --params-file FILE.')
  return params
}

function readParams(file: string, stdin: StandardInput): Record<string, unknown> {
  // Standard input's own refusals are said as they are, not as this file's.
  const given = file === '-' ? standardInputText(stdin, '--params-file') : undefined
  try {
    const parsed = JSON.parse(given ?? readFileSync(file, 'utf8')) as unknown
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object')
    return parsed as Record<string, unknown>
  } catch (error) {
    // The parser's own words quote the text it read, which may be a key given in the wrong place.
    const why = error instanceof SyntaxError ? 'it is not JSON' : (error as Error).message
    throw usageError(`--params-file ${file}: ${why}.`)
  }
}
