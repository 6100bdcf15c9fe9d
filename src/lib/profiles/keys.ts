/** The keys of a profile: read from a file or PEM text, checked to be RSA keys, never echoed. */
import {existsSync, readFileSync, statSync} from 'node:fs'

import {usageError} from '../errors.js'
import {type StandardInput, standardInputText} from '../io/standard-input.js'
import {type KeyInfo, KeyError, isEncryptedPem, keyInfo, parsePrivateKey, parsePublicKey} from '../gateway/signing.js'
import {keyPassphrase} from './passphrase.js'

export interface KeyCheck {
  privateKey: KeyInfo
  gatewayKey: KeyInfo
  warnings: string[]
}

/** Both keys parse, the private key is RSA; keys under 2048 bits give a warning. `whose`: " of profile ..." for messages. */
/** What the two keys are called in messages: by default plainly; a profile's or a variable's name where it helps. */
interface KeyLabels {
  privateKey: string
  gatewayKey: string
}

export function checkKeys(
  privateKeyPem: string,
  gatewayPublicKeyPem: string,
  labels: KeyLabels = {privateKey: 'private key', gatewayKey: 'gateway public key'},
): KeyCheck {
  const privateKey = keyInfo(keyOrUsage(() => parsePrivateKey(privateKeyPem, keyPassphrase()), labels.privateKey))
  const gatewayKey = keyInfo(keyOrUsage(() => parsePublicKey(gatewayPublicKeyPem), labels.gatewayKey))
  if (privateKey.fingerprint === gatewayKey.fingerprint)
    throw usageError(
      `The ${labels.gatewayKey} is the public half of your own ${labels.privateKey} (the same fingerprint, ${gatewayKey.fingerprint}).`,
      "Give the gateway's public key, from the merchant platform: the gateway signs its answers with its own key.",
    )
  const warnings: string[] = []
  if (privateKey.bits < 2048) warnings.push(`the private key has ${privateKey.bits} bits; 2048 or more is advised`)
  if (gatewayKey.bits < 2048)
    warnings.push(`the gateway public key has ${gatewayKey.bits} bits; check it is the current one`)
  return {privateKey, gatewayKey, warnings}
}

/**
 * The keys of a profile checked as far as they can be without asking for anything: an
 * encrypted private key whose passphrase this run does not have yet is checked once unlocked.
 */
/** How a profile's keys are named in messages: the stored profile's name, or the variables an environment profile comes from. */
export function keyLabels(profile: {name: string; source: 'store' | 'environment'}): KeyLabels {
  return profile.source === 'store'
    ? {
        privateKey: `private key of profile "${profile.name}"`,
        gatewayKey: `gateway public key of profile "${profile.name}"`,
      }
    : {privateKey: 'private key in GW_PRIVATE_KEY', gatewayKey: 'gateway public key in GW_GATEWAY_PUBLIC_KEY'}
}

export function checkLoadedKeys(privateKeyPem: string, gatewayPublicKeyPem: string, labels: KeyLabels): void {
  if (isEncryptedPem(privateKeyPem) && keyPassphrase() === undefined)
    keyOrUsage(() => parsePublicKey(gatewayPublicKeyPem), labels.gatewayKey)
  else checkKeys(privateKeyPem, gatewayPublicKeyPem, labels)
}

function keyOrUsage<T>(parse: () => T, what: string): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof KeyError) throw usageError(`The ${what} is ${error.message}.`, error.advice)
    throw error
  }
}

/** How to give a profile a key again: `gw profile set` for a stored one, the variable for one from the environment. */
export function replaceKey(
  profile: {name: string; source: 'store' | 'environment'},
  key: 'private' | 'gateway',
): string {
  if (profile.source === 'environment') return key === 'private' ? 'set GW_PRIVATE_KEY' : 'set GW_GATEWAY_PUBLIC_KEY'
  return `gw profile set ${profile.name} ${key === 'private' ? '--private-key' : '--gateway-public-key'} FILE`
}

