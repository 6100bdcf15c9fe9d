/** The keys of a profile: read from a file or PEM text, checked to be RSA keys, never echoed. */
import {existsSync, readFileSync} from 'node:fs'

import {usageError} from '../errors.js'
import {type KeyInfo, KeyError, keyInfo, parsePrivateKey, parsePublicKey} from '../gateway/signing.js'

export interface KeyCheck {
  privateKey: KeyInfo
  gatewayKey: KeyInfo
  warnings: string[]
}

/** Both keys parse, the private key is RSA; keys under 2048 bits give a warning. */
export function checkKeys(privateKeyPem: string, gatewayPublicKeyPem: string): KeyCheck {
  const privateKey = keyInfo(keyOrUsage(() => parsePrivateKey(privateKeyPem), 'private key'))
  const gatewayKey = keyInfo(keyOrUsage(() => parsePublicKey(gatewayPublicKeyPem), 'gateway public key'))
  const warnings: string[] = []
  if (privateKey.bits < 2048) warnings.push(`the private key has ${privateKey.bits} bits; 2048 or more is advised`)
  if (gatewayKey.bits < 2048)
    warnings.push(`the gateway public key has ${gatewayKey.bits} bits; check it is the current one`)
  return {privateKey, gatewayKey, warnings}
}

function keyOrUsage<T>(parse: () => T, what: string): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof KeyError)
      throw usageError(`The ${what} is ${error.message}.`, `Export the ${what} as PEM and pass that file.`)
    throw error
  }
}

export function readKeyArgument(value: string, what: string): string {
  if (value.includes('-----BEGIN')) return value
  if (!existsSync(value))
    throw usageError(`The ${what} file "${value}" does not exist.`, 'Give the path of a PEM file.')
  return readFileSync(value, 'utf8')
}
