/**
 * The sandbox's keys and merchants, kept in its data dir. On first start: a gateway key
 * pair and one merchant with every channel and currency. `merchants.json` may declare more
 * merchants, each with its channels, currencies, amount limits, partial-refund rule and
 * refund window; a merchant without key files gets a fresh pair, and a merchant of your own
 * (registerMerchant) has only its public key here. Keys are written as the gateway issues them:
 * private keys PKCS#1 ("RSA PRIVATE KEY", what the published SDKs read), the gateway's public
 * key both PKCS#1 and SPKI. Data dirs made earlier, with PKCS#8 keys, are read as they are.
 */
import {generateKeyPairSync, randomInt, type KeyObject} from 'node:crypto'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import * as z from 'zod/mini'

import {ORDER_CHANNELS, CURRENCIES} from '../lib/gateway/protocol/index.js'
import {ensurePrivateDir, writePrivateFile} from '../lib/io/private-file.js'
import {type SignScheme, SIGN_SCHEMES, parsePrivateKey, parsePublicKey} from '../lib/gateway/signing.js'

const merchantSchema = z.object({
  appid: z.string().check(z.regex(/^mch\d{1,29}$/, 'appid is mch followed by digits')),
  private_key_file: z.optional(z.string()),
  public_key_file: z.optional(z.string()),
  channels: z._default(z.array(z.string()), [...ORDER_CHANNELS]),
  currencies: z._default(z.array(z.enum(CURRENCIES)), [...CURRENCIES]),
  /** Largest order total in minor units (GW_EXCEED_AMOUNT_LIMIT above it). */
  amount_limit: z._default(z.int().check(z.positive()), 1_000_000_000),
  /** Smallest order total in minor units (GW_AMOUNT_IS_TOO_SMALL below it). */
  min_amount: z._default(z.int().check(z.nonnegative()), 1),
  partial_refund: z._default(z.boolean(), true),
  /** Days after payment during which a refund by API is possible (GW_REFUND_EXPIRE after). */
  refund_window_days: z._default(z.number().check(z.positive()), 365),
  sign_scheme: z._default(z.enum(SIGN_SCHEMES), 'rsa-md5'),
})
const fileSchema = z.object({merchants: z.array(merchantSchema).check(z.minLength(1))})

type MerchantConfig = z.infer<typeof merchantSchema>

export interface Merchant extends MerchantConfig {
  /** Absent for a merchant of your own: the sandbox has only its public key. */
  private_key_file?: string
  public_key_file: string
  publicKey: KeyObject
  /** Digits of the appid, used for the PromptPay biller id and stall name. */
  number: string
}

export interface GatewayKeys {
  privateKey: KeyObject
  /** The gateway's public key as SPKI ("PUBLIC KEY") and as PKCS#1 ("RSA PUBLIC KEY"). */
  publicKeyFiles: {spki: string; pkcs1: string}
  signScheme: SignScheme
}

function generatePair(privateFile: string, publicFile: string): void {
  const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
  writePrivateFile(privateFile, privateKey.export({type: 'pkcs1', format: 'pem'}).toString())
  writePrivateFile(publicFile, publicKey.export({type: 'spki', format: 'pem'}).toString())
}

export function loadGatewayKeys(dataDir: string): GatewayKeys {
  const keysDir = ensurePrivateDir(join(dataDir, 'keys'))
  const privateFile = join(keysDir, 'gateway.private.pem')
  const spki = join(keysDir, 'gateway.public.pem')
  const pkcs1 = join(keysDir, 'gateway.public.pkcs1.pem')
  if (!existsSync(privateFile) || !existsSync(spki)) generatePair(privateFile, spki)
  // Data dirs made before the PKCS#1 copy existed get it from the SPKI file.
  if (!existsSync(pkcs1)) {
    const publicKey = parsePublicKey(readFileSync(spki, 'utf8'))
    writePrivateFile(pkcs1, publicKey.export({type: 'pkcs1', format: 'pem'}).toString())
  }
  return {
    privateKey: parsePrivateKey(readFileSync(privateFile, 'utf8')),
    publicKeyFiles: {spki, pkcs1},
    signScheme: 'rsa-md5',
  }
}

export class MerchantConfigError extends Error {}

