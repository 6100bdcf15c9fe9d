/**
 * A command gw does not have: said with spaces as it was typed, never as oclif's inner
 * `ordr:query:INV-1`, with the closest command when there is one (its arguments kept), and
 * exit 2 (bad usage). Nothing is run on a guess: a payment tool asks to be told.
 */
import type {Hook} from '@oclif/core'
import {distance} from 'fastest-levenshtein'

import {red} from '../render/style.js'
import {shown} from '../untrusted.js'

/** The closest command to the first words typed: [command id, how many words it replaces], or undefined. */
export function closestCommand(words: readonly string[], commands: readonly string[]): [string, number] | undefined {
  let best: {id: string; used: number; cost: number} | undefined
  for (const id of commands) {
    const parts = id.split(':')
    if (parts.length > words.length) continue
    const typed = words.slice(0, parts.length).join(' ')
    const cost = distance(typed, parts.join(' '))
    // A suggestion is a near miss: a typo or two, never a different word.
    if (cost > Math.max(1, Math.floor(parts.join(' ').length / 3))) continue
    if (!best || cost < best.cost || (cost === best.cost && parts.length > best.used))
      best = {id, used: parts.length, cost}
  }
  return best && [best.id, best.used]
}

/**
 * Says that `words` name nothing gw has, `what` naming what they should have been, with the
 * closest of `known` to paste (after `before`: `gw help …`), on stderr, and under --json as the
 * error document on stdout. The caller exits 2.
 */
export function sayNotFound(
  words: readonly string[],
  known: readonly string[],
  bin: string,
  what: string,
  before = '',
) {
  const found = closestCommand(words, known)
  const typed = shown(words.join(' '), 80)
  const suggestion = found
    ? `Did you mean: ${bin} ${before}${[...found[0].split(':'), ...words.slice(found[1])].join(' ')}`
    : `See the commands with: ${bin} help`
  const message = `"${typed}" is not a ${bin} ${what}.`
  // Under --json, stdout still holds one JSON document: the error, as every command gives it.
  if (words.includes('--json')) {
    const error = {kind: 'usage', exit_code: 2, message, advice: shown(suggestion, 200)}
    process.stdout.write(`${JSON.stringify({error}, null, 2)}\n`)
  }
  process.stderr.write(`${red('Error', process.stderr)}: ${message}\n${shown(suggestion, 200)}\n`)
}

const hook: Hook.CommandNotFound = async function (options) {
  const words = [...options.id.split(':'), ...(options.argv ?? [])]
  // gw's own flags too: `gw --verison` is a near miss of --version.
  const visible = [...options.config.commands.filter((c) => !c.hidden).map((c) => c.id), '--version', '--help']
  sayNotFound(words, visible, options.config.bin, 'command')
  this.exit(2)
}

export default hook
