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

/**
 * A base URL as one address however it was typed: the scheme and host in lower case, no default
 * port, no trailing slash (`HTTPS://GW.example:443/Gateway/` is `https://gw.example/Gateway`).
 */
function addressOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
  } catch {
    return baseUrl
  }
}

/** The gateway a profile talks to. */
export function gatewayOf(profile: {appid: string; baseUrl: string; gatewayPublicKeyPem: string}): GatewayIdentity {
  return {
    appid: profile.appid,
    base_url: addressOf(profile.baseUrl),
    key: keyInfo(parsePublicKey(profile.gatewayPublicKeyPem)).fingerprint,
  }
}

export const sameGateway = (a: GatewayIdentity, b: GatewayIdentity): boolean =>
  a.appid === b.appid && a.base_url === b.base_url && a.key === b.key

/**
 * How another gateway of the same appid may be this one: `address`, the same address under
 * another gateway key (a key rotated: what was sent there was sent here); `key`, the same key at
 * another address (an address respelled, or another server of that key: it cannot be told).
 */
export function kinship(gateway: GatewayIdentity, other: GatewayIdentity): 'address' | 'key' | undefined {
  if (other.appid !== gateway.appid || sameGateway(other, gateway)) return undefined
  if (addressOf(other.base_url) === gateway.base_url) return 'address'
  return other.key === gateway.key ? 'key' : undefined
}

/** A gateway in words: "appid mch1 at https://gw.example/Gateway (gateway key 3f:a2:…)". */
export function describeGateway(gateway: GatewayIdentity): string {
  return `appid ${gateway.appid} at ${gateway.base_url} (gateway key ${gateway.key.slice(0, 11)}…)`
}