/** Reads merchants.json, creating it with one merchant on first start; fills in missing keys. */
export function loadMerchants(dataDir: string): Map<string, Merchant> {
  const file = join(dataDir, 'merchants.json')
  if (!existsSync(file)) {
    const appid = `mch${randomInt(10_000, 99_999)}`
    writePrivateFile(file, `${JSON.stringify({merchants: [{appid}]}, null, 2)}\n`)
  }
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new MerchantConfigError(`${file} is not a valid merchants file: ${(error as Error).message}`)
  }
  const result = fileSchema.safeParse(json)
  if (!result.success)
    throw new MerchantConfigError(`${file} is not a valid merchants file: ${z.prettifyError(result.error)}`)
  const parsed = result.data
  const keysDir = ensurePrivateDir(join(dataDir, 'keys'))
  const merchants = new Map<string, Merchant>()
  let changed = false
  for (const config of parsed.merchants) {
    // A merchant of your own names only its public key: the sandbox never has its private half.
    const own = config.public_key_file !== undefined && config.private_key_file === undefined
    const privateFile = own ? undefined : (config.private_key_file ?? join(keysDir, `${config.appid}.private.pem`))
    const publicFile = config.public_key_file ?? join(keysDir, `${config.appid}.public.pem`)
    if (privateFile && !existsSync(privateFile) && !existsSync(publicFile)) generatePair(privateFile, publicFile)
    if (!own && (!config.private_key_file || !config.public_key_file)) changed = true
    // A merchants file may name only the private key; its public half is derived from it.
    const keyFile = existsSync(publicFile) || !privateFile ? publicFile : privateFile
    let publicKey: KeyObject
    try {
      publicKey = parsePublicKey(readFileSync(keyFile, 'utf8'))
    } catch (error) {
      throw new MerchantConfigError(`${file}: the key of ${config.appid} (${keyFile}): ${(error as Error).message}`)
    }
    merchants.set(config.appid, {
      ...config,
      ...(privateFile ? {private_key_file: privateFile} : {}),
      public_key_file: publicFile,
      publicKey,
      number: config.appid.slice(3),
    })
  }
  if (changed) {
    const merchantsOut = parsed.merchants.map((m) => {
      const {private_key_file, public_key_file} = merchants.get(m.appid)!
      return {...m, private_key_file, public_key_file}
    })
    writePrivateFile(file, `${JSON.stringify({merchants: merchantsOut}, null, 2)}\n`)
  }
  return merchants
}

/**
 * Registers a merchant of your own: its appid and public key (the private half stays yours),
 * in merchants.json, with every channel and currency. Refused: an appid already registered
 * with another key, a private key given as the public one, anything but an RSA public key.
 * Returns whether the merchant is new (false: already registered with this very key).
 */
export function registerMerchant(
  dataDir: string,
  merchant: {appid: string; publicKeyPem: string; signScheme: SignScheme},
): boolean {
  if (!/^mch\d{1,29}$/.test(merchant.appid))
    throw new MerchantConfigError(
      `appid "${merchant.appid}" is not mch followed by digits (up to 29), as the gateway's`,
    )
  if (/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/.test(merchant.publicKeyPem))
    throw new MerchantConfigError(
      'that is a private key: give its public half (openssl rsa -in private.pem -pubout -out public.pem); your private key stays with you',
    )
  const publicKey = parsePublicKey(merchant.publicKeyPem)
  const spki = publicKey.export({type: 'spki', format: 'der'})
  ensurePrivateDir(dataDir)
  const merchants = loadMerchants(dataDir)
  const existing = merchants.get(merchant.appid)
  if (existing) {
    if (existing.publicKey.export({type: 'spki', format: 'der'}).equals(spki)) return false
    throw new MerchantConfigError(`${merchant.appid} is already registered with another key; choose another appid`)
  }
  const keyFile = join(ensurePrivateDir(join(dataDir, 'keys')), `${merchant.appid}.own.public.pem`)
  writePrivateFile(keyFile, publicKey.export({type: 'spki', format: 'pem'}).toString())
  const file = join(dataDir, 'merchants.json')
  const json = JSON.parse(readFileSync(file, 'utf8')) as {merchants: object[]}
  json.merchants.push({appid: merchant.appid, public_key_file: keyFile, sign_scheme: merchant.signScheme})
  writePrivateFile(file, `${JSON.stringify(json, null, 2)}\n`)
  return true
}
