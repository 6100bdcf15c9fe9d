/** gw doctor: a profile checked against its gateway, each failure with the advice that mends it. */
import {generateKeyPairSync} from 'node:crypto'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {encryptedKey, PASSPHRASE, profileAddWith} from '../helpers/merchant-keys.js'
import {readShared, tempFile} from '../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../helpers/terminal.js'
import {isoTime} from '../../src/lib/gateway/protocol/index.js'

/** Keys from ../shared/vectors: a key pair the sandbox has never seen. */
const strangerKeys = readShared<{keys: Record<string, {private_pkcs1?: string; public_spki: string}>}>(
  'vectors/signing.json',
).keys

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('gw doctor', () => {
  it('passes every check against the sandbox', async () => {
    const result = await world.run(['doctor'])
    expect(result.code).toBe(0)
    for (const name of [
      'profile',
      'private key',
      'gateway key',
      'reachable',
      'signed request',
      'answer signature',
      'clock',
    ])
      expect(result.stdout).toMatch(new RegExp(`✔ ${name}:`))
  })

  it('diagnoses a wrong private key as a rejected signature', async () => {
    const other = tempFile('stranger.pem', strangerKeys.merchant!.private_pkcs1!)
    const env = world.environmentProfile({GW_PRIVATE_KEY: other})
    const result = await world.run(['doctor', '--json'], {env})
    expect(result.code).toBe(1)
    const report = result.json<{checks: {name: string; verdict: string; advice?: string}[]}>()
    expect(report.checks.find((c) => c.name === 'signed request')).toMatchObject({
      verdict: 'fail',
      advice: expect.stringContaining('private key is not the one registered'),
    })
  })

  it("a wrong private key's advice holds commands to paste: the key's public half to compare, the other scheme", async () => {
    const other = tempFile('stranger.pem', strangerKeys.merchant!.private_pkcs1!)
    const added = await world.run(profileAddWith(world, 'stranger', other))
    expect(added.code, added.stderr).toBe(0)
    const result = await world.run(['doctor', '--profile', 'stranger'])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      'the gateway expects the other sign scheme: gw profile set stranger --sign-scheme rsa-sha256.',
    )
    const openssl = /openssl pkey -pubout -in \S+/.exec(result.stdout)![0]
    const {execSync} = await import('node:child_process')
    expect(execSync(openssl, {encoding: 'utf8', shell: '/bin/sh'})).toBe(strangerKeys.merchant!.public_spki)
    const scheme = await world.asPrinted('gw profile set stranger --sign-scheme rsa-sha256')
    expect(scheme.stdout).toContain('rsa-sha256')
    await world.run(['profile', 'remove', 'stranger'])
  })

  it('a live profile on plain http:// to another machine fails doctor with the address to use; nothing is sent', async () => {
    const before = await world.requests()
    const env = world.environmentProfile({GW_LIVE: '1', GW_BASE_URL: 'http://gateway.example/Gateway'})
    const result = await world.run(['doctor'], {env})
    expect(result.code).toBe(2)
    expect(result.stdout).toContain(
      '✘ https: a live profile sending to gateway.example over plain http://: requests, amounts and answers cross the network unencrypted',
    )
    expect(result.stdout).toContain("Use the gateway's https:// address: GW_BASE_URL=https://gateway.example/Gateway")
    expect(result.stdout).not.toMatch(/reachable|signed request/)
    expect(await world.requests()).toEqual(before)
  })

  it('an unreachable live gateway is said without a word of the sandbox', async () => {
    const env = world.environmentProfile({GW_LIVE: '1', GW_BASE_URL: 'http://127.0.0.1:9/Gateway'})
    const result = await world.run(['doctor'], {env})
    expect(result.code).toBe(3)
    expect(result.stdout).toMatch(/✘ reachable/)
    expect(result.stdout).toContain('the network, a proxy or firewall between')
    expect(result.stdout).not.toMatch(/sandbox/i)
  })

  it('diagnoses a wrong gateway key, exit 4', async () => {
    const merchant = world.sandbox.info.merchants[0]!
    const env = {
      GW_APPID: merchant.appid,
      GW_PRIVATE_KEY: merchant.private_key_file,
      GW_GATEWAY_PUBLIC_KEY: tempFile('stranger.pub', strangerKeys.gateway!.public_spki),
      GW_BASE_URL: world.sandbox.info.base_url,
    }
    const result = await world.run(['doctor'], {env})
    expect(result.code).toBe(4)
    expect(result.stdout).toMatch(/✘ answer signature/)
  })

  it('diagnoses an unknown appid and a closed port', async () => {
    const merchant = world.sandbox.info.merchants[0]!
    const base = {
      GW_PRIVATE_KEY: merchant.private_key_file,
      GW_GATEWAY_PUBLIC_KEY: world.sandbox.info.gateway_public_key_file,
    }
    const appid = await world.run(['doctor'], {
      env: {...base, GW_APPID: 'mch1', GW_BASE_URL: world.sandbox.info.base_url},
    })
    expect(appid.code).toBe(1)
    expect(appid.stdout).toContain('does not know this appid')
    const closed = await world.run(['doctor'], {
      env: {...base, GW_APPID: merchant.appid, GW_BASE_URL: 'http://127.0.0.1:9/Gateway'},
    })
    expect(closed.code).toBe(3)
    expect(closed.stdout).toMatch(/✘ reachable/)
  })
})

