/**
 * A command gw does not have: said with spaces as it was typed, never as oclif's inner
 * `ordr:query:INV-1`, with the closest command when there is one (its arguments kept), and
 * exit 2 (bad usage). Nothing is run on a guess: a payment tool asks to be told.
 */
import type {Hook} from '@oclif/core'
import {distance} from 'fastest-levenshtein'

import {red} from '../render/style.js'
import {shown} from '../untrusted.js'

/** A command as the hook sees it: its id, and whether it takes arguments (an order number, a file). */
export interface KnownCommand {
  id: string
  args: boolean
}

/** Words people use for looking one thing up, which gw calls query (gw order get INV-1: gw order query INV-1). */
const LOOKUP_WORDS = new Set(['get', 'show', 'view', 'find', 'lookup', 'info', 'status', 'list'])

/** Whether the words after a command's own are only flags: what a command taking no arguments accepts. */
const onlyFlags = (words: readonly string[]) => words.every((word) => word.startsWith('-'))

/**
 * The closest command to the first words typed that takes what follows them: [command id, how
 * many words it replaces], or undefined. A command that takes no arguments is never suggested
 * for words that give one (gw refund list INV-1001 is not "Did you mean: gw refund list INV-1001").
 */
export function closestCommand(
  words: readonly string[],
  commands: readonly (string | KnownCommand)[],
): [string, number] | undefined {
  let best: {id: string; used: number; cost: number} | undefined
  for (const command of commands) {
    const {id, args} = typeof command === 'string' ? {id: command, args: true} : command
    const parts = id.split(':')
    if (parts.length > words.length) continue
    if (!args && !onlyFlags(words.slice(parts.length))) continue
    const typed = words.slice(0, parts.length).join(' ')
    const cost = distance(typed, parts.join(' '))
    // A suggestion is a near miss: a typo or two, never a different word.
    if (cost > Math.max(1, Math.floor(parts.join(' ').length / 3))) continue
    if (!best || cost < best.cost || (cost === best.cost && parts.length > best.used))
      best = {id, used: parts.length, cost}
  }
  return best ? [best.id, best.used] : lookupOf(words, commands)
}

/** A topic and a word for looking up (get, show, list...): the topic's query, when it takes the number given. */
function lookupOf(
  words: readonly string[],
  commands: readonly (string | KnownCommand)[],
): [string, number] | undefined {
  const [topic, verb] = words
  const query = commands.find((c) => typeof c !== 'string' && c.id === `${topic}:query` && c.args)
  return query && verb && LOOKUP_WORDS.has(verb.toLowerCase()) ? [`${topic}:query`, 2] : undefined
}

/** The command the first words name exactly, when what follows is an argument it does not take. */
function takesNone(words: readonly string[], commands: readonly (string | KnownCommand)[]): string | undefined {
  const named = commands
    .filter((c): c is KnownCommand => typeof c !== 'string' && !c.args)
    .filter(({id}) => id.split(':').every((part, i) => words[i] === part))
    .sort((a, b) => b.id.length - a.id.length)[0]
  return named && !onlyFlags(words.slice(named.id.split(':').length)) ? named.id : undefined
}

/**
 * Says that `words` name nothing gw has, `what` naming what they should have been, with the
 * closest of `known` to paste (after `before`: `gw help …`), on stderr, and under --json as the
 * error document on stdout. The caller exits 2.
 */
export function sayNotFound(
  words: readonly string[],
  known: readonly (string | KnownCommand)[],
  bin: string,
  what: string,
  before = '',
) {
  // Words that name a command exactly, with an argument it does not take: another verb is no near miss of it.
  const exact = takesNone(words, known)
  const found = exact ? lookupOf(words, known) : closestCommand(words, known)
  const typed = shown(words.join(' '), 80)
  const suggestion = found
    ? `Did you mean: ${bin} ${before}${[...found[0].split(':'), ...words.slice(found[1])].join(' ')}`
    : exact
      ? `See what it takes: ${bin} ${exact.replaceAll(':', ' ')} --help`
      : `See the commands with: ${bin} help`
  const given = exact && words.slice(exact.split(':').length).filter((word) => !word.startsWith('-'))
  const message = given
    ? `${bin} ${exact!.replaceAll(':', ' ')} takes no arguments ("${shown(given.join(' '), 80)}" was given).`
    : `"${typed}" is not a ${bin} ${what}.`
  // Under --json, stdout still holds one JSON document: the error, as every command gives it.
  if (words.includes('--json')) {
    const error = {kind: 'usage', exit_code: 2, message, advice: shown(suggestion, 200)}
    process.stdout.write(`${JSON.stringify({error}, null, 2)}\n`)
  }
  process.stderr.write(`${red('Error', process.stderr)}: ${message}\n${shown(suggestion, 200)}\n`)
}

const hook: Hook.CommandNotFound = async function (options) {
  const words = [...options.id.split(':'), ...(options.argv ?? [])]
  const visible: (string | KnownCommand)[] = options.config.commands
    .filter((c) => !c.hidden)
    .map((c) => ({id: c.id, args: Object.keys(c.args ?? {}).length > 0}))
  // gw's own flags too: `gw --verison` is a near miss of --version.
  sayNotFound(words, [...visible, '--version', '--help'], options.config.bin, 'command')
  this.exit(2)
}

export default hook
