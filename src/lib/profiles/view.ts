/** What `gw profile list|show` tell about a profile: never key material, only fingerprints. */
import {isEncryptedPem, keyInfo, parsePublicKey} from '../gateway/signing.js'
import {checkKeys, keyLabels} from './keys.js'
import {keyPassphrase} from './passphrase.js'
import type {Profile} from './store.js'

export interface ProfileView {
  name: string
  default: boolean
  appid: string
  base_url: string
  sign_scheme: string
  live: boolean
  gateway_zone: string
  source: string
  /** Size and fingerprint need the key opened: an encrypted one without its passphrase says only that it is encrypted. */
  private_key: {encrypted: boolean; bits?: number; fingerprint?: string}
  gateway_public_key: {bits: number; fingerprint: string}
}

export function viewProfile(profile: Profile, isDefault: boolean): ProfileView {
  const encrypted = isEncryptedPem(profile.privateKeyPem)
  // Showing a profile asks for nothing: what needs no passphrase is shown without one.
  const keys =
    encrypted && keyPassphrase() === undefined
      ? undefined
      : checkKeys(profile.privateKeyPem, profile.gatewayPublicKeyPem, keyLabels(profile))
  return {
    name: profile.name,
    default: isDefault,
    appid: profile.appid,
    base_url: profile.baseUrl,
    sign_scheme: profile.signScheme,
    live: profile.live,
    gateway_zone: profile.gatewayZone,
    source: profile.source,
    private_key: {encrypted, ...keys?.privateKey},
    gateway_public_key: keys?.gatewayKey ?? keyInfo(parsePublicKey(profile.gatewayPublicKeyPem)),
  }
}
