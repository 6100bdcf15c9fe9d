/**
 * gw desk as a process (issue 48): its address with this run's secret as the first line on stdout
 * (under --json, one document with `url`), a free port unless --port, loopback only, Ctrl-C with
 * a summary of what was done through it, and a session that ends with the process.
 */
import {type ChildProcess, spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {chmodSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import type {AddressInfo} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {deskRequest, textOf, tokenOf} from '../helpers/desk.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {REPO_ROOT, removeDir, tempDir} from '../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../helpers/terminal.js'

let world: GwWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

/** Starts gw desk; resolves with its first line on stdout once it is written, and the child. */
async function startDesk(args: string[]) {
  const running = world.spawn(['desk', '--no-open', ...args])
  let stdout = ''
  const first = await new Promise<string>((resolve, reject) => {
    running.child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!)
    })
    running.child.once('exit', () => reject(new Error(`gw desk ended: ${stdout}`)))
  })
  return {...running, first}
}

const stop = async (child: ChildProcess, result: Promise<{code: number | null; stderr: string; stdout: string}>) => {
  child.kill('SIGINT')
  return result
}

describe('gw desk', () => {
  it('prints its address with the secret first, on a free loopback port; Ctrl-C stops it with a summary, and the session ends with it', async () => {
    await world.createOrder('DKE-1', 'wechat', '20.00')
    await world.pay('DKE-1')
    const desk = await startDesk([])
    const url = new URL(desk.first)
    expect(url.hostname).toBe('127.0.0.1')
    expect(Number(url.port)).toBeGreaterThan(0)
    expect(url.pathname).toBe('/open')
    expect(url.searchParams.get('secret')).toMatch(/^[0-9a-f]{64}$/)
    const opened = await deskRequest(desk.first)
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!
    const headers = {cookie, 'sec-fetch-site': 'same-origin'}
    const page = await deskRequest(`${url.origin}/order?n=DKE-1`, {headers})
    expect(textOf(page.text)).toContain('Order DKE-1')
    const made = await deskRequest(`${url.origin}/refund/new`, {
      method: 'POST',
      headers: {...headers, origin: url.origin, 'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({
        token: tokenOf(page.text, '/refund/new'),
        n: 'DKE-1',
        amount: '2.00',
        reason: 'late delivery',
      }).toString(),
    })
    const draft = String(made.headers.location)
    const confirmation = await deskRequest(`${url.origin}${draft}`, {headers})
    await deskRequest(`${url.origin}${draft}/send`, {
      method: 'POST',
      headers: {...headers, origin: url.origin, 'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({token: tokenOf(confirmation.text, `${draft}/send`)}).toString(),
    })
    const ended = await stop(desk.child, desk.result)
    expect(ended.code, ended.stderr).toBe(0)
    expect(ended.stdout).toBe(`${desk.first}\n`)
    // Times on the gateway's clock unless --zone says otherwise.
    expect(ended.stderr).toContain(`times on ${world.sandbox.info.gateway_zone}:`)
    expect(ended.stderr).toContain('gw desk stopped: 1 order looked up, 1 refund.')
    expect(ended.stderr).toMatch(
      / {2}DKE-1: 2\.00 THB refunded \(refund RF\w+, gateway refund \d+\), reason "late delivery"/,
    )
    expect(ended.stderr).not.toContain(url.searchParams.get('secret'))
    expect((await world.ledger('DKE-1'))!.refunds).toHaveLength(1)
    // The process is gone, and its session with it.
    await expect(deskRequest(`${url.origin}/`, {headers})).rejects.toThrow(/ECONNREFUSED/)
  })

  it('--json: one document with url (and the profile, test or live, the zone); --port is the port asked for', async () => {
    const free = createServer()
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve))
    const port = (free.address() as AddressInfo).port
    await new Promise((resolve) => free.close(resolve))
    const desk = await startDesk(['--json', '--port', String(port), '--zone', 'Asia/Tokyo'])
    const document = JSON.parse(desk.first) as {url: string}
    expect(document).toEqual({
      url: expect.stringMatching(`^http://127\\.0\\.0\\.1:${port}/open\\?secret=[0-9a-f]{64}$`),
      profile: 'sandbox',
      live: false,
      zone: 'Asia/Tokyo',
    })
    const ended = await stop(desk.child, desk.result)
    expect(ended.code).toBe(0)
    expect(ended.stdout.trim().split('\n')).toHaveLength(1)
  })

  it('a port in use: exit 2, saying so, nothing served', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      const result = await world.run(['desk', '--no-open', '--port', String((taken.address() as AddressInfo).port)])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('is in use')
      expect(result.stdout).toBe('')
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })
})

