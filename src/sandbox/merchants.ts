/**
 * The sandbox's keys and merchants, kept in its data dir. On first start: a gateway key
 * pair and one merchant with every channel and currency. `merchants.json` may declare more
 * merchants, each with its channels, currencies, amount limits, partial-refund rule and
 * refund window; a merchant without key files gets a fresh pair.
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
  private_key_file: string
  public_key_file: string
  publicKey: KeyObject
  /** Digits of the appid, used for the PromptPay biller id and stall name. */
  number: string
}

export interface GatewayKeys {
  privateKey: KeyObject
  publicKeyFile: string
  signScheme: SignScheme
}

function generatePair(privateFile: string, publicFile: string): void {
  const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
  writePrivateFile(privateFile, privateKey.export({type: 'pkcs8', format: 'pem'}).toString())
  writePrivateFile(publicFile, publicKey.export({type: 'spki', format: 'pem'}).toString())
}

export function loadGatewayKeys(dataDir: string): GatewayKeys {
  const keysDir = ensurePrivateDir(join(dataDir, 'keys'))
  const privateFile = join(keysDir, 'gateway.private.pem')
  const publicFile = join(keysDir, 'gateway.public.pem')
  if (!existsSync(privateFile) || !existsSync(publicFile)) generatePair(privateFile, publicFile)
  return {
    privateKey: parsePrivateKey(readFileSync(privateFile, 'utf8')),
    publicKeyFile: publicFile,
    signScheme: 'rsa-md5',
  }
}

class MerchantConfigError extends Error {}

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
    const privateFile = config.private_key_file ?? join(keysDir, `${config.appid}.private.pem`)
    const publicFile = config.public_key_file ?? join(keysDir, `${config.appid}.public.pem`)
    if (!existsSync(privateFile) && !existsSync(publicFile)) generatePair(privateFile, publicFile)
    if (!config.private_key_file || !config.public_key_file) changed = true
    // A merchants file may name only the private key; its public half is derived from it.
    const publicKey = parsePublicKey(readFileSync(existsSync(publicFile) ? publicFile : privateFile, 'utf8'))
    merchants.set(config.appid, {
      ...config,
      private_key_file: privateFile,
      public_key_file: publicFile,
      publicKey,
      number: config.appid.slice(3),
    })
  }
  if (changed) {
    const merchantsOut = parsed.merchants.map((m) => ({
      ...m,
      private_key_file: merchants.get(m.appid)!.private_key_file,
      public_key_file: merchants.get(m.appid)!.public_key_file,
    }))
    writePrivateFile(file, `${JSON.stringify({merchants: merchantsOut}, null, 2)}\n`)
  }
  return merchants
}
