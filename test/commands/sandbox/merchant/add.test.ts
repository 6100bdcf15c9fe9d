/** gw sandbox merchant add: a developer's own merchant at the sandbox. */
import {generateKeyPairSync} from 'node:crypto'
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {gw} from '../../../helpers/cli.js'
import {SdkClient} from '../../../helpers/sdk-client.js'
import {removeDir, tempDir} from '../../../helpers/shared.js'
import {spawnSandbox} from '../../../helpers/spawned-sandbox.js'

const home = tempDir('gw-sandbox-cli-')

afterAll(() => removeDir(home))

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
})
