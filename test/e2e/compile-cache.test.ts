/**
 * Node's compile cache of gw's modules (bin/compile-cache.js) is kept only in a folder of the
 * user's alone: code read from a cache another user can write would run as this user. Where the
 * folder is shared, or none can be made, gw runs as it does without it.
 */
import {chmodSync, chownSync, mkdirSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {gw} from '../helpers/cli.js'
import {INSTALLED} from '../helpers/gw-under-test.js'
import {removeDir, tempDir} from '../helpers/shared.js'

const folders: string[] = []
afterAll(() => folders.forEach(removeDir))

/** gw --version with XDG_CACHE_HOME at `cache`; what it printed and the cache's files after it. */
async function versionWithCache(cache: string) {
  const result = await gw(['--version'], {env: {XDG_CACHE_HOME: cache, NODE_COMPILE_CACHE: undefined}})
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout).toMatch(/^gw\/\S+ \S+ node-v/)
  return result
}

const cached = (folder: string) =>
  readdirSync(folder, {recursive: true}).filter((f) => !statSync(join(folder, f.toString())).isDirectory())

describe.skipIf(INSTALLED || process.platform !== 'linux')('the compile cache', () => {
  const home = () => {
    const dir = tempDir('gw-cache-')
    folders.push(dir)
    return dir
  }

  it("is made the user's alone (0700) under XDG_CACHE_HOME, and used", async () => {
    const cache = home()
    await versionWithCache(cache)
    const folder = join(cache, 'gw', 'compile-cache')
    expect(statSync(folder).mode & 0o777).toBe(0o700)
    expect(statSync(join(cache, 'gw')).mode & 0o777).toBe(0o700)
    expect(cached(folder).length).toBeGreaterThan(0)
  })

  it('is not used in a folder others can write: nothing is written there, gw runs', async () => {
    const cache = home()
    const folder = join(cache, 'gw', 'compile-cache')
    mkdirSync(folder, {recursive: true, mode: 0o700})
    chmodSync(folder, 0o777)
    await versionWithCache(cache)
    expect(cached(folder)).toEqual([])
    expect(statSync(folder).mode & 0o777).toBe(0o777)
  })

  it.skipIf(process.getuid?.() !== 0)("is not used in another user's folder", async () => {
    const cache = home()
    const folder = join(cache, 'gw', 'compile-cache')
    mkdirSync(folder, {recursive: true, mode: 0o700})
    chownSync(folder, 65534, 65534)
    await versionWithCache(cache)
    expect(cached(folder)).toEqual([])
  })

  it('is done without where no folder can be made: gw runs', async () => {
    const cache = home()
    writeFileSync(join(cache, 'gw'), 'a file where the folder would be')
    await versionWithCache(cache)
  })
})
