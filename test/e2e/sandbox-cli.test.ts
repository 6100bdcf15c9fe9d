import {generateKeyPairSync} from 'node:crypto'
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {gw} from '../helpers/cli.js'
import {Wire} from '../helpers/sandbox.js'
import {SdkClient} from '../helpers/sdk-client.js'
import {removeDir, tempDir} from '../helpers/shared.js'
import {spawnSandbox} from '../helpers/spawned-sandbox.js'

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
  }, 60_000)

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

describe('a developer at the sandbox', () => {
  it('registers a merchant of their own, sees each request in the log, a signature error explained, and sets faults', async () => {
    const dir = tempDir('gw-sandbox-dev-')
    const log = join(dir, 'requests.jsonl')
    const env = {GW_CONFIG_DIR: dir}
    const sandbox = await spawnSandbox(dir, ['--log', log])
    try {
      const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
      const publicFile = join(dir, 'my-public.pem')
      const privateFile = join(dir, 'my-private.pem')
      writeFileSync(publicFile, publicKey.export({type: 'pkcs1', format: 'pem'}))
      writeFileSync(privateFile, privateKey.export({type: 'pkcs1', format: 'pem'}))
      const add = ['sandbox', 'merchant', 'add', '--appid', 'mch77001', '--data-dir', sandbox.dataDir]
      const added = await gw([...add, '--public-key', publicFile], {env})
      expect(added.code, added.stderr).toBe(0)
      expect(added.stdout).toMatch(/^mch77001: registered \(rsa-md5, key [0-9a-f:]{47}\); the sandbox running at http/)
      // A private key given as the public one is refused, never stored.
      const mistaken = await gw([...add.slice(0, 4), 'mch77002', ...add.slice(5), '--public-key', privateFile], {env})
      expect(mistaken.code).toBe(2)
      expect(mistaken.stderr).toContain('that is a private key: give its public half')
      expect(readFileSync(join(sandbox.dataDir, 'merchants.json'), 'utf8')).not.toContain('mch77002')

      const mine = new SdkClient(sandbox.baseUrl, 'mch77001', readFileSync(privateFile, 'utf8'))
      const order = {channel: 'wechat', mch_order_no: 'DEV-1', total_fee: 100, fee_type: 'THB'}
      expect((await mine.call('native_pay', order)).data.result).toBe('SUCCESS')
      const sha = mine.signed(mine.params({...order, mch_order_no: 'DEV-2'}), {algorithm: 'RSA-SHA256'})
      expect((await mine.send('native_pay', sha)).data.err_code).toBe('GW_SIGN_ERROR')

      const faults = (...args: string[]) => gw(['sandbox', 'faults', ...args], {env})
      const set = await faults('--set', 'drop-after-commit=0.1,latency=1-2ms@refund')
      expect(set.code, set.stderr).toBe(0)
      expect(set.stdout.trim()).toBe('faults: drop-after-commit=0.1,latency=1-2ms@order_refund')
      expect((await faults('--json')).json()).toEqual({faults: 'drop-after-commit=0.1,latency=1-2ms@order_refund'})
      const bad = await faults('--set', 'meteor=1')
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain('unknown fault "meteor"')
      expect((await faults('--clear')).stdout.trim()).toBe('faults: none')
      expect((await faults()).stdout.trim()).toBe('faults: none')

      // The request log: the same records on stderr (--json lines) and in --log.
      const records = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
      expect(records).toEqual([
        expect.objectContaining({
          method: 'POST',
          operation: 'native_pay',
          appid: 'mch77001',
          order: 'DEV-1',
          outcome: 'SUCCESS',
        }),
        expect.objectContaining({
          order: 'DEV-2',
          outcome: 'GW_SIGN_ERROR',
          signature: expect.objectContaining({
            canonical: expect.stringMatching(/^appid=mch77001channel=wechatfee_type=THBmch_order_no=DEV-2nonce_str=/),
            cause: 'it was signed with SHA-256 (rsa-sha256), not MD5 (rsa-md5)',
          }),
        }),
      ])
      expect(records[1].params.sign).toMatch(/^[0-9a-f]{8}…[0-9a-f]{8} \(512 characters\)$/)
      expect(statSync(log).mode & 0o777).toBe(0o600)
      expect(sandbox.stderr()).toContain('"outcome":"GW_SIGN_ERROR"')
    } finally {
      await sandbox.stop()
      removeDir(dir)
    }
  })

  it('seeds practice data into a new folder whatever --auto-pay is: at once (0) or later (unpaid orders closed first)', async () => {
    const seedWith = async (autoPay: string) => {
      const dir = tempDir('gw-sandbox-seed-')
      const env = {GW_CONFIG_DIR: dir}
      const sandbox = await spawnSandbox(dir, ['--auto-pay', autoPay, '--quiet'])
      try {
        const outDir = join(dir, 'practice', 'today')
        const seeded = await gw(['sandbox', 'seed', '--orders', '8', '--out-dir', outDir, '--json'], {env})
        expect(seeded.code, seeded.stderr).toBe(0)
        const result = seeded.json<{orders: number; planted: {line: number; difference: string}[]}>()
        expect(result.orders).toBe(8)
        // What the export says is what the sandbox holds: reconcile finds the planted differences only.
        const reconciled = await gw(['reconcile', join(outDir, 'orders-export.csv'), '--json'], {env})
        const flagged = reconciled
          .json<{results: {line: number; classification: string}[]}>()
          .results.filter((r) => r.classification !== 'match')
        expect(flagged.map((r) => [r.line, r.classification])).toEqual(
          result.planted.map((p) => [p.line, p.difference.split(' ')[0]]),
        )
        return readFileSync(join(outDir, 'orders-export.csv'), 'utf8')
      } finally {
        await sandbox.stop()
        removeDir(dir)
      }
    }
    const [atOnce, later] = await Promise.all([seedWith('0'), seedWith('600')])
    expect(atOnce).toMatch(/,paid,/)
    expect(later).toMatch(/,closed,/)
  })
})
