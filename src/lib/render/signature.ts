/** What `gw signature verify` says of each body it checked. */
import type {BodyVerdict} from '../gateway/verify-bodies.js'
import {shown} from '../untrusted.js'

/** One verdict for people. */
export function verdictLine(verdict: BodyVerdict, numbered: boolean): string {
  const where = numbered ? `line ${verdict.line}: ` : ''
  if (verdict.problem) return `${where}INVALID: ${verdict.problem}; nothing in it can be trusted.`
  const part = verdict.signed === 'data' ? '"data"' : 'the parameters'
  if (verdict.edited) {
    const {field, line, body} = verdict.edited
    const value = (v: unknown) => (v === undefined ? 'none' : shown(JSON.stringify(v), 80))
    return `${where}INVALID: the line's ${field} (${value(line)}) is not its signed body's (${value(body)}): the line was changed after it was logged; trust neither it nor what it says beside the body.`
  }
  return verdict.valid
    ? `${where}valid: the signature over ${part} verifies (${verdict.scheme}).`
    : [
        `${where}INVALID: the signature over ${part} does not verify with this key (${verdict.scheme}); do not trust this body.`,
        ...explained(verdict),
      ].join('\n')
}

/** Why it does not verify: the canonical string, the key, the likeliest cause (as the sandbox's log says it). */
function explained({explanation, scheme}: BodyVerdict): string[] {
  if (!explanation) return []
  return [
    `  canonical string: ${shown(explanation.canonical, 2000)}`,
    `  verified with the key of fingerprint ${explanation.fingerprint} (${scheme})`,
    `  likeliest cause: ${shown(explanation.cause ?? 'none of the usual ones; compare the canonical string above with the one that was signed', 400)}`,
  ]
}