describe('encrypted private keys, as merchants have them', () => {
  it.skipIf(!HAS_TMUX)(
    'on a terminal, asks for the passphrase with hidden input; Ctrl-C there is exit 130',
    async () => {
      const added = await world.run(profileAddWith(world, 'asked', encryptedKey(world, 'pkcs1')), {
        env: {GW_KEY_PASSPHRASE: PASSPHRASE},
      })
      expect(added.code, added.stderr).toBe(0)
      const terminal = new Terminal(['doctor', '-p', 'asked'], {GW_CONFIG_DIR: world.configDir})
      try {
        await terminal.waitFor(/Passphrase of the private key of profile "asked"/)
        terminal.type(PASSPHRASE)
        const screen = await terminal.waitFor(/EXIT=\d+/)
        expect(screen).toContain('All checks passed.')
        expect(screen).toContain('EXIT=0')
        expect(screen).not.toContain(PASSPHRASE)
      } finally {
        terminal.close()
      }
      const stopped = new Terminal(['doctor', '-p', 'asked'], {GW_CONFIG_DIR: world.configDir})
      try {
        await stopped.waitFor(/Passphrase of the private key of profile "asked"/)
        stopped.press('C-c')
        const screen = await stopped.waitFor(/EXIT=\d+/)
        expect(screen).toContain('Stopped before the passphrase was given: nothing was sent.')
        expect(screen).toContain('EXIT=130')
      } finally {
        stopped.close()
      }
    },
  )
})

describe('hints that lead the right way', () => {
  it('a wrong gateway key: doctor advises gw profile set NAME --gateway-public-key FILE', async () => {
    const other = join(world.configDir, 'other-gateway.pem')
    writeFileSync(
      other,
      generateKeyPairSync('rsa', {modulusLength: 2048}).publicKey.export({type: 'spki', format: 'pem'}),
    )
    const args = world.profileAdd('wrong-gateway')
    args[args.indexOf('--gateway-public-key') + 1] = other
    expect((await world.run(args)).code).toBe(0)
    const doctor = await world.run(['doctor', '-p', 'wrong-gateway'])
    expect(doctor.code).toBe(4)
    expect(doctor.stdout).toContain('gw profile set wrong-gateway --gateway-public-key FILE')
    expect(doctor.stdout).not.toContain('add the profile again')
  })
})

describe('flags checked before any work', () => {
  it('--timeout takes a length of time as --since does: 60s, 1m, or seconds', async () => {
    for (const timeout of ['60s', '1m', '60']) {
      const doctor = await world.run(['doctor', '--timeout', timeout])
      expect(doctor.code, `${timeout}: ${doctor.stderr}`).toBe(0)
    }
  })
})

