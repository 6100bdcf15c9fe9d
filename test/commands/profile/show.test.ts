/** gw profile show: fingerprints and sizes, never key material; which profile a command uses. */
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {shellWord} from '../../../src/lib/errors.js'
import {type GwWorld, runGw, startWorld} from '../../helpers/gw-env.js'
import {encryptedKey, neverShown, PASSPHRASE, passphraseFile, profileAddWith} from '../../helpers/merchant-keys.js'
import {gwShellLine, shellEnvironment} from '../../helpers/gw-under-test.js'
import {profileHome} from '../../helpers/profile-home.js'

const keysHome = profileHome()
const {keys, files, env, addArgs, having, storeEnv, addTo} = keysHome

describe('gw profile', () => {
  /** The variables of a profile from the environment alone, written nowhere. */
  const environmentOnly = () => ({
    ...env(),
    GW_APPID: 'mch77777',
    GW_PRIVATE_KEY: keys.merchant!.private_pkcs1,
    GW_GATEWAY_PUBLIC_KEY: files.gateway,
    GW_BASE_URL: 'http://127.0.0.1:9/Gateway',
  })

  it('shows fingerprints and sizes, never key material', async () => {
    await having('shop', ['--live'])
    const result = await runGw(['profile', 'show', 'shop', '--json'], {env: env()})
    expect(result.code).toBe(0)
    const view = result.json<{private_key: {bits: number; fingerprint: string}; appid: string}>()
    expect(view.appid).toBe('mch20001')
    expect(view.private_key.bits).toBe(2048)
    const text = await runGw(['profile', 'show', 'shop'], {env: env()})
    for (const output of [result.stdout, result.stderr, text.stdout, text.stderr]) {
      expect(output).not.toContain('PRIVATE KEY')
      expect(output).not.toContain(keys.merchant!.private_pkcs1!.split('\n')[1])
    }
    expect(text.stdout).toMatch(/private key: +RSA 2048 bits, fingerprint ([0-9a-f]{2}:){15}[0-9a-f]{2}/)
    expect(text.stdout).toMatch(/gateway zone: +Asia\/Bangkok/)
  })

  it('takes a key through a pipe, as <(command) or - for standard input: never "there is no file"', async () => {
    await having('shop', ['--live'])
    const {spawnSync} = await import('node:child_process')
    // As a person types it in bash: the key from a command's output (pass, a vault), no file.
    const args = addArgs('piped', 'https://gateway.example/Gateway/', '<(cat KEY)').map((word) =>
      word === '<(cat KEY)' ? `<(cat ${shellWord(files.merchant!)})` : shellWord(word),
    )
    const piped = spawnSync('bash', ['-c', gwShellLine([]) + ' ' + args.join(' ')], {
      encoding: 'utf8',
      // gwShellLine gives gw its own PATH (an executable's has no node); the shell keeps this one for cat.
      env: shellEnvironment(env()),
    })
    expect(piped.status, piped.stderr).toBe(0)
    expect(piped.stdout).toContain('Profile "piped" saved')
    const fromStdin = await runGw(addArgs('stdin', 'https://gateway.example/Gateway/', '-'), {
      env: env(),
      input: keys.merchant!.private_pkcs1!,
    })
    expect(fromStdin.code, fromStdin.stderr).toBe(0)
    const shown = await Promise.all(
      ['shop', 'piped', 'stdin'].map(async (name) => {
        const view = (await runGw(['profile', 'show', name, '--json'], {env: env()})).json<{
          private_key: {fingerprint: string}
        }>()
        return view.private_key.fingerprint
      }),
    )
    expect(new Set(shown).size).toBe(1)
    const stored = JSON.parse(readFileSync(join(keysHome.home, 'config', 'profiles.json'), 'utf8')).profiles.stdin
    expect(statSync(stored.private_key_file).mode & 0o777).toBe(0o600)
  })

  it('uses GW_PROFILE, then an environment-only profile written nowhere', async () => {
    await having('shop', ['--live'])
    expect(
      (await runGw(['profile', 'show', '--json'], {env: {...env(), GW_PROFILE: 'shop'}})).json<{name: string}>().name,
    ).toBe('shop')
    const fromEnv = await runGw(['profile', 'show', '--json'], {env: environmentOnly()})
    expect(fromEnv.code).toBe(0)
    expect(fromEnv.json()).toMatchObject({appid: 'mch77777', source: 'environment'})
    expect(readFileSync(join(keysHome.home, 'config', 'profiles.json'), 'utf8')).not.toContain('mch77777')
    const partial = await runGw(['profile', 'show'], {env: {...env(), GW_APPID: 'mch77777'}})
    expect(partial.code).toBe(2)
    expect(partial.stderr).toContain('GW_APPID is set but GW_PRIVATE_KEY, GW_GATEWAY_PUBLIC_KEY, GW_BASE_URL are not')
  })

  it('takes GW_LIVE as a yes or a no in any case, and refuses anything else rather than take it for test', async () => {
    const variables = environmentOnly()
    const liveOf = async (value: string) => {
      const shown = await runGw(['profile', 'show', '--json'], {env: {...variables, GW_LIVE: value}})
      return shown.code === 0 ? shown.json<{live: boolean}>().live : shown.code
    }
    for (const yes of ['1', 'TRUE', 'Yes', ' on ']) expect(await liveOf(yes), yes).toBe(true)
    for (const no of ['0', 'False', 'off', '']) expect(await liveOf(no), no).toBe(false)
    for (const typo of ['y', 'ture', 'live', '2']) expect(await liveOf(typo), typo).toBe(2)
    const refused = await runGw(['profile', 'show'], {env: {...variables, GW_LIVE: 'ture'}})
    expect(refused.stderr).toContain('GW_LIVE is not a yes or a no.')
  })
})

