/** gw signature verify: a saved response checked, and a failed signature explained. */

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {expectNoKey, merchantKeyLines, merchantPem} from '../../helpers/merchant-keys.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('gw signature', () => {
  it("explains a request whose signature fails as the sandbox's log does", async () => {
    const merchant = world.sandbox.info.merchants[0]!
    const params = {...world.sandbox.wire().signed({channel: 'wechat', mch_order_no: 'X-1'}), product: 'added later'}
    const args = ['signature', 'verify', '-', '--public-key', merchant.public_key_file]
    const text = await world.run(args, {input: JSON.stringify(params)})
    expect(text.code).toBe(4)
    expect(text.stdout).toContain('  likeliest cause: parameter product was sent but not signed')
    expect(text.stdout).toMatch(
      / {2}canonical string: appid=mch\d+channel=wechatmch_order_no=X-1nonce_str=\w+product=added latertime_stamp=\d{14}\n/,
    )
    const json = await world.run([...args, '--json'], {input: JSON.stringify(params)})
    expect(json.json()).toMatchObject({valid: false, explanation: {cause: 'parameter product was sent but not signed'}})
  })
})

describe('private keys are never printed', () => {
  it('standard input given for two things (a body or parameters, and a key): refused naming what took it, the key not shown', async () => {
    const verify = await world.run(['signature', 'verify', '-', '--public-key', '-'], {input: merchantPem(world)})
    expect(verify.code).toBe(2)
    expect(verify.stderr).toContain('--public-key -: standard input was read already for FILE')
    const sign = await world.run(['signature', 'sign', '--params-file', '-', '--private-key', '-'], {
      input: merchantPem(world),
    })
    expect(sign.code).toBe(2)
    expect(sign.stderr).toContain('--params-file -: it is not JSON.')
    // A key's body without its PEM lines, given as the parameters: the parser's words would quote it.
    const body = merchantKeyLines(world).join('\n')
    const bare = await world.run(['signature', 'sign', '--params-file', '-', '--param', 'a=1'], {input: body})
    expect(bare.stderr).toContain('--params-file -: it is not JSON.')
    for (const result of [verify, sign, bare]) expectNoKey(world, result.stdout + result.stderr)
  })
})