describe('gw doctor and the gateway zone (a world of its own)', () => {
  let world: GwWorld
  beforeAll(async () => {
    world = await startWorld({spawned: false})
  })
  afterAll(() => world.close())

  /** The offset the sandbox (in this process) writes its time stamps at, and a zone that is never at it. */
  const written = isoTime().slice(-6)
  const wrongZone = written === '+14:00' ? 'Pacific/Honolulu' : 'Pacific/Kiritimati'
  const wrongOffset = wrongZone === 'Pacific/Kiritimati' ? '+14:00' : '-10:00'

  describe('gw doctor: the gateway zone', () => {
    it('passes when the time stamps are at the offset of the profile zone', async () => {
      const result = await world.run(['doctor'])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(/✔ gateway zone: the gateway's time stamps are at the offset of /)
      expect(result.stdout).toContain('All checks passed.')
    })

    it('says a zone that disagrees, how far the times are off, and the command that fixes it, which does', async () => {
      const added = await world.run(
        world.profileAdd('far').map((word, i, all) => (all[i - 1] === '--gateway-zone' ? wrongZone : word)),
      )
      expect(added.code, added.stderr).toBe(0)
      const result = await world.run(['doctor', '--profile', 'far'])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain(
        `! gateway zone: the gateway writes its time stamps at ${written}, but profile "far" reads its times in ${wrongZone} (${wrongOffset} then): the paid-at and refund times shown are `,
      )
      const fix = `gw profile set far --gateway-zone ${written}`
      expect(result.stdout).toContain(
        `its offset, as here, or its name if its clocks change (zones at ${written} now: `,
      )
      expect(result.stdout).toContain(`: ${fix}\n`)
      expect(result.stdout).not.toContain('All checks passed.')
      expect(result.stdout).toContain('The checks passed but one needs a look: see the advice above.')
      const report = (await world.run(['doctor', '--profile', 'far', '--json'])).json<{checks: {name: string}[]}>()
      expect(report.checks.find((c) => c.name === 'gateway zone')).toMatchObject({verdict: 'warn'})

      const fixed = await world.asPrinted(fix)
      expect(fixed.code, fixed.stderr).toBe(0)
      const again = await world.run(['doctor', '--profile', 'far'])
      expect(again.stdout).toMatch(/✔ gateway zone: /)
      expect(again.stdout).toContain('All checks passed.')
      await world.run(['profile', 'remove', 'far'])
    })

    it('names the variable to set for a profile of the environment', async () => {
      const env = world.environmentProfile({GW_GATEWAY_ZONE: wrongZone})
      const result = await world.run(['doctor'], {env})
      expect(result.stdout).toContain(`: GW_GATEWAY_ZONE=${written}\n`)
    })
  })

  describe('a command that shows times, the gateway zone wrong', () => {
    it('warns once, however many answers disagree; never with the right zone', async () => {
      await world.createOrder('ZONE-1', 'wechat', '30.00')
      await world.pay('ZONE-1')
      const env = world.environmentProfile({GW_GATEWAY_ZONE: wrongZone})
      // A refund asks the order, refunds, and asks the refund: three answers, one warning.
      const refunded = await world.run(['refund', 'create', 'ZONE-1', '--amount', '5.00'], {env})
      expect(refunded.code, refunded.stderr).toBe(0)
      const warned = refunded.stderr.split(`the gateway writes its time stamps at ${written}`).length - 1
      expect(warned).toBe(1)
      const query = await world.run(['order', 'query', 'ZONE-1'], {env})
      expect(query.code, query.stderr).toBe(0)
      expect(query.stderr).toContain(`reads its times in ${wrongZone}`)
      expect(query.stderr).toContain(`GW_GATEWAY_ZONE=${written}`)

      const right = await world.run(['order', 'query', 'ZONE-1'])
      expect(right.code, right.stderr).toBe(0)
      expect(right.stderr).not.toContain('time stamps')
    })
  })

  describe('gw doctor: a base URL without the path of the operations', () => {
    it('says the path after a 404, as a command that fixes it', async () => {
      const origin = world.sandbox.info.origin
      const env = world.environmentProfile({GW_BASE_URL: origin})
      const bare = await world.run(['doctor'], {env})
      expect(bare.code).toBe(3)
      expect(bare.stdout).toContain(`GW_BASE_URL=${origin}/Gateway`)

      const added = await world.run(
        world.profileAdd('bare').map((word, i, all) => (all[i - 1] === '--base-url' ? `${origin}/` : word)),
      )
      expect(added.code, added.stderr).toBe(0)
      const result = await world.run(['doctor', '--profile', 'bare'])
      expect(result.code).toBe(3)
      const fix = `gw profile set bare --base-url ${origin}/Gateway`
      expect(result.stdout).toContain(
        `Nothing answers the operations at ${origin}: the base URL goes up to the operation's name, which the gateway serves under /Gateway (${origin}/Gateway/order_query). Give it the path: ${fix}\n`,
      )
      expect((await world.asPrinted(fix)).code).toBe(0)
      expect((await world.run(['doctor', '--profile', 'bare'])).stdout).toContain('All checks passed.')
      await world.run(['profile', 'remove', 'bare'])
    })
  })
})
