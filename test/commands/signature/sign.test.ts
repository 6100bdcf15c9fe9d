/** gw signature sign: the canonical string and signature, a key pasted as a parameter withheld. */
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {expectNoKey, merchantPem} from '../../helpers/merchant-keys.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('gw signature', () => {
  it('signs parameters and verifies a saved response; a changed body fails with exit 4', async () => {
    const signed = await world.run(['signature', 'sign', '--param', 'b=2', '--param', 'a=1', '--json'])
    expect(signed.json()).toMatchObject({
      canonical: 'a=1b=2',
      scheme: 'rsa-md5',
      sign: expect.stringMatching(/^[0-9a-f]{512}$/),
    })
    const answer = await world.sandbox.wire().call('order_query', {channel: 'wechat', mch_order_no: 'NOPE'})
    const file = join(world.configDir, 'answer.json')
    const {writeFileSync} = await import('node:fs')
    writeFileSync(file, JSON.stringify(answer.envelope))
    const ok = await world.run(['signature', 'verify', file])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('valid')
    writeFileSync(file, JSON.stringify({...answer.envelope, data: {...answer.data, err_msg: 'changed'}}))
    const bad = await world.run(['signature', 'verify', file, '--json'])
    expect(bad.code).toBe(4)
    expect(bad.json()).toMatchObject({valid: false})
    const stdin = await world.run(['signature', 'verify', '-'], {input: JSON.stringify(answer.envelope)})
    expect(stdin.code).toBe(0)
    const junk = await world.run(['signature', 'verify', '-'], {input: 'not json'})
    expect(junk.code).toBe(2)
  })
})

describe('private keys are never printed', () => {
  it('pasted as a parameter to sign: signed as given, withheld where the canonical string is shown', async () => {
    for (const json of [[], ['--json']]) {
      const signed = await world.run([
        'signature',
        'sign',
        '--param',
        `k=${merchantPem(world)}`,
        '--param',
        'a=1',
        ...json,
      ])
      expect(signed.code, signed.stderr).toBe(0)
      expect(signed.stdout).toContain('[private key withheld]')
      expectNoKey(world, signed.stdout + signed.stderr)
    }
  })
})
