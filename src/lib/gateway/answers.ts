/**
 * What one HTTP answer of the gateway means, without any I/O: the envelope read and its
 * signature checked, then the data classified as success, refusal or uncertain. The client
 * retries what this says was not processed; callers resolve what is uncertain by querying.
 */
import {GwError} from '../errors.js'
import {ANSWER_TIMEOUT, CONNECT_TIMEOUT} from '../io/http.js'
import {
  AMBIGUOUS_CODES,
  DEFAULT_GATEWAY_ZONE,
  DUPLICATE_CODES,
  ORDER_NUMBER_FIELDS,
  type Operation,
  RESPONSE_SCHEMAS,
  type ResponseData,
  envelopeSchema,
  explainError,
  inGatewayZone,
  lookupError,
} from './protocol/index.js'
import {shown} from '../untrusted.js'

export interface Success<O extends Operation> {
  status: 'success'
  data: ResponseData<O>
  attempts: number
  /** The envelope's time_stamp: the gateway's clock. */
  gatewayTime?: string
}

export interface Refusal {
  status: 'refused'
  code: string
  message: string
  /** The catalogue's meaning and advice, in one or two sentences. */
  explanation: string
  advice?: string
  attempts: number
  gatewayTime?: string
}

export interface Uncertain {
  status: 'uncertain'
  /** `bad_signature` and `not_about_request`: the last answers failed verification; nothing in them was used. */
  reason: 'notsure' | 'ambiguous_code' | 'duplicate_on_retry' | 'no_answer' | 'bad_signature' | 'not_about_request'
  code?: string
  message: string
  attempts: number
}

export type Answer<O extends Operation> = Success<O> | Refusal | Uncertain

/** An attempt that gave no usable answer. */
export interface AttemptFailure {
  kind: 'transport' | 'signature'
  message: string
  /** The request may have reached the gateway (anything but a failure to connect). */
  mayHaveArrived: boolean
  /** Trying again cannot help (the address speaks another protocol, its certificate is not trusted). */
  final?: boolean
  /** A signed answer about another request than this one (a replay, a proxy's mix-up). */
  mismatch?: boolean
  /** No connection to the gateway could be made (refused, unknown host, untrusted certificate...): nothing was sent. */
  unreached?: boolean
  /** The HTTP status of an answer that was not the gateway's (404: no operation at that path). */
  httpStatus?: number
}

/** A verified envelope: `code` 0 with its data, or another code (the call was not processed). */
export interface Envelope {
  code: number
  msg?: string
  time?: string
  /** The HTTP status it came with, for an envelope that is not code 0 (404: no operation at that path). */
  httpStatus?: number
  data: Record<string, unknown>
}

/** Reads an HTTP answer as the gateway's envelope; `verifies` checks the signature over `data`. */
export function readEnvelope(
  answer: {statusCode: number; text: string; url: string; operation: Operation; profile: string},
  verifies: (data: Record<string, unknown>, signature: string) => boolean,
): Envelope | AttemptFailure {
  const {statusCode, text, url, operation, profile} = answer
  const failure = (message: string): AttemptFailure => ({
    kind: 'transport',
    message,
    mayHaveArrived: true,
    httpStatus: statusCode,
  })
  if (statusCode >= 500) return failure(`the gateway answered HTTP ${statusCode}`)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return failure(`the answer from ${url} is not JSON (HTTP ${statusCode}: "${shown(text, 80)}")`)
  }
  const envelope = envelopeSchema.safeParse(json)
  if (!envelope.success) return failure(`the answer from ${url} is not the gateway's envelope (HTTP ${statusCode})`)
  const {code, msg, sign: signature, data, time_stamp: time} = envelope.data
  if (code !== 0) return {code, msg: msg && shown(msg, 200), data: {}, httpStatus: statusCode}
  if (!data || typeof data !== 'object' || Array.isArray(data)) return failure('the answer has no data object')
  if (!signature || !verifies(data as Record<string, unknown>, signature)) {
    return {
      kind: 'signature',
      message: `the signature of the answer to ${operation} does not verify with the gateway public key of profile "${profile}"`,
      mayHaveArrived: true,
    }
  }
  return {code, msg, time, data: data as Record<string, unknown>}
}

/**
 * What a successful answer must repeat of its request, beyond the merchant (appid) and the order
 * numbers, which are compared wherever the answer carries them: a refund's number and amount
 * always (2.5), amounts, currency and an order's channel where the answer gives them.
 */
const ECHOED: Record<Operation, {always: readonly string[]; whenGiven: readonly string[]}> = {
  native_pay: {always: [], whenGiven: ['total_fee', 'fee_type']},
  // The channel too: every channel is asked at once for an order not known here, and the one that answers is taken.
  order_query: {always: [], whenGiven: ['channel']},
  order_refund: {always: ['mch_refund_no', 'refund_fee'], whenGiven: ['total_fee', 'fee_type']},
  // The refund query answers for the order; each refund in it is matched by number and amount by its reader.
  refund_query: {always: [], whenGiven: []},
  order_close: {always: [], whenGiven: []},
}

type Asked = Readonly<Record<string, string | number | undefined>>

/**
 * Why a successful answer is not about what was asked (another merchant, order, refund or
 * amount), or undefined when it is. A signed answer replayed from another request verifies (one
 * gateway key signs for every merchant); this is what tells it apart. `asked` holds the request's
 * parameters, the appid, and what else gw knows of the order (its gw_order_no, found by a query).
 */
