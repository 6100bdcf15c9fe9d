/**
 * Which gateway a record belongs to: the appid, the base URL gw sends to and the gateway key's
 * fingerprint, as a profile names them. A test and a live profile of one appid are two gateways:
 * nothing made on one is looked up, sent, listed or counted on the other.
 */
import {keyInfo, parsePublicKey} from '../gateway/signing.js'

export interface GatewayIdentity {
  appid: string
  base_url: string
  /** The fingerprint of the gateway's public key (SHA-256 of its SPKI, as `gw profile show` gives it). */
  key: string
}

/** The gateway a profile talks to. */
export function gatewayOf(profile: {appid: string; baseUrl: string; gatewayPublicKeyPem: string}): GatewayIdentity {
  return {
    appid: profile.appid,
    base_url: profile.baseUrl,
    key: keyInfo(parsePublicKey(profile.gatewayPublicKeyPem)).fingerprint,
  }
}

export const sameGateway = (a: GatewayIdentity, b: GatewayIdentity): boolean =>
  a.appid === b.appid && a.base_url === b.base_url && a.key === b.key

/** A gateway in words: "appid mch1 at https://gw.example/Gateway (gateway key 3f:a2:…)". */
export function describeGateway(gateway: GatewayIdentity): string {
  return `appid ${gateway.appid} at ${gateway.base_url} (gateway key ${gateway.key.slice(0, 11)}…)`
}
