/**
 * Whether a notification body is the gateway's, for this merchant: JSON without duplicate
 * keys, a `data` object signed exactly (verifyData) with the gateway key, holding every field
 * section 6 requires with its type, for the profile's appid, with result SUCCESS. What is verified is returned, to be acted on and forwarded;
 * nothing of an unverified body is trusted (its fields are shown, never used).
 */
import type {KeyObject} from 'node:crypto'

import {
  type NotificationData,
  type NotificationFields,
  notificationDataSchema,
  notificationFields,
  paymentNotificationSchema,
} from '../gateway/protocol/index.js'
import {type SignScheme, parsePublicKey, verifyData} from '../gateway/signing.js'
import {DuplicateKeyError, parseStrictJson} from '../io/strict-json.js'

/** The largest notification body gw takes (the listener) or sends again (replay). */
export const MAX_NOTIFICATION_BYTES = 64 * 1024

/** What the gateway sends notifications as: plain text or JSON, in UTF-8, written plainly. */
export const isGatewayContentType = (type: unknown): type is string =>
  typeof type === 'string' && /^(?:text\/plain|application\/json)(?:; ?charset="?utf-8"?)?$/i.test(type)

type Judgement =
  | {verified: true; fields: NotificationFields; data: NotificationData; envelope: Record<string, unknown>}
  | {verified: false; reason: string; fields: NotificationFields}

export interface Verifier {
  key: KeyObject
  scheme: SignScheme
  /** The profile's appid: a notification for another merchant is not ours to acknowledge. */
  appid: string
}

/** The verifier of a profile: its gateway key, sign scheme and appid. */
export const verifierOf = (profile: {
  gatewayPublicKeyPem: string
  signScheme: SignScheme
  appid: string
}): Verifier => ({
  key: parsePublicKey(profile.gatewayPublicKeyPem),
  scheme: profile.signScheme,
  appid: profile.appid,
})

export function judgeNotification(raw: string, verifier: Verifier): Judgement {
  const refuse = (reason: string, fields: NotificationFields = {}): Judgement => ({verified: false, reason, fields})
  let parsed: unknown
  try {
    parsed = parseStrictJson(raw)
  } catch (error) {
    return refuse(error instanceof DuplicateKeyError ? `not one notification: ${error.message}` : 'body is not JSON')
  }
  const envelope = parsed as {data?: unknown; sign?: unknown}
  if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope))
    return refuse('not a notification: no data object or no sign')
  if (
    !envelope.data ||
    typeof envelope.data !== 'object' ||
    Array.isArray(envelope.data) ||
    typeof envelope.sign !== 'string'
  ) {
    return refuse('not a notification: no data object or no sign')
  }
  const data = notificationDataSchema.safeParse(envelope.data)
  const fields = notificationFields(envelope.data)
  if (!verifyData(envelope.data as Record<string, unknown>, envelope.sign, verifier.key, verifier.scheme)) {
    return refuse('signature does not verify with the gateway public key', fields)
  }
  if (!data.success || data.data.result !== 'SUCCESS') {
    return refuse(`result is ${data.success ? data.data.result : 'missing'}, not SUCCESS`, fields)
  }
  // A signature over re-split text still verifies: the fields must be the document's, each of its type.
  const complete = paymentNotificationSchema.safeParse(envelope.data)
  if (!complete.success) {
    const wrong = [...new Set(complete.error.issues.map((issue) => issue.path.join('.') || issue.message))]
    return refuse(`data is not a payment notification as section 6 requires: ${wrong.join(', ')}`, fields)
  }
  if (data.data.appid !== verifier.appid) {
    return refuse(
      `the notification is for appid ${data.data.appid ?? '(none)'}, not this profile's ${verifier.appid}`,
      fields,
    )
  }
  return {verified: true, fields, data: data.data, envelope: parsed as Record<string, unknown>}
}
