/**
 * The profile of a running sandbox: made (or brought up to date) from what it wrote in its data
 * dir. A profile is this sandbox's when it holds the sandbox's merchant and gateway key (a
 * restart on another port updates it); the profile named "sandbox" that is another sandbox's
 * (another data dir, perhaps running) is never re-pointed unless asked: this one gets a name of
 * its own, sandbox-2, sandbox-3...
 */
import {existsSync, readFileSync} from 'node:fs'

import type {SandboxInfo} from '../../sandbox/server.js'
import type {ProfileStore} from '../../lib/profiles/store.js'

const NAME = 'sandbox'

interface AdoptedSandbox {
  name: string
  /** What the profile pointed at before, when `replace` took it from another sandbox. */
  replaced?: {appid: string; base_url: string}
  /** The profile named "sandbox" is another sandbox's, kept as it was. */
  kept?: {appid: string; base_url: string}
}

export function adoptSandbox(store: ProfileStore, info: SandboxInfo, replace = false): AdoptedSandbox | undefined {
  const merchant = info.merchants[0]
  if (!merchant) return undefined
  const gatewayKey = readFileSync(info.gateway_public_key_file, 'utf8')
  const holder = (name: string) => {
    const stored = store.stored(name)
    return stored && {appid: stored.appid, base_url: stored.base_url, file: stored.gateway_public_key_file}
  }
  const isThis = (name: string) => {
    const held = holder(name)
    return held?.appid === merchant.appid && existsSync(held.file) && readFileSync(held.file, 'utf8') === gatewayKey
  }
  const other = holder(NAME)
  const names = [NAME, ...Array.from({length: 98}, (_, i) => `${NAME}-${i + 2}`)]
  const name = replace || !other || isThis(NAME) ? NAME : (names.find(isThis) ?? names.find((n) => !holder(n))!)
  const moved = other && !isThis(NAME) ? {appid: other.appid, base_url: other.base_url} : undefined
  store.add({
    name,
    appid: merchant.appid,
    baseUrl: info.base_url,
    privateKeyPem: readFileSync(merchant.private_key_file, 'utf8'),
    gatewayPublicKeyPem: gatewayKey,
    signScheme: merchant.sign_scheme,
    gatewayZone: info.gateway_zone,
  })
  return name === NAME ? {name, replaced: moved} : {name, kept: moved}
}
