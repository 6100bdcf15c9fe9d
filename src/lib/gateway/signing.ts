/**
 * The gateway's signature (docs/design.md, The protocol: Signature). The canonical string is every parameter
 * but `sign` and absent ones, `key=value`, sorted by key in byte order, joined with nothing;
 * nested values are compact JSON with keys sorted at every level. RSA PKCS#1 v1.5 over its
 * UTF-8 bytes, MD5 (the gateway's default) or SHA-256, lowercase hex.
 */
import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  publicDecrypt,
  randomBytes,
  sign as rsaSign,
  verify as rsaVerify,
  type KeyObject,
} from 'node:crypto'

export const SIGN_SCHEMES = ['rsa-md5', 'rsa-sha256'] as const
export type SignScheme = (typeof SIGN_SCHEMES)[number]

const DIGEST: Record<SignScheme, string> = {'rsa-md5': 'md5', 'rsa-sha256': 'sha256'}

/** A key that cannot be used: the message says what it is (never the key), the advice what to give instead. */
export class KeyError extends Error {
  constructor(
    message: string,
    readonly advice = 'Export the key as PEM and give that file.',
  ) {
    super(message)
  }
}

type Params = Readonly<Record<string, unknown>>

/** Numbers as plain decimals: 15050, 0.2101, never 1e+21. */
function plainNumber(n: number): string {
  if (Number.isInteger(n) && !Number.isSafeInteger(n) && Number.isFinite(n)) return BigInt(n).toString()
  return String(n)
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep)
  if (value && typeof value === 'object') {
    const sorted: Record<string, unknown> = {}
    for (const key of inByteOrder(Object.keys(value)))
      sorted[key] = sortKeysDeep((value as Record<string, unknown>)[key])
    return sorted
  }
  return value
}

function escapeNonAscii(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const OUTSIDE_PRINTABLE_ASCII = /[^ -~]/

const codeUnitOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))

/**
 * Keys in byte order of their UTF-8. For printable ASCII keys (all of the API's) that is plain
 * code-unit order, compared without allocating; keys of any other text are compared as UTF-8 bytes.
 */
function inByteOrder(keys: string[]): string[] {
  return keys.sort(keys.some((key) => OUTSIDE_PRINTABLE_ASCII.test(key)) ? utf8Order : codeUnitOrder)
}

function encodeValue(value: unknown, asciiEscaped: boolean): string {
  if (typeof value === 'number') return plainNumber(value)
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null) {
    const json = JSON.stringify(sortKeysDeep(value))
    return asciiEscaped ? escapeNonAscii(json) : json
  }
  return String(value)
}

/** The string that is signed. `asciiEscaped` writes non-ASCII inside nested values as \uXXXX. */
export function canonicalString(params: Params, asciiEscaped = false): string {
  return inByteOrder(
    Object.keys(params).filter((key) => key !== 'sign' && params[key] !== undefined && params[key] !== null),
  )
    .map((key) => `${key}=${encodeValue(params[key], asciiEscaped)}`)
    .join('')
}

const privateKeys = new Map<string, KeyObject>()
const publicKeys = new Map<string, KeyObject>()

/** A key the PEM text holds encrypted under a passphrase (openssl's `-aes256` and the like). */
export class EncryptedKeyError extends KeyError {}

/** PKCS#1 with `Proc-Type: 4,ENCRYPTED`, or PKCS#8 `ENCRYPTED PRIVATE KEY`, as openssl writes them with a passphrase. */
export function isEncryptedPem(pem: string): boolean {
  return /^Proc-Type:\s*4,ENCRYPTED/m.test(pem) || pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----')
}

const KEY_TYPES: Record<string, string> = {
  ec: 'an EC (elliptic-curve) key',
  ed25519: 'an Ed25519 key',
  ed448: 'an Ed448 key',
  x25519: 'an X25519 key',
  x448: 'an X448 key',
  dsa: 'a DSA key',
  dh: 'a Diffie-Hellman key',
  'rsa-pss': 'an RSA-PSS key',
}

const keyType = (key: KeyObject) =>
  KEY_TYPES[key.asymmetricKeyType ?? ''] ?? `a ${key.asymmetricKeyType ?? 'non-RSA'} key`

