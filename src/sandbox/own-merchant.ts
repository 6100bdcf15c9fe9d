/**
 * `gw sandbox merchant add`: a merchant of your own, registered with its public key in the
 * sandbox's data dir (registerMerchant), and taken at once by a sandbox running on that data dir
 * (the origin its sandbox.json names, when that answers as the sandbox).
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {keyInfo, parsePublicKey, type SignScheme} from '../lib/gateway/signing.js'
import {SandboxControl} from './control-client.js'
import {registerMerchant} from './merchants.js'

export interface OwnMerchant {
  appid: string
  sign_scheme: SignScheme
  fingerprint: string
  /** False when the merchant was already registered with this very key. */
  added: boolean
  /** The running sandbox that took it now, or null (it is taken when the sandbox starts). */
  running: string | null
}

export async function addOwnMerchant(
  dataDir: string,
  merchant: {appid: string; publicKeyPem: string; signScheme: SignScheme},
): Promise<OwnMerchant> {
  const added = registerMerchant(dataDir, merchant)
  const {fingerprint} = keyInfo(parsePublicKey(merchant.publicKeyPem))
  const infoFile = join(dataDir, 'sandbox.json')
  let running: string | null = null
  if (existsSync(infoFile)) {
    const {origin} = JSON.parse(readFileSync(infoFile, 'utf8')) as {origin?: string}
    const control = origin ? new SandboxControl(origin) : undefined
    // A sandbox that is not running (refused connection) takes the merchant when it starts.
    const answers = await control?.isSandbox().catch(() => false)
    if (control && answers) {
      await control.reloadMerchants()
      running = origin!
    }
  }
  return {appid: merchant.appid, sign_scheme: merchant.signScheme, fingerprint, added, running}
}
