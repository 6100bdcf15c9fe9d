/** gw profile remove. */

import {describe, expect, it} from 'vitest'

import {runGw} from '../../helpers/gw-env.js'
import {profileHome} from '../../helpers/profile-home.js'

const keysHome = profileHome()
const {storeEnv, addTo} = keysHome

describe('the profile store, as other hands and other processes leave it', () => {
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
