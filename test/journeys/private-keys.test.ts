/**
 * A journey across commands: a private key is never printed, in any error or --json document, whichever
 * input takes it.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {expectNoKey, merchantKeyLines, merchantPem} from '../helpers/merchant-keys.js'

let world: GwWorld

const merchant = () => world.sandbox.info.merchants[0]!

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('private keys are never printed', () => {
  /** The key in each wrong form a user could paste it in. */
  const wrongForms = (): [string, string][] => {
    const lines = merchantKeyLines(world)
    const body = lines.join('')
    return [
      ['the base64 body on one line', body],
      ['the base64 body on its lines, without armour', lines.join('\n')],
      ['a slash before the body', `/${body}`],
      [
        'armour around a damaged body',
        merchantPem(world)
          .replace(/[A-Z]/, '*')
          .replace(/[a-z]{4}/, '!!!!'),
      ],
      ['the wrong armour', merchantPem(world).replace(/PRIVATE KEY/g, 'CERTIFICATE')],
      ['a file holding the body', world.numberedFile('body.pem', body)],
    ]
  }

  it('in any error, any --json document, whichever input takes the key', async () => {
    const {base_url, gateway_public_key_file} = world.sandbox.info
    const env = (vars: Record<string, string>) => ({
      GW_APPID: merchant().appid,
      GW_BASE_URL: base_url,
      GW_PRIVATE_KEY: merchant().private_key_file,
      GW_GATEWAY_PUBLIC_KEY: gateway_public_key_file,
      ...vars,
    })
    /** `gw profile add k` of a merchant of the sandbox's gateway with these keys, then `extra`. */
    const addK = (privateKey: string, gatewayKey: string, ...extra: string[]) =>
      world.run([
        ...['profile', 'add', 'k', '--appid', 'mch1', '--base-url', base_url],
        ...['--private-key', privateKey, '--gateway-public-key', gatewayKey, ...extra],
      ])
    for (const [form, value] of wrongForms()) {
      const runs = [
        world.run(['order', 'query', 'X', '--channel', 'wechat'], {env: env({GW_PRIVATE_KEY: value})}),
        world.run(['doctor', '--json'], {env: env({GW_PRIVATE_KEY: value})}),
        world.run(['order', 'query', 'X', '--channel', 'wechat', '--json'], {env: env({GW_GATEWAY_PUBLIC_KEY: value})}),
        addK(value, gateway_public_key_file, '--json'),
        addK(merchant().private_key_file, value),
        world.run(['signature', 'sign', '--param', 'a=1', '--private-key', value, '--json']),
        world.run(['signature', 'verify', '-', '--public-key', value], {input: '{"data":{"a":1},"sign":"00"}'}),
      ]
      for (const result of await Promise.all(runs)) {
        expect(result.code, `${form}: ${result.stderr}`).toBe(2)
        // The error (or doctor's failed check) was said where the test reads it: nothing went around the streams.
        expect(result.stdout + result.stderr).toMatch(/Error: |"error":|"ok": false/)
        expectNoKey(world, result.stdout + result.stderr)
      }
    }
  })

  it('pasted where a flag or a command was mistyped, or into a flag for something else: exit 2, the key not shown', async () => {
    // Key text as it would be pasted (not the form that is a path to a file).
    const pasted = wrongForms().filter(([form]) => !form.startsWith('a file'))
    for (const [form, value] of [['the PEM file as it is', merchantPem(world)] as [string, string], ...pasted]) {
      const runs = [
        world.run(['profile', 'set', 'sandbox', `--privat-key=${value}`]),
        world.run(['profile', 'set', 'sandbox', '--privat-key', value, '--json']),
        world.run(['profle', 'add', 't2', '--private-key', value], {process: true}),
        world.run(['order', 'create', '--channel', 'wechat', '--amount', '1', '--fee-type', value, '--json']),
        world.run(['order', 'query', value, '--channel', 'wechat']),
      ]
      for (const result of await Promise.all(runs)) {
        expect(result.code, `${form}: ${result.stderr}`).toBe(2)
        // The error (or doctor's failed check) was said where the test reads it: nothing went around the streams.
        expect(result.stdout + result.stderr).toMatch(/Error: |"error":|"ok": false/)
        expectNoKey(world, result.stdout + result.stderr)
      }
    }
  })

  it('a profile whose key file is not a key: exit 2 in every command, the key not shown', async () => {
    const added = await world.run([
      'profile',
      'add',
      'broken',
      '--appid',
      merchant().appid,
      '--base-url',
      world.sandbox.info.base_url,
      '--private-key',
      merchant().private_key_file,
      '--gateway-public-key',
      world.sandbox.info.gateway_public_key_file,
    ])
    expect(added.code).toBe(0)
    const stored = JSON.parse(readFileSync(join(world.configDir, 'profiles.json'), 'utf8')).profiles.broken
    writeFileSync(stored.private_key_file, merchantKeyLines(world).join(''))
    for (const args of [
      ['order', 'query', 'X', '--channel', 'wechat'],
      ['refund', 'query', 'X', '--channel', 'wechat'],
      ['doctor'],
      ['profile', 'show', 'broken'],
    ]) {
      const result = await world.run([...args, '--profile', 'broken'])
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2)
      expect(result.stdout + result.stderr).toContain('private key of profile "broken" is not a readable private key')
      expectNoKey(world, result.stdout + result.stderr)
    }
  })
})
