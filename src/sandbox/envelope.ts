/** The gateway's answer envelope (section 2.1): data, signed with the gateway's key over `data` alone. */
import {errMsg} from '../lib/gateway/protocol/errors.js'
import {isoWithOffset} from '../lib/gateway/protocol/time.js'
import {type SignScheme, newNonce, sign} from '../lib/gateway/signing.js'
import type {GatewayKeys} from './merchants.js'

type Envelope = Record<string, unknown> & {sign: string; data: Record<string, unknown>}

export function envelope(
  gateway: GatewayKeys,
  data: Record<string, unknown>,
  scheme: SignScheme,
  code = 0,
  msg = 'ok',
): Envelope {
  return {
    code,
    msg,
    status_code: '',
    status_msg: '',
    time_stamp: isoWithOffset(),
    version: '3.0.0',
    sign: sign(data, gateway.privateKey, scheme),
    data,
  }
}

/** The data of a refusal: result FAIL (or NOTSURE), the error code and message. */
export function failureData(code: string, msg: string, result: 'FAIL' | 'NOTSURE' = 'FAIL'): Record<string, unknown> {
  return {result, err_code: code, err_msg: errMsg(msg), nonce_str: newNonce()}
}
