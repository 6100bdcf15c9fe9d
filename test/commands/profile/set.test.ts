/** gw profile set: what is given changed, the rest kept, the profile checked after a change. */

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, runGw, startWorld} from '../../helpers/gw-env.js'
import {profileHome} from '../../helpers/profile-home.js'

const keysHome = profileHome()
const {env, addArgs, add, storeEnv, addTo} = keysHome

describe('gw profile', () => {
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
})

describe('the profile store, as other hands and other processes leave it', () => {
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
})

describe('against the sandbox', () => {
  let world: GwWorld

  beforeAll(async () => {
    world = await startWorld()
  })

  afterAll(() => world.close())

  describe('hints that lead the right way', () => {
    it('profile set --sign-scheme runs doctor', async () => {
      expect((await world.run(world.profileAdd('scheme'))).code).toBe(0)
      const set = await world.run(['profile', 'set', 'scheme', '--sign-scheme', 'rsa-md5'])
      expect(set.code, set.stderr).toBe(0)
      expect(set.stdout).toContain('answer signature')
      expect(set.stdout).toContain('All checks passed.')
    })
  })
})