export function mismatchOf(operation: Operation, asked: Asked, data: Record<string, unknown>): string | undefined {
  const given = (field: string) => asked[field] !== undefined && asked[field] !== ''
  const present = (field: string) => data[field] !== undefined && data[field] !== ''
  const same = (field: string) => String(data[field]) === String(asked[field])
  const {always, whenGiven} = ECHOED[operation]
  const compared = ['appid', ...ORDER_NUMBER_FIELDS, ...whenGiven].filter((f) => given(f) && present(f))
  const field = always.find((f) => given(f) && (!present(f) || !same(f))) ?? compared.find((f) => !same(f))
  if (field === undefined) return undefined
  const about = present(field) ? `"${shown(String(data[field]), 40)}"` : 'missing'
  return `the answer to ${operation} is about ${field} ${about}, not ${field} "${shown(String(asked[field]), 40)}" as asked`
}

/**
 * The meaning of a verified envelope; undefined means "not processed, retry" (code != 0).
 * `retried` says an earlier attempt may have arrived: a duplicate number is then likely ours.
 * A successful answer about something else than `asked` is a failed verification, like a bad
 * signature: nothing in it is used. Its times are read in `zone`, the gateway's.
 */
export function classify<O extends Operation>(
  operation: O,
  envelope: Envelope,
  attempt: number,
  retried: boolean,
  asked: Asked = {},
  zone = DEFAULT_GATEWAY_ZONE,
): Answer<O> | AttemptFailure | undefined {
  if (envelope.code !== 0) return undefined
  const data = envelope.data
  const result = String(data.result ?? '')
  // The gateway's own words are shown to people: made safe for a terminal once, here.
  const errCode = typeof data.err_code === 'string' && data.err_code ? shown(data.err_code, 64) : undefined
  const message = typeof data.err_msg === 'string' ? shown(data.err_msg, 200) : ''
  // An order record reports the order's state in `result`; a failure carries err_code.
  const failed = errCode !== undefined || result === 'FAIL' || (operation !== 'order_query' && result !== 'SUCCESS')
  if (!failed) {
    const parsed = RESPONSE_SCHEMAS[operation].safeParse(data)
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => i.path.join('.')).join(', ')
      return {
        status: 'uncertain',
        reason: 'no_answer',
        message: `the answer to ${operation} lacks fields the document requires (${fields})`,
        attempts: attempt,
      }
    }
    const mismatch = mismatchOf(operation, asked, parsed.data as Record<string, unknown>)
    if (mismatch) return {kind: 'signature', message: mismatch, mayHaveArrived: true, mismatch: true}
    const read = inGatewayZone(parsed.data as ResponseData<O>, zone)
    return {status: 'success', data: read, attempts: attempt, gatewayTime: envelope.time}
  }
  const uncertain = (reason: Uncertain['reason'], text = message): Uncertain => ({
    status: 'uncertain',
    reason,
    code: errCode,
    message: text,
    attempts: attempt,
  })
  if (result === 'NOTSURE') return uncertain('notsure', message || 'the gateway is not sure of the outcome')
  if (errCode && AMBIGUOUS_CODES.includes(errCode)) return uncertain('ambiguous_code')
  if (errCode && DUPLICATE_CODES.includes(errCode) && retried) return uncertain('duplicate_on_retry')
  return {
    status: 'refused',
    code: errCode ?? shown(result, 64),
    message,
    explanation: explainError(errCode, message),
    advice: lookupError(errCode)?.action,
    attempts: attempt,
    gatewayTime: envelope.time,
  }
}

const NOT_CONNECTED = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', CONNECT_TIMEOUT]
const TIMED_OUT = [ANSWER_TIMEOUT]
const CERTIFICATE_ERRORS = [
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
]

/** A network error in words, and whether the request may have reached the gateway. */
export function describeNetworkError(error: unknown, url: string): AttemptFailure {
  const code = (error as {code?: string}).code ?? ''
  // Every network error but a lost answer (a timeout, a connection cut) is one of a connection never made.
  const failure = (message: string, mayHaveArrived: boolean, final?: boolean): AttemptFailure => ({
    kind: 'transport',
    message,
    mayHaveArrived,
    final,
    unreached: !mayHaveArrived,
  })
  const host = new URL(url).host
  if (TIMED_OUT.includes(code)) return failure(`no answer from ${url} in time`, true)
  if (code === 'ECONNREFUSED') return failure(`nothing is listening at ${url} (connection refused)`, false)
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return failure(`the host of ${url} is not known`, false)
  if (code === CONNECT_TIMEOUT) return failure(`could not connect to ${url} in time`, false)
  // A TLS handshake that failed: nothing was sent.
  const said = (error as Error).message ?? ''
  if (code === 'EPROTO' && /wrong version number|packet length too long/.test(said))
    return failure(
      `the server at ${host} does not speak HTTPS; the base URL may need http:// instead of https://`,
      false,
      true,
    )
  if (CERTIFICATE_ERRORS.includes(code) || code.startsWith('ERR_TLS_CERT'))
    return failure(`the certificate of ${host} is not trusted (${code}): nothing was sent`, false, true)
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))
    return failure(`the secure connection to ${host} failed (${code}): nothing was sent`, false, true)
  return failure(`the connection to ${url} failed (${(error as Error).message || code})`, !NOT_CONNECTED.includes(code))
}

/** The error a refusal ends in: exit 1, the catalogue's meaning and advice. */
export function refusalError(refusal: Refusal, what: string): GwError {
  return new GwError('refused', `${what}: ${refusal.explanation}`, {
    details: {err_code: refusal.code, err_msg: refusal.message},
  })
}

/** The error an answer that stayed uncertain ends in: exit 5. */
export function unknownOutcome(uncertain: Uncertain, what: string, advice: string): GwError {
  const code = uncertain.code ? `${uncertain.code}: ` : ''
  return new GwError('unknown', `${what}: the outcome is not known (${code}${uncertain.message}).`, {
    advice,
    details: {reason: uncertain.reason},
  })
}