/**
 * Whether a file's mode says who may read it. Not on Windows: there its access list does (a
 * user's own folders are theirs alone), and Node makes the mode up from the read-only flag
 * (0666 for every file gw writes), so every key and store file would be called readable by others.
 */
const MODE_SAYS_WHO_READS = process.platform !== 'win32'

/** A warning when a key file can be read by others than its owner (ssh refuses such keys), else undefined. */
export function looseKeyFile(value: string, what: string): string | undefined {
  if (!MODE_SAYS_WHO_READS || value.includes('-----BEGIN') || !existsSync(value)) return undefined
  const mode = statSync(value).mode & 0o777
  if ((mode & 0o077) === 0) return undefined
  return `${what} ${value} can be read by others than you (mode ${mode.toString(8).padStart(4, '0')}); the copy in the profile store is 0600, but protect the original too: chmod 600 ${value}`
}

/** The files of a profile store that are not private (0700 folders, 0600 files), with their mode. */
export function loosePrivateFiles(paths: string[]): {path: string; mode: string}[] {
  return paths.flatMap((path) => {
    if (!MODE_SAYS_WHO_READS || !existsSync(path)) return []
    const stat = statSync(path)
    const mode = stat.mode & 0o777
    return mode === (stat.isDirectory() ? 0o700 : 0o600) ? [] : [{path, mode: mode.toString(8).padStart(4, '0')}]
  })
}

/**
 * Whether a value is plainly a file path (and so safe to quote back): one line, short, with
 * the shape of a path. A key's base64 body, pasted where a path was expected, is not.
 */
function isPathLike(value: string): boolean {
  if (value.length > 200 || /\s/.test(value)) return false
  const shaped = /^(\.{0,2}[\\/]|~|[A-Za-z]:[\\/])/.test(value) || /\.(pem|key|crt|cer|der|pub|txt)$/i.test(value)
  return shaped && value.split(/[\\/]/).every((segment) => segment.length <= 40)
}

/** Standard input, which `-` names: a pipe, never this terminal. */
function keyFromStandardInput(what: string, stdin: StandardInput): string {
  if (stdin.isTTY)
    throw usageError(
      `${what} -: standard input is this terminal, not a key.`,
      `Pipe the key in (pass show shop/key | gw … ${what} -), or give ${what} <(pass show shop/key).`,
    )
  return standardInputText(stdin, what)
}

/**
 * A key given as PEM text, as the path of a PEM file, as a pipe (`<(pass show shop/key)`, which
 * the shell passes as /dev/fd/63, or a named pipe), or as `-` for standard input: the ways without
 * a file that never put the key on a command line every user of the machine can read. An error
 * never quotes the value unless it is plainly a path: it may be key material pasted in the wrong form.
 * `stdin`: the command's standard input.
 */
export function readKeyArgument(value: string, what: string, stdin: StandardInput): string {
  // PEM text on one line with its line breaks written as \n (a common form of CI secrets) is read as PEM.
  if (value.includes('-----BEGIN')) return value.includes('\n') ? value : value.replace(/(?:\\r)?\\n/g, '\n')
  if (value === '-') return keyFromStandardInput(what, stdin)
  const stat = existsSync(value) ? statSync(value) : undefined
  if (stat?.isFile() || stat?.isFIFO() || stat?.isCharacterDevice()) return readFileSync(value, 'utf8')
  const expected =
    'Give the path of a PEM key file, - to read it from standard input, or <(command) to read what a command prints (pass, a vault); a key without its PEM lines is not enough.'
  if (stat?.isDirectory()) throw usageError(`${what}: "${value}" is a folder, not a key file.`, expected)
  if (isPathLike(value)) throw usageError(`${what}: there is no file "${value}".`, expected)
  throw usageError(
    `${what} is neither PEM text nor the path of a file that exists (its value is not shown: it may be key material).`,
    expected,
  )
}
