/** gw profile list: the profiles stored, and a store gw would not accept refused. */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runGw} from '../../helpers/gw-env.js'
import {profileHome} from '../../helpers/profile-home.js'

const keysHome = profileHome()
const {files, env, addArgs, add, storeEnv, addTo} = keysHome

describe('gw profile', () => {
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
})

describe('gw profile list', () => {
  it('is a table on a terminal, a tab-separated line per profile in a pipe, and --limit keeps the first by name', async () => {
    const listedEnv = storeEnv('listed')
    for (const name of ['shop-b', 'shop-a', 'shop-c'])
      expect((await runGw(addArgs(name, `https://${name}.example/Gateway`), {env: listedEnv})).code).toBe(0)
    const piped = await runGw(['profile', 'list'], {env: listedEnv})
    expect(piped.code, piped.stderr).toBe(0)
    // The first added is the default (*); sorted by name.
    expect(piped.stdout).toBe(
      [
        '\tshop-a\tmch20001\thttps://shop-a.example/Gateway\ttest',
        '*\tshop-b\tmch20001\thttps://shop-b.example/Gateway\ttest',
        '\tshop-c\tmch20001\thttps://shop-c.example/Gateway\ttest',
        '',
      ].join('\n'),
    )
    expect(piped.stderr).toBe('')
    const terminal = await runGw(['profile', 'list', '--limit', '2'], {env: listedEnv, terminal: 120})
    expect(terminal.stdout).toMatch(/│ +│ name +│ appid +│ base URL +│ mode │/)
    expect(terminal.stdout).toMatch(/│ \* +│ shop-b +│/)
    expect(terminal.stdout).not.toContain('shop-c')
    expect(terminal.stdout).toContain('the first 2 of 3 profiles (--limit 2)')
    const json = await runGw(['profile', 'list', '--limit', '1', '--json'], {env: listedEnv})
    expect(json.json<{profiles: {name: string}[]}>().profiles.map((p) => p.name)).toEqual(['shop-a'])
  })
})

describe('the profile store, as other hands and other processes leave it', () => {
  it('refuses a store holding a name gw would not accept, naming it safely, exit 2', async () => {
    expect((await addTo('hostile', 'shop')).code).toBe(0)
    const path = join(keysHome.home, 'hostile', 'profiles.json')
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
})
