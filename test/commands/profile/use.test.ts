/** gw profile use: the default profile. */

import {describe, expect, it} from 'vitest'

import {runGw} from '../../helpers/gw-env.js'
import {profileHome} from '../../helpers/profile-home.js'

const keysHome = profileHome()
const {env, having} = keysHome

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
