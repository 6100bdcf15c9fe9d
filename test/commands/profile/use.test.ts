/** gw profile use: the default profile. */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
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

const env = () => ({GW_CONFIG_DIR: join(home, 'config')})

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

const add = (name: string, extra: string[] = [], key = files.merchant!) =>
  runGw([...addArgs(name, 'https://gateway.example/Gateway/', key), ...extra], {env: env()})

/** The profile `name` the cases before this one add, added here when a case runs alone (-t). */
async function having(name: string, extra: string[] = []) {
  const stored = join(home, 'config', 'profiles.json')
  if (existsSync(stored) && JSON.parse(readFileSync(stored, 'utf8')).profiles[name]) return
  expect((await add(name, extra)).code).toBe(0)
}

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

describe('gw profile', () => {
  it('switches and removes profiles', async () => {
    await having('test')
    expect((await runGw(['profile', 'use', 'test'], {env: env()})).code).toBe(0)
    expect((await runGw(['profile', 'show', '--json'], {env: env()})).json<{name: string}>().name).toBe('test')
    const removed = await runGw(['profile', 'remove', 'test'], {env: env()})
    expect(removed.stdout).toContain('There is no default profile now')
    const unknown = await runGw(['profile', 'use', 'nope'], {env: env()})
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('There is no profile "nope"')
  })
})
