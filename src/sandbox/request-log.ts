/**
 * What the sandbox says of each request it answers, for `gw sandbox start`'s output and its
 * --log: the request as it came (its parameters, the signature abbreviated), what was answered,
 * the departures from the API document it accepted, and, for a signature that does not verify,
 * why. Values are as they arrived: whoever shows them makes them safe.
 */
import type {SignatureExplanation} from '../lib/gateway/signing.js'

export interface RequestRecord {
  /** When the answer went out, ISO 8601 UTC. */
  time: string
  method: string
  operation: string
  appid: string
  /** The order the request names (its merchant, gateway or channel number), '' when none. */
  order: string
  /** The answer's result or err_code; for a fault, the fault. */
  outcome: string
  err_msg?: string
  ms: number
  /** Departures from the API document accepted, each named ("GET accepted: the API document says POST"). */
  warnings: string[]
  /** The parameters received, `sign` abbreviated. */
  params: Record<string, string>
  /** For GW_SIGN_ERROR: the canonical string built from what arrived, the key's fingerprint, the likeliest cause. */
  signature?: SignatureExplanation & {appid: string; scheme: string}
}

/** A signature in a log: its first and last characters and its length, enough to tell two apart. */
export const abbreviated = (sign: string) =>
  sign.length > 20 ? `${sign.slice(0, 8)}…${sign.slice(-8)} (${sign.length} characters)` : sign
