import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {gw} from '../helpers/cli.js'
import {Wire} from '../helpers/sandbox.js'
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