const RSA_ADVICE =
  'Give the RSA private key the merchant platform issued for this appid, as PEM (PKCS#1 "RSA PRIVATE KEY" or PKCS#8 "PRIVATE KEY", encrypted or not).'

/** What a PEM block that is not a private key is, by its label: named, never quoted. */
function notAPrivateKey(pem: string): string {
  const label = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem)?.[1]
  if (label && /CERTIFICATE/.test(label) && !/REQUEST/.test(label))
    return 'a certificate, not a private key: give the private key the certificate was made for'
  if (label && /PUBLIC KEY/.test(label))
    return 'a public key, not a private key: give your private key, whose public half the gateway has'
  if (label && /CERTIFICATE REQUEST/.test(label)) return 'a certificate request, not a private key'
  return 'not a readable private key: expected a PEM "RSA PRIVATE KEY" (PKCS#1) or "PRIVATE KEY" (PKCS#8) block'
}

/**
 * A PKCS#1 or PKCS#8 RSA private key from PEM text, encrypted or not. An encrypted one needs
 * its passphrase (EncryptedKeyError without one); every other kind of key or block is named as
 * what it is. Messages describe the key, never quote it.
 */
export function parsePrivateKey(pem: string, passphrase?: string): KeyObject {
  const encrypted = isEncryptedPem(pem)
  // An encrypted key is opened again by its passphrase only: never by an earlier command's.
  const id = encrypted ? `${passphrase ?? ''}\0${pem}` : pem
  let key = privateKeys.get(id)
  if (key) return key
  if (encrypted && passphrase === undefined)
    throw new EncryptedKeyError('an encrypted private key (a passphrase protects it)')
  try {
    key = createPrivateKey({key: pem, format: 'pem', ...(encrypted ? {passphrase} : {})})
  } catch {
    if (encrypted)
      throw new KeyError(
        'an encrypted private key that the passphrase given does not open',
        'Check the passphrase (GW_KEY_PASSPHRASE, --passphrase-file, or the one typed) and try again.',
      )
    throw new KeyError(notAPrivateKey(pem), RSA_ADVICE)
  }
  if (key.asymmetricKeyType !== 'rsa')
    throw new KeyError(`${keyType(key)}; the gateway signs with RSA keys`, RSA_ADVICE)
  privateKeys.set(id, key)
  return key
}

/** A PKCS#1 or SPKI RSA public key from PEM text (a private key's public half is accepted too). */
export function parsePublicKey(pem: string): KeyObject {
  let key = publicKeys.get(pem)
  if (key) return key
  try {
    key = createPublicKey({key: pem, format: 'pem'})
  } catch {
    throw new KeyError(
      'not a readable public key: expected a PEM "PUBLIC KEY" (SPKI) or "RSA PUBLIC KEY" (PKCS#1) block',
    )
  }
  if (key.asymmetricKeyType !== 'rsa') throw new KeyError(`${keyType(key)}; the gateway signs with RSA keys`)
  publicKeys.set(pem, key)
  return key
}

export interface KeyInfo {
  bits: number
  /** SHA-256 of the public key (SPKI DER), the first 16 bytes in hex pairs. */
  fingerprint: string
}

/** Size and fingerprint of a key; for a private key, of its public half. Never key material. */
export function keyInfo(key: KeyObject): KeyInfo {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key
  const der = publicKey.export({type: 'spki', format: 'der'})
  const hex = createHash('sha256').update(der).digest('hex').slice(0, 32)
  return {bits: publicKey.asymmetricKeyDetails?.modulusLength ?? 0, fingerprint: hex.match(/../g)!.join(':')}
}

export function signCanonical(canonical: string, key: KeyObject, scheme: SignScheme): string {
  return rsaSign(DIGEST[scheme], Buffer.from(canonical, 'utf8'), key).toString('hex')
}

export function sign(params: Params, key: KeyObject, scheme: SignScheme): string {
  return signCanonical(canonicalString(params), key, scheme)
}

/**
 * Whether `signature` (hex) signs `params`. Accepts the canonical string and, when nested
 * values hold non-ASCII, the form with it escaped as \uXXXX (servers that escape sign that).
 */
