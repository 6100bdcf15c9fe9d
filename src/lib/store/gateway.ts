/**
 * Which gateway a record belongs to: the appid, the base URL gw sends to and the gateway key's
 * fingerprint, as a profile names them. A gateway is one however its address is spelled: the
 * merchant's appid with the gateway's public key (what every answer is verified with) names it as
 * well as its address does (localhost, 127.0.0.1 and [::1], a DNS name and its IP, http and https,
 * another port of a sandbox over the same data), and so does its address when its key was
 * rotated. A test and a live gateway of one appid are two (their keys and addresses differ):
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

/**
 * Whether two gateways, as two profiles name them, are one: the same appid, and the same gateway
 * key (the address spelled another way) or the same address (the key rotated). Says which.
 */
export function spellingOf(
  gateway: GatewayIdentity,
  other: GatewayIdentity,
): 'the same' | 'key' | 'address' | undefined {
  if (other.appid !== gateway.appid || !other.base_url || !gateway.base_url) return undefined
  const address = addressOf(other.base_url) === addressOf(gateway.base_url)
  if (address && other.key === gateway.key) return 'the same'
  return other.key === gateway.key ? 'key' : address ? 'address' : undefined
}

/** A gateway in words: "appid mch1 at https://gw.example/Gateway (gateway key 3f:a2:…)". */
export function describeGateway(gateway: GatewayIdentity): string {
  return `appid ${gateway.appid} at ${gateway.base_url} (gateway key ${gateway.key.slice(0, 11)}…)`
}
