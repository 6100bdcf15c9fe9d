import {type KeyObject, generateKeyPairSync} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {EncryptedKeyError, isEncryptedPem, parsePrivateKey} from '../../src/lib/gateway/signing.js'

import {readKeyArgument} from '../../src/lib/profiles/keys.js'

describe('a key given as a flag or a variable', () => {
  it('quotes back a value that is plainly a path', () => {
    expect(() => readKeyArgument('/no/such/key.pem', 'GW_PRIVATE_KEY', {})).toThrow(
      'GW_PRIVATE_KEY: there is no file "/no/such/key.pem".',
    )
    expect(() => readKeyArgument('./keys/mch.pem', '--private-key', {})).toThrow('there is no file "./keys/mch.pem"')
  })

  it('never quotes a value that may be key material', () => {
    const body = `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC${'x'.repeat(300)}/abc+def==`
    for (const value of [
      body,
      `/${body}`,
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAAS',
      `${body.slice(0, 60)}\n${body.slice(60)}`,
    ]) {
      let message = ''
      try {
        readKeyArgument(value, 'GW_PRIVATE_KEY', {})
      } catch (error) {
        message = `${(error as Error).message} ${(error as {advice?: string}).advice}`
      }
      expect(message).toContain('GW_PRIVATE_KEY is neither PEM text nor the path of a file that exists')
      expect(message).not.toContain(value.slice(0, 20))
    }
  })
})

describe('a private key of the wrong kind is named as what it is', () => {
  const pkcs8 = (key: KeyObject) => key.export({type: 'pkcs8', format: 'pem'}) as string
  const rsa = generateKeyPairSync('rsa', {modulusLength: 1024})
  const message = (pem: string, passphrase?: string) => {
    try {
      parsePrivateKey(pem, passphrase)
      return 'parsed'
    } catch (error) {
      return (error as Error).message
    }
  }

  it('EC, Ed25519, a public key, a certificate, a file of something else', () => {
    expect(message(pkcs8(generateKeyPairSync('ec', {namedCurve: 'P-256'}).privateKey))).toBe(
      'an EC (elliptic-curve) key; the gateway signs with RSA keys',
    )
    expect(message(pkcs8(generateKeyPairSync('ed25519').privateKey))).toBe(
      'an Ed25519 key; the gateway signs with RSA keys',
    )
    expect(message(rsa.publicKey.export({type: 'spki', format: 'pem'}) as string)).toMatch(
      /^a public key, not a private key/,
    )
    expect(message(rsa.publicKey.export({type: 'pkcs1', format: 'pem'}) as string)).toMatch(
      /^a public key, not a private key/,
    )
    const certificate = `-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n`
    expect(message(certificate)).toMatch(/^a certificate, not a private key/)
    expect(message('hello')).toMatch(/^not a readable private key/)
  })

  it('an encrypted key, PKCS#1 or PKCS#8: told apart without a passphrase, opened with the right one, refused with a wrong one', () => {
    for (const type of ['pkcs1', 'pkcs8'] as const) {
      const pem = rsa.privateKey.export({type, format: 'pem', cipher: 'aes-128-cbc', passphrase: 'pw'}) as string
      expect(isEncryptedPem(pem)).toBe(true)
      expect(() => parsePrivateKey(pem)).toThrow(EncryptedKeyError)
      expect(message(pem, 'wrong')).toBe('an encrypted private key that the passphrase given does not open')
      expect(parsePrivateKey(pem, 'pw').asymmetricKeyType).toBe('rsa')
    }
    expect(isEncryptedPem(pkcs8(rsa.privateKey))).toBe(false)
  })
})
