/** A journey across commands: a merchant's encrypted private key, its passphrase given once for every command. */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {encryptedKey, neverShown, PASSPHRASE, passphraseFile, profileAddWith} from '../helpers/merchant-keys.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('encrypted private keys, as merchants have them', () => {
  it('without a terminal or a passphrase: exit 2 naming the key as encrypted, the ways to give it and the openssl command', async () => {
    for (const type of ['pkcs1', 'pkcs8'] as const) {
      const result = await world.run(profileAddWith(world, `locked-${type}`, encryptedKey(world, type)))
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
    const added = await world.run(profileAddWith(world, 'locked', encryptedKey(world, 'pkcs8')), {
      env: {GW_KEY_PASSPHRASE: PASSPHRASE},
    })
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

    const fromFile = await world.run([...create, '-p', 'locked', '--passphrase-file', passphraseFile(world), '--json'])
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
