/**
 * What the gateway accepts beyond its API document, as its published SDKs show (docs/design.md,
 * The protocol): each departure is accepted with a named warning, or, under --strict, refused as the
 * document says. The method, the query string and the nonce are judged where the request is
 * read (operation.ts); the parameters here, after the signature.
 */
import {type Operation, type RequestProblem, knownFields} from '../lib/gateway/protocol/index.js'

/** Required parameters the published SDKs leave out, per operation, and what the sandbox then does. */
const MAY_BE_MISSING: Partial<Record<Operation, {fields: string[]; warning: string}>> = {
  order_query: {
    fields: ['channel'],
    warning: 'order_query without channel accepted (the order found by its number): the API document requires channel',
  },
  order_close: {
    fields: ['channel'],
    warning: 'order_close without channel accepted (the order found by its number): the API document requires channel',
  },
  refund_query: {
    fields: ['total_fee', 'fee_type', 'refund_fee'],
    warning:
      'refund_query with only the order and refund numbers accepted: the API document also requires total_fee, fee_type and refund_fee',
  },
}

const TIME_STAMP_FORMS: [RegExp, string][] = [
  [/^\d{13}$/, 'epoch milliseconds'],
  [/^\d{10}$/, 'epoch seconds'],
  [/^\d{14}./, '14 digits with more characters after them'],
]

interface Judged {
  /** The problems left to answer: those of the document, less the departures accepted. */
  problems: RequestProblem[]
  warnings: string[]
  /** Under --strict, a departure refused: its code and message. */
  refused?: {code: string; msg: string}
}

/** The request's parameters judged against the document: `problems` are checkRequest's. */
export function judgeParameters(
  operation: Operation,
  params: Readonly<Record<string, string>>,
  problems: RequestProblem[],
  strict: boolean,
): Judged {
  const warnings: string[] = []
  const tolerated = MAY_BE_MISSING[operation]
  const missing = problems.filter((p) => p.kind === 'missing' && tolerated?.fields.includes(p.field))
  let left = problems
  if (missing.length && !strict) {
    left = problems.filter((p) => !missing.includes(p))
    warnings.push(tolerated!.warning)
  }
  const stamp = params.time_stamp
  const form = stamp === undefined ? undefined : TIME_STAMP_FORMS.find(([pattern]) => pattern.test(stamp))?.[1]
  if (form && !left.some((p) => p.field === 'time_stamp')) {
    if (strict) {
      const msg = `time_stamp must be 14 digits yyyyMMddHHmmss (this one is ${form})`
      return {problems: left, warnings, refused: {code: 'GW_INVALID_PARAM', msg}}
    }
    warnings.push(`time_stamp as ${form} accepted: the API document says 14 digits yyyyMMddHHmmss`)
  }
  const known = knownFields(operation)
  const unknown = Object.keys(params).filter((name) => !known.includes(name))
  if (unknown.length)
    warnings.push(`parameters the API document does not name accepted (signed like the rest): ${unknown.join(', ')}`)
  return {problems: left, warnings}
}
