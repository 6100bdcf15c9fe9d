import {existsSync, statSync, writeFileSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {shellWord} from '../../src/lib/errors.js'
import {runGw} from '../helpers/gw-env.js'
import {gwShellLine} from '../helpers/gw-under-test.js'
import {readShared} from '../helpers/shared.js'
import {removeDir, tempDir} from '../helpers/shared.js'

interface Vectors {
  keys: Record<string, {private_pkcs1?: string; private_pkcs8?: string; public_spki: string; public_pkcs1: string}>
}
const keys = readShared<Vectors>('vectors/signing.json').keys

let home: string
let files: Record<string, string>
const env = () => ({GW_CONFIG_DIR: join(home, 'config')})

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

describe('gw profile', () => {
  it('adds the first profile as the default, with 0600 files in a 0700 folder', async () => {
    const result = await add('shop', ['--live'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      'Profile "shop" saved (default): mch20001 at https://gateway.example/Gateway, LIVE.',
    )
    const config = join(home, 'config')
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

  it('warns about a key under 2048 bits but saves it', async () => {
    const result = await add('small', [], files.small!)
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('the private key has 1024 bits; 2048 or more is advised')
  })

  it('refuses a file that is not a key, exit 2, and saves nothing', async () => {
    const result = await add('broken', [], files.junk!)
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/The private key is not a readable private key/)
    expect(
      (await runGw(['profile', 'list', '--json'], {env: env()}))
        .json<{profiles: {name: string}[]}>()
        .profiles.map((p) => p.name),
    ).not.toContain('broken')
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
      env: {...process.env, ...env(), NODE_ENV: undefined, NO_COLOR: '1'},
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
    const stored = JSON.parse(readFileSync(join(home, 'config', 'profiles.json'), 'utf8')).profiles.stdin
    expect(statSync(stored.private_key_file).mode & 0o777).toBe(0o600)
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
        env: {...process.env, ...env(), NODE_ENV: undefined, NO_COLOR: '1'},
      },
    )
    expect(late.status, late.stderr).toBe(0)
    expect(late.stdout).toContain('Profile "late" saved')
  })

  it('refuses a live profile on plain http:// to another machine unless --allow-plain-http says so', async () => {
    const refused = await runGw([...addArgs('clear', 'http://gateway.example/Gateway'), '--live'], {env: env()})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      "Error: A live profile on plain http:// to gateway.example is refused: its requests, amounts and the gateway's answers would cross the network unencrypted.",
    )
    expect(refused.stderr).toContain(
      "Give the gateway's https:// address (--base-url https://gateway.example/Gateway), or, if this gateway is truly reached over plain HTTP (a private line), add --allow-plain-http.",
    )
    const local = await runGw([...addArgs('local', 'http://127.0.0.1:8787/Gateway'), '--live'], {env: env()})
    expect(local.code, local.stderr).toBe(0)
    const test = await runGw(addArgs('clear', 'http://gateway.example/Gateway'), {env: env()})
    expect(test.code, test.stderr).toBe(0)
    const toLive = await runGw(['profile', 'set', 'clear', '--live'], {env: env()})
    expect(toLive.code).toBe(2)
    const allowed = await runGw(['profile', 'set', 'clear', '--live', '--allow-plain-http'], {env: env()})
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.stdout).toContain('LIVE')
    const doctor = await runGw(['doctor', '--profile', 'clear'], {env: env()})
    expect(doctor.code).toBe(2)
    expect(doctor.stdout).toContain(
      "Use the gateway's https:// address: gw profile set clear --base-url https://gateway.example/Gateway",
    )
    for (const name of ['clear', 'local']) await runGw(['profile', 'remove', name], {env: env()})
  })

  it('refuses a missing flag with exit 2 and a JSON error under --json', async () => {
    const result = await runGw(['profile', 'add', 'x', '--appid', 'mch1', '--json'], {env: env()})
    expect(result.code).toBe(2)
    expect(result.json<{error: {kind: string; message: string}}>().error).toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/base-url/),
    })
  })

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
    const own = join(home, 'own.pub')
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

  it('profile set changes what is given, keeps the rest, and checks the profile after a change of URL or key', async () => {
    expect((await add('edit')).code).toBe(0)
    const before = (await runGw(['profile', 'show', 'edit', '--json'], {env: env()})).json<Record<string, unknown>>()
    const live = await runGw(['profile', 'set', 'edit', '--live'], {env: env()})
    expect(live.code, live.stderr).toBe(0)
    expect(live.stdout).toContain(', LIVE.')
    expect(live.stdout).not.toContain('Checking it against the gateway')
    const moved = await runGw(['profile', 'set', 'edit', '--base-url', 'http://127.0.0.1:9/Gateway'], {env: env()})
    expect(moved.stdout).toContain('Checking it against the gateway (gw doctor):')
    expect(moved.code).toBe(3)
    expect(moved.stderr).toContain('The profile "edit" is saved as given')
    const after = (await runGw(['profile', 'show', 'edit', '--json'], {env: env()})).json<Record<string, unknown>>()
    expect(after).toMatchObject({base_url: 'http://127.0.0.1:9/Gateway', live: true, appid: before.appid})
    expect(after.private_key).toEqual(before.private_key)
    expect((await runGw(['profile', 'set', 'edit'], {env: env()})).stderr).toContain('Nothing to change')
    expect((await runGw(['profile', 'set', 'nope', '--live'], {env: env()})).code).toBe(2)
  })

  /** The variables of a profile from the environment alone, written nowhere. */
  const environmentOnly = () => ({
    ...env(),
    GW_APPID: 'mch77777',
    GW_PRIVATE_KEY: keys.merchant!.private_pkcs1,
    GW_GATEWAY_PUBLIC_KEY: files.gateway,
    GW_BASE_URL: 'http://127.0.0.1:9/Gateway',
  })

  it('uses GW_PROFILE, then an environment-only profile written nowhere', async () => {
    await having('shop', ['--live'])
    expect(
      (await runGw(['profile', 'show', '--json'], {env: {...env(), GW_PROFILE: 'shop'}})).json<{name: string}>().name,
    ).toBe('shop')
    const fromEnv = await runGw(['profile', 'show', '--json'], {env: environmentOnly()})
    expect(fromEnv.code).toBe(0)
    expect(fromEnv.json()).toMatchObject({appid: 'mch77777', source: 'environment'})
    expect(readFileSync(join(home, 'config', 'profiles.json'), 'utf8')).not.toContain('mch77777')
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
  const storeEnv = (name: string) => ({GW_CONFIG_DIR: join(home, name)})
  const addTo = (dir: string, name: string, baseUrl = 'http://127.0.0.1:9/Gateway') =>
    runGw(addArgs(name, baseUrl), {env: storeEnv(dir)})

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

  it('keeps both of two profile set run at once', async () => {
    expect((await addTo('concurrent', 'shop')).code).toBe(0)
    for (let round = 0; round < 5; round++) {
      const scheme = round % 2 ? 'rsa-md5' : 'rsa-sha256'
      const [live, signed] = await Promise.all([
        // Two processes, as two terminals are: in one process the two would never meet in the store's lock.
        runGw(['profile', 'set', 'shop', round % 2 ? '--no-live' : '--live'], {
          env: storeEnv('concurrent'),
          process: true,
        }),
        runGw(['profile', 'set', 'shop', '--sign-scheme', scheme], {env: storeEnv('concurrent'), process: true}),
      ])
      expect(live.code, live.stderr).toBe(0)
      // A new sign scheme is checked by doctor, which finds no gateway at this profile's address (exit 3); the change stays.
      expect(signed.code, signed.stderr).toBe(3)
      expect(signed.stdout).toContain('Profile "shop" saved')
      const shown = await runGw(['profile', 'show', 'shop', '--json'], {env: storeEnv('concurrent')})
      expect(shown.json()).toMatchObject({live: round % 2 === 0, sign_scheme: scheme})
    }
  })

  it('refuses a store holding a name gw would not accept, naming it safely, exit 2', async () => {
    expect((await addTo('hostile', 'shop')).code).toBe(0)
    const path = join(home, 'hostile', 'profiles.json')
    const store = JSON.parse(readFileSync(path, 'utf8')) as {profiles: Record<string, unknown>}
    store.profiles['$(touch pwned)\u001b[2J'] = store.profiles.shop
    writeFileSync(path, JSON.stringify(store))
    const listed = await runGw(['profile', 'list'], {env: storeEnv('hostile')})
    expect(listed.code).toBe(2)
    expect(listed.stderr).toContain('holds a profile named "$(touch pwned)')
    expect(listed.stderr).toContain('which is not a profile name')
    expect(listed.stderr).not.toContain('\u001b')
    // "__proto__" would be taken as the record's prototype by a plain reader, and the profile silently lost.
    writeFileSync(path, readFileSync(path, 'utf8').replace('"$(touch pwned)\\u001b[2J"', '"__proto__"'))
    const proto = await runGw(['profile', 'list'], {env: storeEnv('hostile')})
    expect(proto.code).toBe(2)
    expect(proto.stderr).toContain('holds a profile named "__proto__"')
  })

  it('refuses a store edited to give a base URL gw would not accept, without repeating it', async () => {
    expect((await addTo('edited', 'shop')).code).toBe(0)
    const path = join(home, 'edited', 'profiles.json')
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

  it('says which profiles there are when none is the default', async () => {
    expect((await addTo('nodefault', 'shop')).code).toBe(0)
    expect((await addTo('nodefault', 'other')).code).toBe(0)
    expect((await runGw(['profile', 'remove', 'shop'], {env: storeEnv('nodefault')})).code).toBe(0)
    const shown = await runGw(['order', 'query', 'INV-1'], {env: storeEnv('nodefault')})
    expect(shown.code).toBe(2)
    expect(shown.stderr).toContain('No profile is the default (there are "other").')
    expect(shown.stderr).toContain('gw profile use other')
  })

  it('refuses a base URL carrying a user name or password, and does not echo it', async () => {
    const result = await addTo('userinfo', 'shop', 'https://ops:hunter2@gw.example/Gateway')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('must not carry a user name or password')
    expect(result.stderr).not.toContain('hunter2')
  })
})
