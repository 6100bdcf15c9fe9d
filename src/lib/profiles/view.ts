/** What `gw profile list|show` tell about a profile: never key material, only fingerprints. */
import {checkKeys} from './keys.js'
import type {Profile} from './store.js'

export interface ProfileView {
  name: string
  default: boolean
  appid: string
  base_url: string
  sign_scheme: string
  live: boolean
  source: string
  private_key: {bits: number; fingerprint: string}
  gateway_public_key: {bits: number; fingerprint: string}
}

export function viewProfile(profile: Profile, isDefault: boolean): ProfileView {
  const keys = checkKeys(profile.privateKeyPem, profile.gatewayPublicKeyPem)
  return {
    name: profile.name,
    default: isDefault,
    appid: profile.appid,
    base_url: profile.baseUrl,
    sign_scheme: profile.signScheme,
    live: profile.live,
    source: profile.source,
    private_key: keys.privateKey,
    gateway_public_key: keys.gatewayKey,
  }
}
