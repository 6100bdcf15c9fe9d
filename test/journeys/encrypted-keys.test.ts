/** A journey across commands: a merchant's encrypted private key, its passphrase given once for every command. */
import {createPrivateKey} from 'node:crypto'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, keyFile, startWorld} from '../helpers/gw-env.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('encrypted private keys, as merchants have them', () => {
  const PASSPHRASE = 'correct horse 42'

  /** The sandbox merchant's key, encrypted with PASSPHRASE as openssl would (PKCS#1 Proc-Type or PKCS#8). */
  const encrypted = (type: 'pkcs1' | 'pkcs8') => {
    const file = join(world.configDir, `encrypted-${type}.pem`)
    const key = createPrivateKey(readFileSync(keyFile(world), 'utf8'))
    writeFileSync(file, key.export({type, format: 'pem', cipher: 'aes-256-cbc', passphrase: PASSPHRASE}), {mode: 0o600})
    return file
  }

  const addWith = (name: string, file: string, ...extra: string[]) => {
    const args = world.profileAdd(name, ...extra)
    args[args.indexOf('--private-key') + 1] = file
    return args
  }

  const passphraseFile = () => {
    const file = join(world.configDir, 'passphrase.txt')
    writeFileSync(file, `${PASSPHRASE}\n`, {mode: 0o600})
    return file
  }

  const neverShown = (...outputs: string[]) => {
    for (const output of outputs) {
      expect(output).not.toContain(PASSPHRASE)
      expect(output).not.toContain('PRIVATE KEY-----')
    }
  }

  it('without a terminal or a passphrase: exit 2 naming the key as encrypted, the ways to give it and the openssl command', async () => {
    for (const type of ['pkcs1', 'pkcs8'] as const) {
      const result = await world.run(addWith(`locked-${type}`, encrypted(type)))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('The private key (--private-key) is encrypted (a passphrase protects it)')
      expect(result.stderr).toContain('GW_KEY_PASSPHRASE')
      expect(result.stderr).toContain('--passphrase-file FILE')
      expect(result.stderr).toContain(
        `openssl pkey -in ${join(world.configDir, `encrypted-${type}.pem`)} -out decrypted.pem`,
      )
      neverShown(result.stdout, result.stderr)
    }
  })

  it('kept encrypted in the store; every command takes the passphrase from GW_KEY_PASSPHRASE or --passphrase-file, never stores it', async () => {
    const added = await world.run(addWith('locked', encrypted('pkcs8')), {env: {GW_KEY_PASSPHRASE: PASSPHRASE}})
    expect(added.code, added.stderr).toBe(0)
    const stored = readdirSync(join(world.configDir, 'keys')).filter((f) => f.startsWith('locked.'))
    const privateFile = stored.find((f) => f.endsWith('.private.pem'))!
    expect(readFileSync(join(world.configDir, 'keys', privateFile), 'utf8')).toContain('ENCRYPTED PRIVATE KEY')
    for (const file of ['profiles.json', ...stored.map((f) => join('keys', f))])
      expect(readFileSync(join(world.configDir, file), 'utf8')).not.toContain(PASSPHRASE)

    const create = ['order', 'create', '--channel', 'wechat', '--amount', '1.00', '--fee-type', 'THB', '--no-qr']
    const before = await world.requests()
    const refused = await world.run([...create, '-p', 'locked'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('The private key of profile "locked" is encrypted')
    expect(await world.requests()).toEqual(before)

    const fromFile = await world.run([...create, '-p', 'locked', '--passphrase-file', passphraseFile(), '--json'])
    expect(fromFile.code, fromFile.stderr).toBe(0)
    // Reading the local history signs nothing: no passphrase needed.
    const listed = await world.run(['order', 'list', '--since', '10m', '-p', 'locked', '--json'])
    expect(listed.code, listed.stderr).toBe(0)
    const made = fromFile.json<{order: {mch_order_no: string}}>().order.mch_order_no
    expect(listed.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toContain(made)
    const fromEnv = await world.run(['doctor', '-p', 'locked'], {env: {GW_KEY_PASSPHRASE: PASSPHRASE}})
    expect(fromEnv.code, fromEnv.stdout).toBe(0)
    const wrong = await world.run(['doctor', '-p', 'locked', '--json'], {env: {GW_KEY_PASSPHRASE: 'not it'}})
    expect(wrong.code).toBe(2)
    expect(wrong.stdout).toContain('passphrase given does not open')
    neverShown(
      added.stdout,
      added.stderr,
      refused.stderr,
      fromFile.stdout,
      fromFile.stderr,
      fromEnv.stdout,
      wrong.stdout,
    )
  })
})
