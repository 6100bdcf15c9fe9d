/**
 * A profile store of a test file's own (GW_CONFIG_DIR in a scratch home), with the signing
 * vectors' keys written as files, and `gw profile add` of them: made before the file's cases,
 * removed after. One copy for the tests of every `gw profile` command.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, expect} from 'vitest'

import {runGw} from './gw-env.js'
import {readShared, removeDir, tempDir} from './shared.js'

interface Vectors {
  keys: Record<string, {private_pkcs1?: string; private_pkcs8?: string; public_spki: string; public_pkcs1: string}>
}

export function profileHome() {
  const keys = readShared<Vectors>('vectors/signing.json').keys
  /** The key files, by name: filled in before the first case. */
  const files: Record<string, string> = {}
  let home = ''
  beforeAll(() => {
    home = tempDir('gw-profiles-')
    Object.assign(files, {
      merchant: join(home, 'merchant.pem'),
      small: join(home, 'small.pem'),
      gateway: join(home, 'gateway.pub'),
      gatewayPkcs1: join(home, 'gateway-pkcs1.pub'),
      junk: join(home, 'junk.pem'),
    })
    writeFileSync(files.merchant!, keys.merchant!.private_pkcs1!)
    writeFileSync(files.small!, keys.small!.private_pkcs8!)
    writeFileSync(files.gateway!, keys.gateway!.public_spki)
    writeFileSync(files.gatewayPkcs1!, keys.gateway!.public_pkcs1)
    writeFileSync(files.junk!, 'not a key\n')
  })
  afterAll(() => removeDir(home))

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
  /** Another store of the scratch home (GW_CONFIG_DIR of its folder `name`), as other hands and processes leave one. */
  const storeEnv = (name: string) => ({GW_CONFIG_DIR: join(home, name)})
  /** `gw profile add NAME` with the test keys into the store `dir` (storeEnv). */
  const addTo = (dir: string, name: string, baseUrl = 'http://127.0.0.1:9/Gateway') =>
    runGw(addArgs(name, baseUrl), {env: storeEnv(dir)})
  /** The profile `name` the cases before this one add, added here when a case runs alone (-t). */
  async function having(name: string, extra: string[] = []) {
    const stored = join(home, 'config', 'profiles.json')
    if (existsSync(stored) && JSON.parse(readFileSync(stored, 'utf8')).profiles[name]) return
    expect((await add(name, extra)).code).toBe(0)
  }
  return {
    keys,
    files,
    /** The scratch home (its config dir holds the store). */
    get home() {
      return home
    },
    env,
    addArgs,
    add,
    having,
    storeEnv,
    addTo,
  }
}
