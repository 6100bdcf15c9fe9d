/** gw profile add: a profile stored with its keys (0600 files, a 0700 folder), checked, asked for on a terminal. */
import {chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {shellWord} from '../../../src/lib/errors.js'
import {type GwWorld, runGw, startWorld} from '../../helpers/gw-env.js'
import {gwShellLine, shellEnvironment} from '../../helpers/gw-under-test.js'
import {merchantPem, profileAddWith} from '../../helpers/merchant-keys.js'
import {profileHome} from '../../helpers/profile-home.js'
import {removeDir, tempDir} from '../../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../../helpers/terminal.js'

const keysHome = profileHome()
const {keys, files, env, addArgs, add, having, addTo} = keysHome

describe('gw profile', () => {
  it('adds the first profile as the default, with 0600 files in a 0700 folder', async () => {
    const result = await add('shop', ['--live'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      'Profile "shop" saved (default): mch20001 at https://gateway.example/Gateway, LIVE.',
    )
    const config = join(keysHome.home, 'config')
    expect(statSync(config).mode & 0o777).toBe(0o700)
    expect(statSync(join(config, 'keys')).mode & 0o777).toBe(0o700)
    expect(statSync(join(config, 'profiles.json')).mode & 0o777).toBe(0o600)
    const stored = JSON.parse(readFileSync(join(config, 'profiles.json'), 'utf8')).profiles.shop
    expect(dirname(stored.private_key_file)).toBe(join(config, 'keys'))
    expect(statSync(stored.private_key_file).mode & 0o777).toBe(0o600)
    expect(readFileSync(stored.private_key_file, 'utf8')).toBe(keys.merchant!.private_pkcs1)
  })

  it('keeps the default when a second profile is added, and accepts a PKCS#1 gateway key', async () => {
    await having('shop', ['--live'])
    const result = await runGw(
      [
        'profile',
        'add',
        'test',
        '--appid',
        'mch20002',
        '--base-url',
        'http://127.0.0.1:8787/Gateway',
        '--private-key',
        files.merchant!,
        '--gateway-public-key',
        files.gatewayPkcs1!,
        '--sign-scheme',
        'rsa-sha256',
      ],
      {env: env()},
    )
    expect(result.code).toBe(0)
    const list = (await runGw(['profile', 'list', '--json'], {env: env()})).json<{
      profiles: {name: string; default: boolean; live: boolean}[]
    }>()
    expect(list.profiles).toEqual([
      expect.objectContaining({name: 'shop', default: true, live: true}),
      expect.objectContaining({name: 'test', default: false, live: false}),
    ])
  })

  it('warns about a key under 2048 bits but saves it', async () => {
    const result = await add('small', [], files.small!)
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('the private key has 1024 bits; 2048 or more is advised')
  })

  it('a piped key that is not one is refused without a word of it, nor one piped twice', async () => {
    const secret = 'MIIEowIBAAKCAQEAsecretsecretsecret'
    const broken = await runGw(addArgs('broken-pipe', 'https://gateway.example/Gateway/', '-'), {
      env: env(),
      input: `-----BEGIN RSA PRIVATE KEY-----\n${secret}\n-----END RSA PRIVATE KEY-----\n`,
    })
    expect(broken.code).toBe(2)
    expect(broken.stderr).toMatch(/The private key is not a readable private key/)
    expect(broken.stdout + broken.stderr).not.toContain(secret)
    const twice = await runGw([...addArgs('twice', 'https://gateway.example/Gateway/', '-').slice(0, -1), '-'], {
      env: env(),
      input: keys.merchant!.private_pkcs1!,
    })
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain(
      '--gateway-public-key -: standard input was read already for --private-key; one input at most comes from it.',
    )
  })

  it('waits for a key piped by a command that writes it late (pass asking for its passphrase first)', async () => {
    const args = addArgs('late', 'https://gateway.example/Gateway/', '-').map(shellWord).join(' ')
    const {spawnSync} = await import('node:child_process')
    const late = spawnSync(
      'bash',
      ['-c', `(sleep 1; cat ${shellWord(files.merchant!)}) | ${gwShellLine([])} ${args}`],
      {
        encoding: 'utf8',
        env: shellEnvironment(env()),
      },
    )
    expect(late.status, late.stderr).toBe(0)
    expect(late.stdout).toContain('Profile "late" saved')
  })

  it('refuses a missing flag with exit 2 and a JSON error under --json', async () => {
    const result = await runGw(['profile', 'add', 'x', '--appid', 'mch1', '--json'], {env: env()})
    expect(result.code).toBe(2)
    expect(result.json<{error: {kind: string; message: string}}>().error).toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/base-url/),
    })
  })

  it('refuses a base URL ending in an operation, saying which part to drop', async () => {
    const keyFlags = ['--private-key', files.merchant!, '--gateway-public-key', files.gateway!]
    const url = 'https://gw.example/Gateway/native_pay/'
    const result = await runGw(['profile', 'add', 'op', '--appid', 'mch1', '--base-url', url, ...keyFlags], {
      env: env(),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('ends in the operation /native_pay')
    expect(result.stderr).toContain('Drop "/native_pay": give https://gw.example/Gateway.')
  })

  it("refuses the merchant's own public key given as the gateway's, and saves nothing", async () => {
    const own = join(keysHome.home, 'own.pub')
    writeFileSync(own, keys.merchant!.public_spki)
    const keyFlags = ['--private-key', files.merchant!, '--gateway-public-key', own]
    const url = 'http://127.0.0.1:9/Gateway'
    const result = await runGw(['profile', 'add', 'own', '--appid', 'mch1', '--base-url', url, ...keyFlags], {
      env: env(),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('The gateway public key is the public half of your own private key')
    expect((await runGw(['profile', 'list', '--json'], {env: env()})).stdout).not.toContain('"own"')
  })
})

describe('the profile store, as other hands and other processes leave it', () => {
  it('refuses a base URL carrying a user name or password, and does not echo it', async () => {
    const result = await addTo('userinfo', 'shop', 'https://ops:hunter2@gw.example/Gateway')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('must not carry a user name or password')
    expect(result.stderr).not.toContain('hunter2')
  })
})

describe('against the sandbox', () => {
  // CI installs both (.ci/run); elsewhere these tests say they were skipped rather than pass.
  const CI = Boolean(process.env.CI)

  let world: GwWorld

  beforeAll(async () => {
    world = await startWorld()
  })

  afterAll(() => world.close())

  describe.skipIf(!HAS_TMUX && !CI)('gw profile add on a terminal', () => {
    it('asks for what is missing, checks each answer, saves the profile and runs doctor on it', async () => {
      const config = tempDir('gw-guided-')
      const merchant = world.sandbox.info.merchants[0]!
      // The zone the sandbox writes its times in, given: the rest is asked.
      const zone = ['--gateway-zone', world.sandbox.info.gateway_zone]
      // The key kept in the home folder, named as people type it: ~/keys/my.pem.
      const home = join(config, 'home')
      mkdirSync(join(home, 'keys'), {recursive: true})
      copyFileSync(merchant.private_key_file, join(home, 'keys', 'my.pem'))
      const terminal = new Terminal(['profile', 'add', ...zone], {GW_CONFIG_DIR: config, HOME: home})
      try {
        await terminal.waitFor(/Profile name/)
        terminal.type('guided')
        await terminal.waitFor(/Merchant appid/)
        terminal.type(merchant.appid)
        await terminal.waitFor(/Gateway base URL/)
        terminal.type('not a url')
        await terminal.waitFor(/base URL "not a url" is not a URL/)
        terminal.erase(9)
        terminal.type(world.sandbox.info.base_url)
        await terminal.waitFor(/private key file/)
        terminal.type(join(config, 'no-such.pem'))
        await terminal.waitFor(/There is no file/)
        terminal.erase(join(config, 'no-such.pem').length)
        terminal.type('~/keys/my.pem')
        await terminal.waitFor(/gateway public key file/)
        terminal.type(world.sandbox.info.gateway_public_key_file)
        await terminal.waitFor(/Which kind of account is it\?/)
        terminal.press('Enter')
        const screen = await terminal.waitFor(/EXIT=\d+/)
        expect(screen).toContain(`Profile "guided" saved (default): ${merchant.appid}`)
        expect(screen).not.toContain('LIVE')
        expect(screen).toContain('✔ signed request')
        expect(screen).toContain('All checks passed.')
        expect(screen).toContain('EXIT=0')
      } finally {
        terminal.close()
        removeDir(config)
      }
    })

    it('Ctrl-C at a question stops it as the signal does (exit 130), saving nothing', async () => {
      const config = tempDir('gw-guided-')
      const terminal = new Terminal(['profile', 'add'], {GW_CONFIG_DIR: config})
      try {
        await terminal.waitFor(/Profile name/)
        terminal.type('stopped')
        await terminal.waitFor(/Merchant appid/)
        terminal.press('C-c')
        const screen = await terminal.waitFor(/EXIT=\d+/)
        expect(screen).toContain('Stopped before the question was answered: no profile was saved.')
        expect(screen).not.toContain('unexpected failure')
        expect(screen).toContain('EXIT=130')
        const listed = await world.run(['profile', 'list', '--json'], {env: {GW_CONFIG_DIR: config}})
        expect(listed.stdout).not.toContain('stopped')
      } finally {
        terminal.close()
        removeDir(config)
      }
    })

    it("keeps a profile whose closing doctor fails, says so, and exits with the doctor's code", async () => {
      const config = tempDir('gw-guided-')
      const merchant = world.sandbox.info.merchants[0]!
      const args = ['--appid', 'mch99999', '--base-url', world.sandbox.info.base_url]
      const keys = [
        '--private-key',
        merchant.private_key_file,
        '--gateway-public-key',
        world.sandbox.info.gateway_public_key_file,
      ]
      const terminal = new Terminal(['profile', 'add', ...args, ...keys], {GW_CONFIG_DIR: config})
      try {
        await terminal.waitFor(/Profile name/)
        terminal.type('wrong-appid')
        await terminal.waitFor(/Which kind of account is it\?/)
        terminal.press('Down')
        terminal.press('Enter')
        const screen = await terminal.waitFor(/EXIT=\d+/)
        expect(screen).toContain('Profile "wrong-appid" saved (default): mch99999')
        expect(screen).toContain(', LIVE.')
        expect(screen).toContain('The profile "wrong-appid" is saved as given; fix what failed')
        expect(screen).not.toContain('EXIT=0')
        const listed = await world.run(['profile', 'list', '--json'], {env: {GW_CONFIG_DIR: config}})
        expect(listed.stdout).toContain('wrong-appid')
      } finally {
        terminal.close()
        removeDir(config)
      }
    })
  })

  describe('gw profile add without a terminal', () => {
    it('names every missing flag, exit 2', async () => {
      const result = await world.run(['profile', 'add', '--appid', 'mch1'])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('Missing: NAME, --base-url, --private-key, --gateway-public-key.')
    })
  })

  describe('the profile store', () => {
    it('keeps every profile when eight are added at once, and no key file without its profile', async () => {
      const config = tempDir('gw-profiles-')
      try {
        const adds = Array.from({length: 8}, (_, i) =>
          world.run(world.profileAdd(`p${i}`), {env: {GW_CONFIG_DIR: config}}),
        )
        for (const result of await Promise.all(adds)) expect(result.code, result.stderr).toBe(0)
        const listed = (await world.run(['profile', 'list', '--json'], {env: {GW_CONFIG_DIR: config}})).json<{
          profiles: {name: string}[]
        }>()
        expect(listed.profiles.map((p) => p.name).sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'])
        expect(readdirSync(join(config, 'keys'))).toHaveLength(16)
        const replaced = await world.run(world.profileAdd('p0'), {env: {GW_CONFIG_DIR: config}})
        expect(replaced.code).toBe(0)
        expect(readdirSync(join(config, 'keys'))).toHaveLength(16)
      } finally {
        removeDir(config)
      }
    })
  })

  describe('private keys are never printed', () => {
    it('profile add warns when the private key file can be read by others; doctor reports store files that are not private', async () => {
      const loose = world.numberedFile('loose.pem', merchantPem(world))
      chmodSync(loose, 0o644)
      const added = await world.run(profileAddWith(world, 'loose', loose))
      expect(added.code).toBe(0)
      expect(added.stderr).toContain(`can be read by others than you (mode 0644)`)
      chmodSync(join(world.configDir, 'profiles.json'), 0o644)
      const doctor = await world.run(['doctor', '--profile', 'loose'])
      expect(doctor.stdout).toMatch(/! store files: readable by others than you: .*profiles\.json \(0644\)/)
      chmodSync(join(world.configDir, 'profiles.json'), 0o600)
    })
  })
})
