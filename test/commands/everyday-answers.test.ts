/**
 * Everyday commands, round two (issue 24): answers that say what the gateway said, and only
 * what it means. Each test runs the built CLI against one shared sandbox.
 */
import {createPrivateKey, generateKeyPairSync} from 'node:crypto'
import {readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, keyFile, startWorld} from '../helpers/gw-env.js'
import {HAS_TMUX, Terminal} from '../helpers/terminal.js'
import {ONE_FORM} from '../helpers/shared.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

const createOrder = async (mchOrderNo: string, channel: string, amount = '4.20') => {
  const made = await world.createOrder(mchOrderNo, channel, amount)
  expect(made.code, made.stderr).toBe(0)
}

describe('closing an order on a channel without an order query', () => {
  it('succeeds as the gateway said, writes CLOSED to the history, and sends no query', async () => {
    await createOrder('SCB-CLOSE-1', 'scb_qrcard')
    const before = await world.requests()
    const closed = await world.run(['order', 'close', 'SCB-CLOSE-1', '--json'])
    expect(closed.code, closed.stderr).toBe(0)
    expect(closed.json()).toMatchObject({
      channel: 'scb_qrcard',
      record: {result: 'CLOSED', mch_order_no: 'SCB-CLOSE-1', total_fee: 420, fee_type: 'THB'},
    })
    const after = await world.requests()
    expect(after.order_close).toBe((before.order_close ?? 0) + 1)
    expect(after.order_query ?? 0).toBe(before.order_query ?? 0)
    expect((await world.ledger('SCB-CLOSE-1'))?.state).toBe('CLOSED')
    const listed = await world.run(['order', 'list', '--since', '10m', '--state', 'CLOSED', '--json'])
    const orders = listed.json<{orders: {mch_order_no: string}[]}>().orders
    expect(orders.map((o) => o.mch_order_no)).toContain('SCB-CLOSE-1')
  })

  it('says the order is closed, in words', async () => {
    await createOrder('SCB-CLOSE-2', 'scb_qrcard')
    const closed = await world.run(['order', 'close', 'SCB-CLOSE-2'])
    expect(closed.code, closed.stderr).toBe(0)
    expect(closed.stdout).toContain('Order SCB-CLOSE-2 is closed.')
    expect(closed.stdout).toMatch(/state: +CLOSED: closed by the merchant/)
    expect(closed.stderr).not.toContain('cannot be queried')
    const again = await world.run(['order', 'close', 'SCB-CLOSE-2', '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({already_closed: true, record: {result: 'CLOSED'}})
  })
})

describe('order query shows what the payer paid, and when, only once the order took money', () => {
  it('no "paid by payer" or "paid at" for an unpaid or failed order; both once it is paid', async () => {
    await createOrder('PAYER-1', 'wechat')
    const unpaid = await world.run(['order', 'query', 'PAYER-1'])
    expect(unpaid.code, unpaid.stderr).toBe(0)
    expect(unpaid.stdout).toMatch(/state: +NOTPAY/)
    expect(unpaid.stdout).not.toContain('paid by payer')
    expect(unpaid.stdout).not.toContain('paid at')

    await createOrder('PAYER-2', 'wechat')
    await world.pay('PAYER-2', true)
    const failed = await world.run(['order', 'query', 'PAYER-2'])
    expect(failed.stdout).toMatch(/state: +PAYERROR/)
    expect(failed.stdout).not.toContain('paid by payer')
    expect(failed.stdout).not.toContain('paid at')

    await world.pay('PAYER-1')
    const paid = await world.run(['order', 'query', 'PAYER-1'])
    expect(paid.stdout).toMatch(/paid by payer: +\d+\.\d\d CNY/)
    expect(paid.stdout).toMatch(/paid at: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d/)
  })
})

describe('--json as docs/conventions.md defines it', () => {
  it('gateway times are ISO 8601 with their offset: time_end of an order, refund_time of each refund', async () => {
    await createOrder('JSON-1', 'wechat', '10.00')
    await world.pay('JSON-1')
    const query = await world.run(['order', 'query', 'JSON-1', '--json'])
    expect(query.json<{record: {time_end: string}}>().record.time_end).toMatch(ONE_FORM)
    expect((await world.run(['refund', 'create', 'JSON-1', '--amount', '1.00', '--yes'])).code).toBe(0)
    const refunds = await world.run(['refund', 'query', 'JSON-1', '--json'])
    expect(refunds.code, refunds.stderr).toBe(0)
    const {order, refund} = refunds.json<{
      order: {time_end: string}
      refund: {time_end: string; refund_orders: {refund_time: string}[]}
    }>()
    expect(order.time_end).toMatch(ONE_FORM)
    expect(refund.time_end).toMatch(ONE_FORM)
    expect(refund.refund_orders[0]!.refund_time).toMatch(ONE_FORM)
  })

  it("reconcile's summary names amounts *_fee (minor units) and *_amount (decimal), the gateway's (unpaid here) apart from the file's; the table labels them", async () => {
    await createOrder('SUM-1', 'wechat', '100.00')
    await createOrder('SUM-2', 'wechat', '50.00')
    const csv = join(world.configDir, 'summary.csv')
    writeFileSync(csv, 'mch_order_no,amount,fee_type\nSUM-1,100.00,THB\nSUM-2,60.00,THB\nSUM-MISSING,7.00,THB\n')
    const json = await world.run(['reconcile', csv, '--channel', 'wechat', '--json'])
    expect(json.code, json.stderr).toBe(1)
    const summary = json.json<{summary: Record<string, unknown>[]}>().summary
    expect(summary).toEqual([
      {
        classification: 'match',
        currency: 'THB',
        rows: 1,
        unpaid_fee: 10_000,
        unpaid_amount: '100.00',
        merchant_total_fee: 10_000,
        merchant_total_amount: '100.00',
      },
      {
        classification: 'amount_mismatch',
        currency: 'THB',
        rows: 1,
        unpaid_fee: 5000,
        unpaid_amount: '50.00',
        merchant_total_fee: 6000,
        merchant_total_amount: '60.00',
      },
      {
        classification: 'missing_at_gateway',
        currency: 'THB',
        rows: 1,
        merchant_total_fee: 700,
        merchant_total_amount: '7.00',
      },
    ])
    const text = await world.run(['reconcile', csv, '--channel', 'wechat', '--out', join(world.configDir, 's.csv')])
    const header = text.stdout.split('\n').find((line) => line.includes('classification'))!
    expect(header).toMatch(/paid.*refunded.*unpaid.*your amount/)
    const missing = text.stdout.split('\n').find((line) => line.includes('missing_at_gateway'))!
    expect(missing).toMatch(/│ +- +│ +7\.00 THB/)
  })
})

describe('encrypted private keys, as merchants have them', () => {
  const PASSPHRASE = 'correct horse 42'
  /** The sandbox merchant's key, encrypted with PASSPHRASE as openssl would (PKCS#1 Proc-Type or PKCS#8). */
  const encrypted = (type: 'pkcs1' | 'pkcs8') => {
    const file = join(world.configDir, `encrypted-${type}.pem`)
    const key = createPrivateKey(readFileSync(keyFile(world), 'utf8'))
    writeFileSync(file, key.export({type, format: 'pem', cipher: 'aes-256-cbc', passphrase: PASSPHRASE}), {mode: 0o600})
    return file
  }
  const addWith = (name: string, file: string, ...extra: string[]) => {
    const args = world.profileAdd(name, ...extra)
    args[args.indexOf('--private-key') + 1] = file
    return args
  }
  const passphraseFile = () => {
    const file = join(world.configDir, 'passphrase.txt')
    writeFileSync(file, `${PASSPHRASE}\n`, {mode: 0o600})
    return file
  }
  const neverShown = (...outputs: string[]) => {
    for (const output of outputs) {
      expect(output).not.toContain(PASSPHRASE)
      expect(output).not.toContain('PRIVATE KEY-----')
    }
  }

  it('without a terminal or a passphrase: exit 2 naming the key as encrypted, the ways to give it and the openssl command', async () => {
    for (const type of ['pkcs1', 'pkcs8'] as const) {
      const result = await world.run(addWith(`locked-${type}`, encrypted(type)))
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('The private key (--private-key) is encrypted (a passphrase protects it)')
      expect(result.stderr).toContain('GW_KEY_PASSPHRASE')
      expect(result.stderr).toContain('--passphrase-file FILE')
      expect(result.stderr).toContain(
        `openssl pkey -in ${join(world.configDir, `encrypted-${type}.pem`)} -out decrypted.pem`,
      )
      neverShown(result.stdout, result.stderr)
    }
  })

  it('kept encrypted in the store; every command takes the passphrase from GW_KEY_PASSPHRASE or --passphrase-file, never stores it', async () => {
    const added = await world.run(addWith('locked', encrypted('pkcs8')), {env: {GW_KEY_PASSPHRASE: PASSPHRASE}})
    expect(added.code, added.stderr).toBe(0)
    const stored = readdirSync(join(world.configDir, 'keys')).filter((f) => f.startsWith('locked.'))
    const privateFile = stored.find((f) => f.endsWith('.private.pem'))!
    expect(readFileSync(join(world.configDir, 'keys', privateFile), 'utf8')).toContain('ENCRYPTED PRIVATE KEY')
    for (const file of ['profiles.json', ...stored.map((f) => join('keys', f))])
      expect(readFileSync(join(world.configDir, file), 'utf8')).not.toContain(PASSPHRASE)

    const create = ['order', 'create', '--channel', 'wechat', '--amount', '1.00', '--fee-type', 'THB', '--no-qr']
    const before = await world.requests()
    const refused = await world.run([...create, '-p', 'locked'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('The private key of profile "locked" is encrypted')
    expect(await world.requests()).toEqual(before)

    const fromFile = await world.run([...create, '-p', 'locked', '--passphrase-file', passphraseFile(), '--json'])
    expect(fromFile.code, fromFile.stderr).toBe(0)
    // Reading the local history signs nothing: no passphrase needed.
    const listed = await world.run(['order', 'list', '--since', '10m', '-p', 'locked', '--json'])
    expect(listed.code, listed.stderr).toBe(0)
    const made = fromFile.json<{order: {mch_order_no: string}}>().order.mch_order_no
    expect(listed.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toContain(made)
    const fromEnv = await world.run(['doctor', '-p', 'locked'], {env: {GW_KEY_PASSPHRASE: PASSPHRASE}})
    expect(fromEnv.code, fromEnv.stdout).toBe(0)
    const wrong = await world.run(['doctor', '-p', 'locked', '--json'], {env: {GW_KEY_PASSPHRASE: 'not it'}})
    expect(wrong.code).toBe(2)
    expect(wrong.stdout).toContain('passphrase given does not open')
    neverShown(
      added.stdout,
      added.stderr,
      refused.stderr,
      fromFile.stdout,
      fromFile.stderr,
      fromEnv.stdout,
      wrong.stdout,
    )
  })

  it('profile show asks for nothing: without the passphrase, appid, URL, mode and gateway key; with it, the key too', async () => {
    const added = await world.run(addWith('shown', encrypted('pkcs8')), {env: {GW_KEY_PASSPHRASE: PASSPHRASE}})
    expect(added.code, added.stderr).toBe(0)
    const text = await world.run(['profile', 'show', 'shown'])
    expect(text.code, text.stderr).toBe(0)
    const merchant = world.sandbox.info.merchants[0]!
    expect(text.stdout).toMatch(new RegExp(`appid: +${merchant.appid}`))
    expect(text.stdout).toMatch(new RegExp(`base URL: +${world.sandbox.info.base_url}`))
    expect(text.stdout).toMatch(/mode: +test/)
    expect(text.stdout).toMatch(/gateway key: +RSA 2048 bits, fingerprint ([0-9a-f]{2}:){15}[0-9a-f]{2}/)
    expect(text.stdout).toMatch(
      /private key: +encrypted \(its size and fingerprint with --passphrase-file or GW_KEY_PASSPHRASE\)/,
    )
    expect((await world.run(['profile', 'show', 'shown', '--json'])).json()).toMatchObject({
      appid: merchant.appid,
      private_key: {encrypted: true},
      gateway_public_key: {bits: 2048},
    })
    const opened = await world.run(['profile', 'show', 'shown', '--passphrase-file', passphraseFile()])
    expect(opened.stdout).toMatch(/private key: +RSA 2048 bits, fingerprint ([0-9a-f]{2}:){15}[0-9a-f]{2}, encrypted/)
    neverShown(text.stdout, text.stderr, opened.stdout, opened.stderr)
  })

  it.skipIf(!HAS_TMUX)(
    'on a terminal, asks for the passphrase with hidden input; Ctrl-C there is exit 130',
    async () => {
      const added = await world.run(addWith('asked', encrypted('pkcs1')), {env: {GW_KEY_PASSPHRASE: PASSPHRASE}})
      expect(added.code, added.stderr).toBe(0)
      const terminal = new Terminal(['doctor', '-p', 'asked'], {GW_CONFIG_DIR: world.configDir})
      try {
        await terminal.waitFor(/Passphrase of the private key of profile "asked"/)
        terminal.type(PASSPHRASE)
        const screen = await terminal.waitFor(/EXIT=\d+/)
        expect(screen).toContain('All checks passed.')
        expect(screen).toContain('EXIT=0')
        expect(screen).not.toContain(PASSPHRASE)
      } finally {
        terminal.close()
      }
      const stopped = new Terminal(['doctor', '-p', 'asked'], {GW_CONFIG_DIR: world.configDir})
      try {
        await stopped.waitFor(/Passphrase of the private key of profile "asked"/)
        stopped.press('C-c')
        const screen = await stopped.waitFor(/EXIT=\d+/)
        expect(screen).toContain('Stopped before the passphrase was given: nothing was sent.')
        expect(screen).toContain('EXIT=130')
      } finally {
        stopped.close()
      }
    },
  )
})

describe('hints that lead the right way', () => {
  it('a wrong gateway key: doctor advises gw profile set NAME --gateway-public-key FILE', async () => {
    const other = join(world.configDir, 'other-gateway.pem')
    writeFileSync(
      other,
      generateKeyPairSync('rsa', {modulusLength: 2048}).publicKey.export({type: 'spki', format: 'pem'}),
    )
    const args = world.profileAdd('wrong-gateway')
    args[args.indexOf('--gateway-public-key') + 1] = other
    expect((await world.run(args)).code).toBe(0)
    const doctor = await world.run(['doctor', '-p', 'wrong-gateway'])
    expect(doctor.code).toBe(4)
    expect(doctor.stdout).toContain('gw profile set wrong-gateway --gateway-public-key FILE')
    expect(doctor.stdout).not.toContain('add the profile again')
  })

  it('profile set --sign-scheme runs doctor', async () => {
    expect((await world.run(world.profileAdd('scheme'))).code).toBe(0)
    const set = await world.run(['profile', 'set', 'scheme', '--sign-scheme', 'rsa-md5'])
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toContain('answer signature')
    expect(set.stdout).toContain('All checks passed.')
  })

  it('list --refresh keeps, marks and explains the state of what its channel cannot be asked about, without failing', async () => {
    await createOrder('ALI-LIST-1', 'alipay', '20.00')
    await world.pay('ALI-LIST-1')
    const refund = await world.run(['refund', 'create', 'ALI-LIST-1', '--amount', '5.00', '--yes'])
    expect(refund.code, refund.stderr).toBe(0)
    const refunds = await world.run(['refund', 'list', '--since', '10m', '--channel', 'alipay', '--refresh'])
    expect(refunds.code, refunds.stderr).toBe(0)
    expect(refunds.stdout).toMatch(/refunded \(as known: alipay has no refund query\)/)
    expect(refunds.stderr).toContain('keep the state gw knew, marked "as known": alipay has no refund query')
    const json = await world.run(['refund', 'list', '--since', '10m', '--channel', 'alipay', '--refresh', '--json'])
    expect(json.json<{refunds: {refresh_skipped?: string}[]}>().refunds[0]!.refresh_skipped).toBe(
      'alipay has no refund query',
    )

    await createOrder('SCB-LIST-1', 'scb_qrcard')
    const orders = await world.run(['order', 'list', '--since', '10m', '--channel', 'scb_qrcard', '--refresh'])
    expect(orders.code, orders.stderr).toBe(0)
    expect(orders.stdout).toMatch(/NOTPAY \(as known: scb_qrcard has no order query\)/)
  })

  it('--qr is never silently ignored: drawn when asked for, and said when not drawn because stdout is no terminal', async () => {
    const create = ['order', 'create', '--channel', 'wechat', '--amount', '1.00', '--fee-type', 'THB']
    const asked = await world.run([...create, '--qr'])
    expect(asked.code, asked.stderr).toBe(0)
    expect(asked.stdout).toMatch(/█/)
    const quiet = await world.run(create)
    expect(quiet.stdout).not.toMatch(/█/)
    expect(quiet.stderr).toContain('QR code not drawn: stdout is not a terminal. --qr draws it anyway')
    const json = await world.run([...create, '--qr', '--json'])
    expect(json.json<{order: {code_url: string}}>().order.code_url).toBeTruthy()
    expect(json.stderr).toMatch(/█/)
    const none = await world.run([...create, '--no-qr'])
    expect(none.stdout + none.stderr).not.toMatch(/█|not drawn/)
  })
})
