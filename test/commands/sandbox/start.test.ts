/** gw sandbox start: the simulated gateway served, its profile made, what it refuses; its control API. */
import {readFileSync, statSync} from 'node:fs'
import {request as httpRequest, type IncomingHttpHeaders} from 'node:http'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {gw} from '../../helpers/cli.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {Wire} from '../../helpers/sandbox.js'
import {removeDir, tempDir} from '../../helpers/shared.js'
import {spawnSandbox} from '../../helpers/spawned-sandbox.js'

const home = tempDir('gw-sandbox-cli-')

afterAll(() => removeDir(home))

describe('gw sandbox start', () => {
  it('serves, writes sandbox.json, makes the default "sandbox" profile, and stops cleanly', async () => {
    const sandbox = await spawnSandbox(home)
    try {
      const written = JSON.parse(readFileSync(join(sandbox.dataDir, 'sandbox.json'), 'utf8'))
      expect(written).toMatchObject({base_url: sandbox.baseUrl, merchants: [{appid: sandbox.appid}]})
      expect(statSync(written.merchants[0].private_key_file).mode & 0o777).toBe(0o600)
      const profile = (await gw(['profile', 'show', '--json'], {env: {GW_CONFIG_DIR: home}})).json()
      expect(profile).toMatchObject({name: 'sandbox', default: true, appid: sandbox.appid, base_url: sandbox.baseUrl})

      const wire = new Wire({info: written} as never)
      const created = await wire.call('native_pay', {
        channel: 'alipay',
        mch_order_no: 'CLI-1',
        total_fee: 2500,
        fee_type: 'MYR',
      })
      expect(created.verified).toBe(true)
      const paid = await gw(['sandbox', 'pay', 'CLI-1'], {env: {GW_CONFIG_DIR: home}})
      expect(paid.code).toBe(0)
      expect(paid.stdout).toContain('CLI-1: paid (25.00 MYR, alipay).')
      const again = await gw(['sandbox', 'pay', 'CLI-1', '--json'], {env: {GW_CONFIG_DIR: home}})
      expect(again.code).toBe(1)
      expect(again.json()).toMatchObject({error: {message: 'order CLI-1 is already paid'}})
      const hostile = 'CLI-\u001b[31mRED'
      const made = await wire.call('native_pay', {
        channel: 'wechat',
        mch_order_no: hostile,
        total_fee: 100,
        fee_type: 'THB',
      })
      expect(made.verified).toBe(true)
      const shownPaid = await gw(['sandbox', 'pay', hostile], {env: {GW_CONFIG_DIR: home}})
      expect(shownPaid.code, shownPaid.stderr).toBe(0)
      expect(shownPaid.stdout).toContain('CLI-\\x1B[31mRED: paid')
      // Each request on the sandbox's output: a JSON line under --json.
      const lines = sandbox
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
      expect(lines).toContainEqual(
        expect.objectContaining({method: 'POST', operation: 'native_pay', order: 'CLI-1', outcome: 'SUCCESS'}),
      )
    } finally {
      expect(await sandbox.stop()).toBe(0)
    }
  })

  it('does not take the default from an existing profile', async () => {
    const other = tempDir('gw-sandbox-cli2-')
    try {
      const first = await spawnSandbox(other)
      await first.stop()
      await gw(
        [
          'profile',
          'add',
          'mine',
          '--appid',
          'mch1',
          '--base-url',
          'http://127.0.0.1:1/Gateway',
          '--private-key',
          join(first.dataDir, 'keys', `${first.appid}.private.pem`),
          '--gateway-public-key',
          join(first.dataDir, 'keys', 'gateway.public.pem'),
          '--default',
        ],
        {env: {GW_CONFIG_DIR: other}},
      )
      const second = await spawnSandbox(other)
      await second.stop()
      const list = (await gw(['profile', 'list', '--json'], {env: {GW_CONFIG_DIR: other}})).json<{
        profiles: {name: string; default: boolean}[]
      }>()
      expect(list.profiles.find((p) => p.default)?.name).toBe('mine')
    } finally {
      removeDir(other)
    }
  })

  it('a second sandbox (another data dir) gets a profile of its own; the first keeps "sandbox"; --replace-profile takes it and says so', async () => {
    const dir = tempDir('gw-sandbox-two-')
    const run = (args: string[]) => gw(args, {env: {GW_CONFIG_DIR: dir}})
    const first = await spawnSandbox(dir, ['--quiet'])
    try {
      expect(first.info.profile).toBe('sandbox')
      const order = (await run(['order', 'create', '--channel', 'wechat', '--amount', '1', '--fee-type', 'THB'])).stdout
      const made = /order: +(\S+)/.exec(order)![1]!
      const second = await spawnSandbox(dir, ['--quiet'], {dataDir: join(dir, 'other-data')})
      try {
        expect(second.info.profile).toBe('sandbox-2')
        // The first still answers for its orders by the default profile.
        expect((await run(['order', 'query', made])).code).toBe(0)
        const shown = (await run(['profile', 'show', 'sandbox-2', '--json'])).json()
        expect(shown).toMatchObject({default: false, appid: second.appid, base_url: second.baseUrl})
        expect((await run(['profile', 'show', 'sandbox', '--json'])).json()).toMatchObject({base_url: first.baseUrl})
      } finally {
        await second.stop()
      }
      // Started again on its data dir, the second finds its own profile again (a new port, the same name).
      const again = await spawnSandbox(dir, ['--json'], {dataDir: join(dir, 'other-data')})
      await again.stop()
      expect(again.info.profile).toBe('sandbox-2')
      expect((await run(['profile', 'list', '--json'])).json<{profiles: {name: string}[]}>().profiles).toHaveLength(2)
      // Asked to, a sandbox takes "sandbox" and says what it pointed at.
      const taking = await spawnSandbox(dir, ['--replace-profile'], {dataDir: join(dir, 'other-data')})
      await taking.stop()
      expect(taking.info.profile).toBe('sandbox')
      expect(taking.stderr()).toContain(
        `profile "sandbox" pointed at another sandbox (${first.appid} at ${first.baseUrl}); it points here now (--replace-profile).`,
      )
    } finally {
      await first.stop()
      removeDir(dir)
    }
  })

  it('a second start on the same data dir says where the first runs, exit 2, touching no profile; the first, killed, lets go', async () => {
    const dir = tempDir('gw-sandbox-same-')
    const run = (args: string[]) => gw(args, {env: {GW_CONFIG_DIR: dir}})
    const first = await spawnSandbox(dir, ['--quiet'])
    try {
      const profiles = readFileSync(join(dir, 'profiles.json'), 'utf8')
      const info = readFileSync(join(first.dataDir, 'sandbox.json'), 'utf8')
      // As the advice for a port in use would have it: another port, the same data dir.
      const second = await run(['sandbox', 'start', '--port', '0', '--data-dir', first.dataDir, '--replace-profile'])
      expect(second.code).toBe(2)
      expect(second.stderr).toContain(
        `A sandbox of the data dir ${first.dataDir} runs already at ${first.baseUrl} (process `,
      )
      expect(second.stderr).toContain('this one did not start, and no profile was changed.')
      expect(second.stdout).toBe('')
      expect(readFileSync(join(dir, 'profiles.json'), 'utf8')).toBe(profiles)
      expect(readFileSync(join(first.dataDir, 'sandbox.json'), 'utf8')).toBe(info)
      // The first answers by its profile still.
      expect((await run(['doctor'])).code).toBe(0)
    } finally {
      // Killed: no chance to let go of its lock; the system does.
      await first.stop('SIGKILL')
    }
    try {
      const next = await spawnSandbox(dir, ['--quiet'])
      await next.stop()
      expect(next.info.profile).toBe('sandbox')
    } finally {
      removeDir(dir)
    }
  }, 60_000)

  it('says clearly when the port is taken, exit 2', async () => {
    const sandbox = await spawnSandbox(home)
    try {
      const port = new URL(sandbox.origin).port
      const result = await gw(['sandbox', 'start', '--port', port, '--data-dir', join(home, 'other')], {
        env: {GW_CONFIG_DIR: home},
      })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is in use`)
    } finally {
      await sandbox.stop()
    }
  })

  it('says clearly when --host is not an address of this machine, exit 2, before any warning', async () => {
    const result = await gw(
      ['sandbox', 'start', '--host', '999.1.1.1', '--port', '0', '--data-dir', join(home, 'host')],
      {
        env: {GW_CONFIG_DIR: home},
      },
    )
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--host "999.1.1.1" is not an address of this machine')
    expect(result.stderr).not.toContain('warning')
  })

  it('refuses a bad --faults spec before starting', async () => {
    const result = await gw(['sandbox', 'start', '--faults', 'http-500=2'], {env: {GW_CONFIG_DIR: home}})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('the rate must be a number from 0 to 1')
  })
})

describe('against the sandbox', () => {
  let world: GwWorld

  beforeAll(async () => {
    world = await startWorld()
  })

  afterAll(() => world.close())

  describe("the sandbox's control API", () => {
    function raw(path: string, options: {method?: string; headers?: IncomingHttpHeaders; body?: string} = {}) {
      const {port} = new URL(world.sandbox.info.origin)
      return new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers},
          (res) => {
            res.resume()
            resolve(res.statusCode!)
          },
        )
        req.on('error', reject)
        req.end(options.body)
      })
    }

    it('answers only its own loopback Host, no cross-origin browser request, JSON bodies only', async () => {
      const {host} = new URL(world.sandbox.info.origin)
      const pay = {method: 'POST', body: JSON.stringify({mch_order_no: 'NOPE'})}
      expect(await raw('/sandbox/stats', {headers: {host}})).toBe(200)
      expect(
        await raw('/sandbox/stats', {headers: {host: `evil.example:${new URL(world.sandbox.info.origin).port}`}}),
      ).toBe(403)
      expect(
        await raw('/sandbox/pay', {
          ...pay,
          headers: {host, origin: 'http://evil.example', 'content-type': 'application/json'},
        }),
      ).toBe(403)
      expect(await raw('/sandbox/pay', {...pay, headers: {host, 'content-type': 'text/plain'}})).toBe(415)
      expect(
        await raw('/sandbox/faults', {
          method: 'POST',
          body: 'spec=http-500%3D1',
          headers: {host, 'content-type': 'application/x-www-form-urlencoded'},
        }),
      ).toBe(415)
      expect(await raw('/sandbox/pay', {...pay, headers: {host, 'content-type': 'application/json'}})).toBe(404)
    })

    it('answers bad percent-encoding in a path with 400, not 500', async () => {
      expect(await raw('/pay/%')).toBe(400)
      expect(await raw('/qr/%E0%A4%A.png')).toBe(400)
    })
  })
})
