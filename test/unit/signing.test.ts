import {describe, expect, it} from 'vitest'

import {
  canonicalString,
  parsePrivateKey,
  parsePublicKey,
  sign,
  verify,
  keyInfo,
  KeyError,
  type SignScheme,
} from '../../src/lib/gateway/signing.js'
import {readShared} from '../helpers/shared.js'

interface SigningVectors {
  keys: Record<
    string,
    {bits: number; private_pkcs1?: string; private_pkcs8?: string; public_spki: string; public_pkcs1: string}
  >
  cases: {
    name: string
    scheme: SignScheme
    key: string
    params: Record<string, unknown>
    canonical: string
    sign: string
  }[]
}
interface PublishedVectors {
  gateway_public_key: string
  responses: {name: string; response: {data: Record<string, unknown>; sign: string}}[]
  request: {private_key: string; params: Record<string, unknown>; sign: string; scheme: SignScheme}
}

const vectors = readShared<SigningVectors>('vectors/signing.json')
const published = readShared<PublishedVectors>('vectors/published.json')

describe('signing vectors made with openssl', () => {
  for (const c of vectors.cases) {
    const keys = vectors.keys[c.key]!
    const privatePem = keys.private_pkcs1 ?? keys.private_pkcs8!
    const escaped = c.name.includes('ascii_escaped')

    it(`${c.name}: builds the canonical string`, () => {
      expect(canonicalString(c.params, escaped)).toBe(c.canonical)
    })

    it(`${c.name}: verifies with the SPKI and the PKCS#1 public key`, () => {
      expect(verify(c.params, c.sign, parsePublicKey(keys.public_spki), c.scheme)).toBe(true)
      expect(verify(c.params, c.sign, parsePublicKey(keys.public_pkcs1), c.scheme)).toBe(true)
    })

    if (!escaped) {
      it(`${c.name}: reproduces the signature with the private key`, () => {
        expect(sign(c.params, parsePrivateKey(privatePem), c.scheme)).toBe(c.sign)
      })
    }

    it(`${c.name}: rejects the signature once a value changes`, () => {
      const [first] = Object.keys(c.params).filter((k) => typeof c.params[k] === 'string')
      const tampered = {...c.params, [first!]: `${String(c.params[first!])}x`}
      expect(verify(tampered, c.sign, parsePublicKey(keys.public_spki), c.scheme)).toBe(false)
    })
  }

  it('rejects a signature made under the other scheme', () => {
    const c = vectors.cases.find((v) => v.scheme === 'rsa-sha256')!
    expect(verify(c.params, c.sign, parsePublicKey(vectors.keys[c.key]!.public_spki), 'rsa-md5')).toBe(false)
  })

  it('rejects a signature that is not hex without throwing', () => {
    const c = vectors.cases[0]!
    expect(verify(c.params, 'not-hex', parsePublicKey(vectors.keys[c.key]!.public_spki), c.scheme)).toBe(false)
    expect(verify(c.params, '', parsePublicKey(vectors.keys[c.key]!.public_spki), c.scheme)).toBe(false)
  })
})

describe('samples published with the gateway SDK', () => {
  const gatewayKey = parsePublicKey(published.gateway_public_key)

  for (const r of published.responses) {
    it(`accepts ${r.name}`, () => {
      expect(verify(r.response.data, r.response.sign, gatewayKey, 'rsa-md5')).toBe(true)
    })
  }

  it('reproduces the published request signature with the merchant demo key', () => {
    const {params, private_key, scheme} = published.request
    expect(sign(params, parsePrivateKey(private_key), scheme)).toBe(published.request.sign)
  })
})

describe('keys', () => {
  it('reports size and fingerprint, the same for a private key and its public half', () => {
    const k = vectors.keys.merchant!
    const fromPrivate = keyInfo(parsePrivateKey(k.private_pkcs1!))
    const fromPublic = keyInfo(parsePublicKey(k.public_pkcs1))
    expect(fromPrivate.bits).toBe(2048)
    expect(fromPrivate).toEqual(fromPublic)
    expect(fromPrivate.fingerprint).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/)
  })

  it('accepts keys of other sizes (1024 and the published 512-bit gateway key)', () => {
    expect(keyInfo(parsePrivateKey(vectors.keys.small!.private_pkcs8!)).bits).toBe(1024)
    expect(keyInfo(parsePublicKey(published.gateway_public_key)).bits).toBe(512)
  })

  it('explains a file that is not a key', () => {
    expect(() => parsePrivateKey('hello')).toThrow(KeyError)
    expect(() => parsePublicKey('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n')).toThrow(/PUBLIC KEY/)
  })
})

describe('canonical order', () => {
  it('sorts keys by UTF-8 bytes, also where UTF-16 order differs (an astral character after U+FFxx)', () => {
    // U+1F600 is D83D DE00 in UTF-16 (before U+FF01) but F0 9F 98 80 in UTF-8 (after EF BC 81).
    expect(canonicalString({'\uff01': 1, '\u{1f600}': 2, b: 3, a: 4})).toBe('a=4b=3\uff01=1\u{1f600}=2')
  })
})