export function verify(params: Params, signature: string, key: KeyObject, scheme: SignScheme): boolean {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(signature)) return false
  const bytes = Buffer.from(signature, 'hex')
  const check = (canonical: string) => rsaVerify(DIGEST[scheme], Buffer.from(canonical, 'utf8'), key, bytes)
  const canonical = canonicalString(params)
  if (check(canonical)) return true
  const escaped = canonicalString(params, true)
  return escaped !== canonical && check(escaped)
}

/**
 * Whether `signature` signs a `data` object (an answer's, a notification's) exactly: a data
 * object with a null field or a `sign` of its own is refused, since the canonical string
 * would leave those out and they could be added without breaking the signature.
 */
export function verifyData(data: Params, signature: string, key: KeyObject, scheme: SignScheme): boolean {
  if (Object.hasOwn(data, 'sign') || Object.values(data).some((value) => value === null)) return false
  return verify(data, signature, key, scheme)
}

/** Why a signature does not verify, as far as the verifier can tell: for the sandbox's log and `gw signature verify`. */
export interface SignatureExplanation {
  /** The canonical string built from what arrived: what the signer should have signed. */
  canonical: string
  /** The fingerprint of the key the signature was verified against. */
  fingerprint: string
  /** The likeliest cause, in a few words (for an answer's err_msg); undefined when no check found it. */
  cause?: string
  /** The signature was not made with the private half of this key (nor of any of the others given). */
  otherKey?: true
}

/** The DER prefix of PKCS#1 v1.5's DigestInfo for each scheme's digest, before the digest itself. */
const DIGEST_INFO: Record<SignScheme, Buffer> = {
  'rsa-md5': Buffer.from('3020300c06082a864886f70d020505000410', 'hex'),
  'rsa-sha256': Buffer.from('3031300d060960864801650304020105000420', 'hex'),
}
const SCHEME_WORDS: Record<SignScheme, string> = {'rsa-md5': 'MD5 (rsa-md5)', 'rsa-sha256': 'SHA-256 (rsa-sha256)'}

/** The signature's bytes and the form they came in; undefined when it is neither hex nor base64. */
function signatureBytes(signature: string): {bytes: Buffer; form: 'hex' | 'upper-case hex' | 'base64'} | undefined {
  if (/^(?:[0-9a-f]{2})+$/.test(signature)) return {bytes: Buffer.from(signature, 'hex'), form: 'hex'}
  if (/^(?:[0-9a-fA-F]{2})+$/.test(signature)) return {bytes: Buffer.from(signature, 'hex'), form: 'upper-case hex'}
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(signature)) return {bytes: Buffer.from(signature, 'base64'), form: 'base64'}
  return undefined
}

/** The scheme and digest a signature holds, read with the public key; undefined when that key did not make it. */
function recoverDigest(bytes: Buffer, key: KeyObject): {scheme: SignScheme; digest: Buffer} | undefined {
  let info: Buffer
  try {
    info = publicDecrypt({key, padding: constants.RSA_PKCS1_PADDING}, bytes)
  } catch {
    return undefined
  }
  for (const scheme of SIGN_SCHEMES) {
    const prefix = DIGEST_INFO[scheme]
    if (info.subarray(0, prefix.length).equals(prefix)) return {scheme, digest: info.subarray(prefix.length)}
  }
  return undefined
}

/**
 * Python's urllib.parse.quote: UTF-8 bytes percent-encoded in upper-case hex, except letters,
 * digits, `_.-~` and the `safe` characters (by default `/`, which published samples leave as is).
 */
