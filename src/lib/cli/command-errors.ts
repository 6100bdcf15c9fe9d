/**
 * Any error that ends a command, as the one error model (GwError: a kind, its exit code, advice):
 * a flag's own check, oclif's parsing errors (an unknown flag with "did you mean", never its value),
 * a key that is not one, a local write that failed, else an unexpected failure.
 */
import {Errors} from '@oclif/core'
import {closest, distance} from 'fastest-levenshtein'

import {GwError, localWriteFailure} from '../errors.js'
import {KeyError} from '../gateway/signing.js'
import {withoutKeys} from '../untrusted.js'

/**
 * "Did you mean --amount?" for each flag oclif does not know: the command's flag a typo away
 * (by its name or an alias), else the one sharing a word with it (--from-file: --from-csv, whose
 * alias is --file). `flags`: each flag's name, then its aliases.
 */
function flagSuggestions(message: string, flags: readonly (readonly string[])[]): string | undefined {
  const typed = /Nonexistent flags?: (.+)/.exec(message)?.[1]?.split(/,\s*/) ?? []
  const mainOf = new Map(flags.flatMap((names) => names.map((name) => [name, names[0]!] as const)))
  const known = [...mainOf.keys()]
  const near = typed.flatMap((flag) => {
    const name = flag.replace(/^-+/, '').split('=')[0]!
    const best = closest(name, known)
    if (best && distance(name, best) <= Math.max(2, Math.floor(best.length / 3))) return [`--${mainOf.get(best)}`]
    // The flag whose names share the most words with the one typed.
    const words = new Set(name.split('-').filter((word) => word.length >= 4))
    const shared = flags.map((names) => ({
      flag: `--${names[0]}`,
      words: new Set(names.flatMap((other) => other.split('-')).filter((word) => words.has(word))).size,
    }))
    const most = Math.max(0, ...shared.map((f) => f.words))
    return most ? shared.filter((f) => f.words === most).map((f) => f.flag) : []
  })
  return near.length ? `Did you mean ${[...new Set(near)].join(', ')}?` : undefined
}

/** oclif's wording of a flag whose own check failed: "Parsing --flag \n\t<the check's message>\nSee more help…". */
const FLAG_CHECK = /^Parsing (--\S+)\s*\n\t([\s\S]*?)(?:\nSee more help with --help)?$/

export function toGwError(error: Error, flagNames: readonly (readonly string[])[]): GwError {
  // A flag's check failed (its value: a share out of range, a folder that is not one): the flag's problem, exit 2.
  const check = FLAG_CHECK.exec(error.message)
  if (check)
    return new GwError('usage', `${check[1]}: ${check[2]}.`, {
      advice: error instanceof GwError && error.advice ? error.advice : 'See the command and its examples with --help.',
    })
  if (error instanceof GwError) return error
  // A key that is not a key is the profile's or the flag's problem; the message never holds key material.
  if (error instanceof KeyError) return new GwError('usage', `The key is ${error.message}.`, {advice: error.advice})
  // oclif's own errors come from parsing the command line: flags, arguments, options.
  if (error instanceof Errors.CLIError) {
    // An unknown flag is named without the value typed with it (which may be anything, a key too).
    const message = withoutKeys(error.message)
      .replace(/\nSee more help with --help$/, '')
      .replace(
        /^(Nonexistent flags?: )(.+)$/m,
        (_, label: string, flags: string) =>
          label +
          flags
            .split(/,\s*/)
            .map((flag) => flag.split('=')[0])
            .join(', '),
      )
    const suggestion = flagSuggestions(message, flagNames)
    return new GwError('usage', message, {
      advice: `${suggestion ? `${suggestion} ` : ''}See the command and its examples with --help.`,
    })
  }
  const local = localWriteFailure(error)
  if (local) return local
  return new GwError('transport', `unexpected failure: ${error.message}`, {
    advice: 'Run again with DEBUG=1 for details, and report it if it persists.',
  })
}
