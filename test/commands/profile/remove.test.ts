/** gw profile remove. */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runGw} from '../../helpers/gw-env.js'
import {profileHome} from '../../helpers/profile-home.js'

const keysHome = profileHome()
const {addArgs} = keysHome

describe('the profile store, as other hands and other processes leave it', () => {
  const storeEnv = (name: string) => ({GW_CONFIG_DIR: join(keysHome.home, name)})

  const addTo = (dir: string, name: string, baseUrl = 'http://127.0.0.1:9/Gateway') =>
    runGw(addArgs(name, baseUrl), {env: storeEnv(dir)})

  it('says which profiles there are when none is the default', async () => {
    expect((await addTo('nodefault', 'shop')).code).toBe(0)
    expect((await addTo('nodefault', 'other')).code).toBe(0)
    expect((await runGw(['profile', 'remove', 'shop'], {env: storeEnv('nodefault')})).code).toBe(0)
    const shown = await runGw(['order', 'query', 'INV-1'], {env: storeEnv('nodefault')})
    expect(shown.code).toBe(2)
    expect(shown.stderr).toContain('No profile is the default (there are "other").')
    expect(shown.stderr).toContain('gw profile use other')
  })
})
