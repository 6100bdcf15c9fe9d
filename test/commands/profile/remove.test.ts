/** gw profile remove. */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runGw} from '../../helpers/gw-env.js'
import {readShared, removeDir, tempDir} from '../../helpers/shared.js'

interface Vectors {
  keys: Record<string, {private_pkcs1?: string; private_pkcs8?: string; public_spki: string; public_pkcs1: string}>
}

const keys = readShared<Vectors>('vectors/signing.json').keys

let home: string

let files: Record<string, string>

/** `gw profile add NAME` with the test keys, against `baseUrl`. */
const addArgs = (name: string, baseUrl: string, key = files.merchant!) => [
  'profile',
  'add',
  name,
  '--appid',
  'mch20001',
  '--base-url',
  baseUrl,
  '--private-key',
  key,
  '--gateway-public-key',
  files.gateway!,
]

beforeAll(() => {
  home = tempDir('gw-profiles-')
  files = {
    merchant: join(home, 'merchant.pem'),
    small: join(home, 'small.pem'),
    gateway: join(home, 'gateway.pub'),
    gatewayPkcs1: join(home, 'gateway-pkcs1.pub'),
    junk: join(home, 'junk.pem'),
  }
  writeFileSync(files.merchant!, keys.merchant!.private_pkcs1!)
  writeFileSync(files.small!, keys.small!.private_pkcs8!)
  writeFileSync(files.gateway!, keys.gateway!.public_spki)
  writeFileSync(files.gatewayPkcs1!, keys.gateway!.public_pkcs1)
  writeFileSync(files.junk!, 'not a key\n')
})

afterAll(() => removeDir(home))

describe('the profile store, as other hands and other processes leave it', () => {
  const storeEnv = (name: string) => ({GW_CONFIG_DIR: join(home, name)})

  const addTo = (dir: string, name: string, baseUrl = 'http://127.0.0.1:9/Gateway') =>
    runGw(addArgs(name, baseUrl), {env: storeEnv(dir)})

  it('says which profiles there are when none is the default', async () => {
    expect((await addTo('nodefault', 'shop')).code).toBe(0)
    expect((await addTo('nodefault', 'other')).code).toBe(0)
    expect((await runGw(['profile', 'remove', 'shop'], {env: storeEnv('nodefault')})).code).toBe(0)
    const shown = await runGw(['order', 'query', 'INV-1'], {env: storeEnv('nodefault')})
    expect(shown.code).toBe(2)
    expect(shown.stderr).toContain('No profile is the default (there are "other").')
    expect(shown.stderr).toContain('gw profile use other')
  })
})
