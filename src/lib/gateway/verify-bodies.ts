/**
 * What `gw signature verify` checks: one saved body (a response or notification, signed over
 * "data"; or request parameters with "sign"), or JSON lines of them, such as a notification
 * log, where a line holding the gateway's raw `body` is verified over that body.
 */
import type {KeyObject} from 'node:crypto'

import {usageError} from '../errors.js'
import {shown} from '../untrusted.js'
import {type SignScheme, type SignatureExplanation, canonicalString, explainSignature, verify} from './signing.js'
import {notificationFields} from './protocol/index.js'

export interface BodyVerdict {
  /** The line of a JSON-lines input (1 for a single body). */
  line: number
  valid: boolean
  signed?: 'data' | 'parameters'
  scheme: SignScheme
  canonical?: string
  /** Why the line could not be verified (not JSON, no sign). */
  problem?: string
  /** For a signature that does not verify: the likeliest cause (the sandbox's log says the same). */
  explanation?: SignatureExplanation
  /** A log line whose own fields (total_fee...) are not its signed body's: the first such field. */
  edited?: {field: string; line: unknown; body: unknown}
}

/** The first field a notification log line shows beside its body that is not the body's own. */
function editedField(logged: Record<string, unknown>, body: unknown): BodyVerdict['edited'] {
  const data = (body as {data?: unknown} | undefined)?.data
  const signed = notificationFields(data)
  for (const [field, value] of Object.entries(signed))
    if (field in logged && logged[field] !== value) return {field, line: logged[field], body: value}
  return undefined
}

function verifyObject(value: unknown, key: KeyObject, scheme: SignScheme, line: number): BodyVerdict {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return {line, valid: false, scheme, problem: 'not a JSON object'}
  const object = value as Record<string, unknown>
  // A notification log line: the body the gateway sent, as it sent it.
  if (typeof object.body === 'string' && 'verdict' in object) {
    let body: unknown
    try {
      body = JSON.parse(object.body)
    } catch {
      return {line, valid: false, scheme, problem: 'a log line whose body is not JSON'}
    }
    const verdict = verifyObject(body, key, scheme, line)
    const edited = verdict.valid ? editedField(object, body) : undefined
    return edited ? {...verdict, valid: false, edited} : verdict
  }
  if (typeof object.sign !== 'string')
    return {line, valid: false, scheme, problem: 'a body without a "sign" field to verify'}
  const hasData = typeof object.data === 'object' && object.data !== null
  const signedPart = (hasData ? object.data : object) as Record<string, unknown>
  const valid = verify(signedPart, object.sign, key, scheme)
  const explanation = valid ? {} : {explanation: explainSignature(signedPart, object.sign, key, scheme)}
  return {
    line,
    valid,
    signed: hasData ? 'data' : 'parameters',
    scheme,
    canonical: canonicalString(signedPart),
    ...explanation,
  }
}

/** One JSON body, else JSON lines; a single body that is not JSON is a usage error. */
export function verifyBodies(
  text: string,
  key: KeyObject,
  scheme: SignScheme,
): {single: boolean; verdicts: BodyVerdict[]} {
  const clean = text.replace(/^\uFEFF/, '')
  try {
    return {single: true, verdicts: [verifyObject(JSON.parse(clean), key, scheme, 1)]}
  } catch (error) {
    const lines = clean.split('\n')
    if (lines.filter((l) => l.trim()).length < 2)
      throw usageError(
        `The input is not JSON: ${shown((error as Error).message)}.`,
        'Save the body exactly as it was received.',
      )
    const verdicts = lines.flatMap((raw, i) => {
      if (!raw.trim()) return []
      try {
        return [verifyObject(JSON.parse(raw), key, scheme, i + 1)]
      } catch {
        return [{line: i + 1, valid: false, scheme, problem: 'not JSON'}]
      }
    })
    return {single: false, verdicts}
  }
}
