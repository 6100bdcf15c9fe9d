/** What `gw signature verify` says of each body it checked. */
import type {BodyVerdict} from '../gateway/verify-bodies.js'

/** One verdict for people. */
export function verdictLine(verdict: BodyVerdict, numbered: boolean): string {
  const where = numbered ? `line ${verdict.line}: ` : ''
  if (verdict.problem) return `${where}INVALID: ${verdict.problem}; nothing in it can be trusted.`
  const part = verdict.signed === 'data' ? '"data"' : 'the parameters'
  return verdict.valid
    ? `${where}valid: the signature over ${part} verifies (${verdict.scheme}).`
    : `${where}INVALID: the signature over ${part} does not verify with this key (${verdict.scheme}); do not trust this body.`
}
