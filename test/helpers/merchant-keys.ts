/**
 * The sandbox merchant's private key as merchants hold it (encrypted, as openssl writes it) and the
 * checks that neither the key, in any form, nor its passphrase is ever shown: one copy for the tests of
 * every command that reads a key.
 */
import {createPrivateKey} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {expect} from 'vitest'

import {type GwWorld, keyFile} from './gw-env.js'

/** The passphrase the keys below are encrypted with. */
export const PASSPHRASE = 'correct horse 42'

/** The sandbox merchant's key, encrypted with PASSPHRASE as openssl would (PKCS#1 Proc-Type or PKCS#8): its file. */
export function encryptedKey(world: GwWorld, type: 'pkcs1' | 'pkcs8'): string {
  const file = join(world.configDir, `encrypted-${type}.pem`)
  const key = createPrivateKey(readFileSync(keyFile(world), 'utf8'))
  writeFileSync(file, key.export({type, format: 'pem', cipher: 'aes-256-cbc', passphrase: PASSPHRASE}), {mode: 0o600})
  return file
}

/** PASSPHRASE in a file of its own (0600), as --passphrase-file reads it: its path. */
export function passphraseFile(world: GwWorld): string {
  const file = join(world.configDir, 'passphrase.txt')
  writeFileSync(file, `${PASSPHRASE}\n`, {mode: 0o600})
  return file
}

/** `gw profile add NAME` of the sandbox's merchant (world.profileAdd) with the private key in `file`, then `extra`. */
export function profileAddWith(world: GwWorld, name: string, file: string, ...extra: string[]): string[] {
  const args = world.profileAdd(name, ...extra)
  args[args.indexOf('--private-key') + 1] = file
  return args
}

/** Neither the passphrase nor a private key's PEM armour in any of these outputs. */
export function neverShown(...outputs: string[]): void {
  for (const output of outputs) {
    expect(output).not.toContain(PASSPHRASE)
    expect(output).not.toContain('PRIVATE KEY-----')
  }
}

/** The sandbox merchant's private key as its PEM file holds it. */
export const merchantPem = (world: GwWorld): string => readFileSync(keyFile(world), 'utf8')

/** The base64 lines of that key, without its armour. */
export const merchantKeyLines = (world: GwWorld): string[] =>
  merchantPem(world)
    .split('\n')
    .filter((line) => line && !line.startsWith('-----'))

/** No run of 40 characters of the merchant key's body in anything gw wrote. */
export function expectNoKey(world: GwWorld, output: string): void {
  const key = merchantKeyLines(world).join('')
  for (let i = 0; i + 40 <= key.length; i += 7)
    expect(output.includes(key.slice(i, i + 40)), 'a run of the key is in the output').toBe(false)
}
