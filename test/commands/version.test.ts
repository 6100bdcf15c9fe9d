/** gw version: the build it names, in text and in --json alike, and whether a newer one is out. */
import {readFileSync} from 'node:fs'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {builtFile} from '../helpers/gw-under-test.js'
import {startReceiver} from '../helpers/receiver.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

describe('which build, and whether a newer one is out', () => {
  const {id} = JSON.parse(readFileSync(builtFile('dist', 'build.json'), 'utf8')) as {id: string}

  it('gw version names the build; --check asks the address once and says whether it names a newer one', async () => {
    const shown = await world.run(['version'], {process: true})
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(
      new RegExp(
        `^gw ${id.replace(/[.+]/g, '\\$&')}: version \\d+\\.\\d+\\.\\d+, built from commit [0-9a-f]{7} of \\d{4}-\\d{2}-\\d{2}`,
      ),
    )
    const answers = [JSON.stringify({id: '99.0.0+20991231.abcdef0'}), JSON.stringify({id}), 'not json']
    const published = await startReceiver((n) => ({status: 200, body: answers[n]!}))
    try {
      const newer = await world.run(['version', '--check', published.url], {process: true})
      expect(newer.code, newer.stderr).toBe(0)
      expect(newer.stdout).toContain(
        'A newer build is out: 99.0.0+20991231.abcdef0 (commit abcdef0 of 2099-12-31). Get it where you got gw, and check it against its SHA256SUMS.',
      )
      const same = await world.run(['version', '--check', published.url, '--json'], {process: true})
      expect(same.json()).toMatchObject({build: {id}, newest: {id}, newer: false})
      const junk = await world.run(['version', '--check', published.url], {process: true})
      expect(junk.code).toBe(3)
      expect(junk.stderr).toContain(`${published.url} did not say which build is the newest: its answer is not JSON.`)
      expect(published.received).toHaveLength(3)
    } finally {
      await published.close()
    }
    const down = await world.run(['version', '--check', 'http://127.0.0.1:9/build.json'], {process: true})
    expect(down.code).toBe(3)
    expect(down.stderr).toContain('http://127.0.0.1:9/build.json could not be asked (ECONNREFUSED).')
  })
})

describe('gw version', () => {
  const built = JSON.parse(readFileSync(builtFile('dist', 'build.json'), 'utf8')) as {
    id: string
    version: string
    date: string
    committed_at: string
  }

  it('--json names the system and the Node the text names; a build of the same day committed later is newer', async () => {
    const text = await world.run(['version'], {process: true})
    const json = await world.run(['version', '--json'], {process: true})
    expect(json.code, json.stderr).toBe(0)
    const {platform, node, build} = json.json<{platform: string; node: string; build: {committed_at: string}}>()
    expect(text.stdout).toContain(`(${platform}, node ${node})`)
    expect(platform).toBe(`${process.platform}-${process.arch}`)
    expect(node).toMatch(/^v\d+\.\d+\.\d+$/)
    expect(build.committed_at).toBe(built.committed_at)

    const later = new Date(Date.parse(built.committed_at) + 1000).toISOString().replace('.000Z', 'Z')
    const sameDay = `${built.version}+${built.date.replaceAll('-', '')}.fedcba9`
    const answers = [{id: sameDay, committed_at: later}, {id: sameDay}]
    const published = await startReceiver((n) => ({status: 200, body: JSON.stringify(answers[n])}))
    try {
      const newer = await world.run(['version', '--check', published.url, '--json'], {process: true})
      expect(newer.code, newer.stderr).toBe(0)
      expect(newer.json()).toMatchObject({newest: {id: sameDay, committed_at: later}, newer: true})
      const unordered = await world.run(['version', '--check', published.url], {process: true})
      expect(unordered.code, unordered.stderr).toBe(0)
      expect(unordered.stdout).toContain(
        `names ${sameDay}, of the same version and day as this build, without the time of its commit: which is newer is not known.`,
      )
    } finally {
      await published.close()
    }
  })
})