describe.skipIf(!HAS_TMUX && !process.env.CI)('gw desk on a terminal', () => {
  /** A PATH whose xdg-open writes the address it was given to a file, as the browser would open it. */
  const dirs: string[] = []
  afterAll(() => dirs.forEach(removeDir))
  function opener(): {path: string; opened: string} {
    const dir = tempDir('gw-desk-opener-')
    dirs.push(dir)
    const opened = join(dir, 'opened')
    writeFileSync(join(dir, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`)
    chmodSync(join(dir, 'xdg-open'), 0o755)
    return {path: `${dir}:${process.env.PATH}`, opened}
  }

  it('opens the browser on an address that opens the desk once, not the printed secret; --no-open does not', async () => {
    const {path, opened} = opener()
    const terminal = new Terminal(['desk'], {GW_CONFIG_DIR: world.configDir, PATH: path})
    try {
      const screen = await terminal.waitFor(/Ctrl-C stops it/)
      const printed = /(http:\/\/127\.0\.0\.1:\d+\/open\?secret=[0-9a-f]{64})/.exec(screen)![1]!
      for (let i = 0; i < 100 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 100))
      const url = readFileSync(opened, 'utf8')
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/open\?secret=[0-9a-f]{48}$/)
      expect(url).not.toBe(printed)
      expect((await deskRequest(url)).status).toBe(303)
      expect((await deskRequest(url)).status).toBe(403)
      expect((await deskRequest(printed)).status).toBe(303)
      terminal.press('C-c')
      expect(await terminal.waitFor(/EXIT=\d+/)).toContain('EXIT=0')
    } finally {
      terminal.close()
    }
    const quiet = opener()
    const noOpen = new Terminal(['desk', '--no-open'], {GW_CONFIG_DIR: world.configDir, PATH: quiet.path})
    try {
      await noOpen.waitFor(/Ctrl-C stops it/)
      noOpen.press('C-c')
      await noOpen.waitFor(/EXIT=\d+/)
      expect(existsSync(quiet.opened)).toBe(false)
    } finally {
      noOpen.close()
    }
  })
})

describe("gw --version's start-up", () => {
  /** The modules of dist/ a run of gw loads, as a loader hook sees them. */
  function loadedBy(args: string[]): string[] {
    const hook = `export async function load(url, context, next) { if (url.includes('/dist/')) process.stderr.write('LOAD ' + url.split('/dist/')[1] + '\\n'); return next(url, context) }`
    const preload = `import {register} from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)})`
    const run = spawnSync(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, join(REPO_ROOT, 'bin', 'run.js'), ...args],
      {encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}},
    )
    return [...run.stderr.matchAll(/^LOAD (\S+)$/gm)].map((match) => match[1]!)
  }

  it('loads nothing of the desk: its code is a chunk of its own, loaded by gw desk alone', () => {
    const version = loadedBy(['--version'])
    expect(version).toContain('main.js')
    expect(version.filter((file) => /desk/.test(file))).toEqual([])
    // The hook sees gw desk's own file when desk runs (here to its flags' check, which refuses the port).
    expect(loadedBy(['desk', '--port', '99999']).filter((file) => /desk/.test(file))).toEqual(['commands/desk.js'])
  })
})
