/** The "sandbox" profile: made (or brought up to date) for a running sandbox, from what it wrote in its data dir. */
import {readFileSync} from 'node:fs'

import type {SandboxInfo} from '../../sandbox/server.js'
import type {ProfileStore} from './store.js'

export function adoptSandbox(store: ProfileStore, info: SandboxInfo): void {
  const merchant = info.merchants[0]
  if (!merchant) return
  store.add({
    name: 'sandbox',
    appid: merchant.appid,
    baseUrl: info.base_url,
    privateKeyPem: readFileSync(merchant.private_key_file, 'utf8'),
    gatewayPublicKeyPem: readFileSync(info.gateway_public_key_file, 'utf8'),
    signScheme: merchant.sign_scheme,
    gatewayZone: info.gateway_zone,
  })
}