describe('the profile store, as other hands and other processes leave it', () => {
  it('takes names that objects have built in ("constructor") as any other name', async () => {
    expect((await addTo('builtin', 'constructor')).code).toBe(0)
    const shown = await runGw(['profile', 'show', 'constructor', '--json'], {env: storeEnv('builtin')})
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.json()).toMatchObject({name: 'constructor', appid: 'mch20001'})
    const missing = await runGw(['profile', 'use', 'toString'], {env: storeEnv('builtin')})
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('There is no profile "toString"')
    expect(missing.stderr).toContain('Known profiles: constructor.')
  })

  it('refuses a store edited to give a base URL gw would not accept, without repeating it', async () => {
    expect((await addTo('edited', 'shop')).code).toBe(0)
    const path = join(keysHome.home, 'edited', 'profiles.json')
    const original = readFileSync(path, 'utf8')
    for (const url of ['http://ops:s3cret@127.0.0.1:9/Gateway', 'file:///etc/passwd']) {
      writeFileSync(path, original.replace('http://127.0.0.1:9/Gateway', url))
      for (const args of [
        ['profile', 'show', 'shop'],
        ['order', 'query', 'INV-1'],
      ]) {
        const result = await runGw(args, {env: storeEnv('edited')})
        expect(result.code, args.join(' ')).toBe(2)
        expect(result.stderr).toContain('gives profile "shop" a base URL gw would not accept')
        expect(result.stderr + result.stdout).not.toContain('s3cret')
      }
    }
  })
})

describe('against the sandbox', () => {
  let world: GwWorld

  beforeAll(async () => {
    world = await startWorld()
  })

  afterAll(() => world.close())

  describe('encrypted private keys, as merchants have them', () => {
    it('profile show asks for nothing: without the passphrase, appid, URL, mode and gateway key; with it, the key too', async () => {
      const added = await world.run(profileAddWith(world, 'shown', encryptedKey(world, 'pkcs8')), {
        env: {GW_KEY_PASSPHRASE: PASSPHRASE},
      })
      expect(added.code, added.stderr).toBe(0)
      const text = await world.run(['profile', 'show', 'shown'])
      expect(text.code, text.stderr).toBe(0)
      const merchant = world.sandbox.info.merchants[0]!
      expect(text.stdout).toMatch(new RegExp(`appid: +${merchant.appid}`))
      expect(text.stdout).toMatch(new RegExp(`base URL: +${world.sandbox.info.base_url}`))
      expect(text.stdout).toMatch(/mode: +test/)
      expect(text.stdout).toMatch(/gateway key: +RSA 2048 bits, fingerprint ([0-9a-f]{2}:){15}[0-9a-f]{2}/)
      expect(text.stdout).toMatch(
        /private key: +encrypted \(its size and fingerprint with --passphrase-file or GW_KEY_PASSPHRASE\)/,
      )
      expect((await world.run(['profile', 'show', 'shown', '--json'])).json()).toMatchObject({
        appid: merchant.appid,
        private_key: {encrypted: true},
        gateway_public_key: {bits: 2048},
      })
      const opened = await world.run(['profile', 'show', 'shown', '--passphrase-file', passphraseFile(world)])
      expect(opened.stdout).toMatch(/private key: +RSA 2048 bits, fingerprint ([0-9a-f]{2}:){15}[0-9a-f]{2}, encrypted/)
      neverShown(text.stdout, text.stderr, opened.stdout, opened.stderr)
    })
  })
})