function pythonQuote(value: string, safe = '/'): string {
  let out = ''
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte)
    out +=
      /[A-Za-z0-9_.~-]/.test(c) || (byte < 128 && safe.includes(c))
        ? c
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Strings a signer commonly signs instead of the canonical one, each with what went wrong. */
function likelyMistakes(params: Params): [string, string][] {
  const keys = Object.keys(params).filter((k) => k !== 'sign' && params[k] !== undefined && params[k] !== null)
  const without = (names: string[]) =>
    Object.fromEntries(keys.filter((k) => !names.includes(k)).map((k) => [k, params[k]]))
  const mapped = (f: (value: string) => string) =>
    Object.fromEntries(keys.map((k) => [k, typeof params[k] === 'string' ? f(params[k]) : params[k]]))
  const empty = keys.filter((k) => params[k] === '')
  const mistakes: [string, string][] = []
  if (empty.length)
    mistakes.push([
      canonicalString(without(empty)),
      `empty values were left out of the signed string (${empty.join(', ')}); they are signed as key=`,
    ])
  mistakes.push(
    ...keys.map((k): [string, string] => [canonicalString(without([k])), `parameter ${k} was sent but not signed`]),
    [canonicalString(mapped(encodeURIComponent)), 'values were URL-encoded before signing; sign them as sent, decoded'],
    [
      canonicalString(mapped((v) => pythonQuote(v, ''))),
      'values were URL-encoded before signing; sign them as sent, decoded',
    ],
    [
      canonicalString(mapped((v) => pythonQuote(v))),
      "values were URL-encoded, / left as is (Python's quote(v) default), before signing; sign them as sent",
    ],
    [
      canonicalString(mapped((v) => new URLSearchParams({v}).toString().slice(2))),
      'values were form-encoded before signing; sign them as sent, decoded',
    ],
    [
      inByteOrder([...keys])
        .map((k) => `${k}=${encodeValue(params[k], false)}`)
        .join('&'),
      'the pairs were joined with &; join them with nothing',
    ],
  )
  return mistakes
}

/**
 * Why `signature` does not verify `params` with `key` under `scheme`: the signature's form,
 * the key that made it (read from the signature with the public key; `others` are keys it may
 * have been made with instead, by name), the digest it used, and the string it signed, tried
 * against what signers commonly get wrong.
 */
export function explainSignature(
  params: Params,
  signature: string,
  key: KeyObject,
  scheme: SignScheme,
  others: {name: string; key: KeyObject}[] = [],
): SignatureExplanation {
  const canonical = canonicalString(params)
  const {fingerprint, bits} = keyInfo(key)
  const said = (cause: string): SignatureExplanation => ({canonical, fingerprint, cause})
  const decoded = signatureBytes(signature)
  if (!decoded) return said('the signature is neither hex nor base64')
  const recovered = recoverDigest(decoded.bytes, key)
  if (!recovered) {
    const other = others.find((o) => recoverDigest(decoded.bytes, o.key))
    if (other) return said(`it was signed with the key of ${other.name}`)
    const bytes = decoded.bytes.length
    const cause =
      bytes === bits / 8
        ? 'it was signed with another key than this one'
        : `the signature is ${bytes} bytes, not the ${bits / 8} (${bits / 4} hex digits) of this key (${bits} bits): cut short, or another key's`
    return {...said(cause), otherKey: true}
  }
  const causes: string[] = []
  if (decoded.form !== 'hex') causes.push(`the signature is ${decoded.form}; send it as lowercase hex`)
  if (recovered.scheme !== scheme)
    causes.push(`it was signed with ${SCHEME_WORDS[recovered.scheme]}, not ${SCHEME_WORDS[scheme]}`)
  const digestOf = (text: string) => createHash(DIGEST[recovered.scheme]).update(text, 'utf8').digest()
  if (!digestOf(canonical).equals(recovered.digest)) {
    const mistake = likelyMistakes(params).find(([text]) => digestOf(text).equals(recovered.digest))
    causes.push(
      mistake?.[1] ??
        'the string signed is not the canonical one: a parameter signed but not sent, or a value changed after signing',
    )
  }
  return causes.length ? said(causes.join('; and ')) : {canonical, fingerprint}
}

export function isSignScheme(value: string): value is SignScheme {
  return (SIGN_SCHEMES as readonly string[]).includes(value)
}

const NONCE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Bytes from the CSPRNG, drawn 4 KiB at a time (a batch signs thousands of messages), each used once. */
const pool = {bytes: Buffer.alloc(0), at: 0}
function randomByte(): number {
  if (pool.at >= pool.bytes.length) {
    pool.bytes = randomBytes(4096)
    pool.at = 0
  }
  return pool.bytes[pool.at++]!
}

/** 32 characters from a CSPRNG; a new one for every signed message. */
export function newNonce(length = 32): string {
  let out = ''
  while (out.length < length) {
    // Rejection sampling keeps every character equally likely (62 does not divide 256).
    const b = randomByte()
    if (b < 248) out += NONCE_ALPHABET[b % 62]
  }
  return out
}
