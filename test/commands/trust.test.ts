// Trust boundaries: each reproduction of the issue, through the CLI, against the sandbox and the listener.
import {chmodSync, readFileSync, writeFileSync} from 'node:fs'
import {type IncomingHttpHeaders, createServer, request as httpRequest} from 'node:http'
import type {AddressInfo} from 'node:net'
import {connect} from 'node:net'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {NOTIFICATION_ACK} from '../../src/lib/gateway/protocol/index.js'
import {parsePrivateKey, sign} from '../../src/lib/gateway/signing.js'
import {type GwWorld, orderCreate, startWorld} from '../helpers/gw-env.js'
import {startReceiver} from '../helpers/receiver.js'
import {paymentNotification} from '../helpers/notification.js'

let world: GwWorld
let n = 0
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

const merchant = () => world.sandbox.info.merchants[0]!
const gatewayPem = () => readFileSync(world.sandbox.info.gateway_public_key_file.replace('public', 'private'), 'utf8')
/** A file of this content in the world's folder, its name made unique: its path. */
const numberedFile = (name: string, content: string | Buffer) => world.file(`${++n}-${name}`, content)

/** `csv` refused by a bulk refund's dry run and by reconcile alike: exit 2, saying `problem`. */
async function refusedByBoth(csv: string, problem: string) {
  for (const args of [
    ['refund', 'create', '--from-csv', csv, '--dry-run'],
    ['reconcile', csv, '--existence-only'],
  ]) {
    const result = await world.run(args)
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(problem)
  }
}
const ESC = '\u001b'

describe('private keys are never printed', () => {
  const pem = () => readFileSync(merchant().private_key_file, 'utf8')
  const body = () =>
    pem()
      .split('\n')
      .filter((l) => l && !l.startsWith('-----'))
      .join('')
  /** The key in each wrong form a user could paste it in. */
  const wrongForms = (): [string, string][] => {
    const lines = pem()
      .split('\n')
      .filter((l) => l && !l.startsWith('-----'))
    return [
      ['the base64 body on one line', body()],
      ['the base64 body on its lines, without armour', lines.join('\n')],
      ['a slash before the body', `/${body()}`],
      [
        'armour around a damaged body',
        pem()
          .replace(/[A-Z]/, '*')
          .replace(/[a-z]{4}/, '!!!!'),
      ],
      ['the wrong armour', pem().replace(/PRIVATE KEY/g, 'CERTIFICATE')],
      ['a file holding the body', numberedFile('body.pem', body())],
    ]
  }
  /** No run of 40 characters of the key body in anything gw wrote. */
  const expectNoKey = (output: string) => {
    const key = body()
    for (let i = 0; i + 40 <= key.length; i += 7)
      expect(output.includes(key.slice(i, i + 40)), 'a run of the key is in the output').toBe(false)
  }

  it('in any error, any --json document, whichever input takes the key', async () => {
    const {base_url, gateway_public_key_file} = world.sandbox.info
    const env = (vars: Record<string, string>) => ({
      GW_APPID: merchant().appid,
      GW_BASE_URL: base_url,
      GW_PRIVATE_KEY: merchant().private_key_file,
      GW_GATEWAY_PUBLIC_KEY: gateway_public_key_file,
      ...vars,
    })
    for (const [form, value] of wrongForms()) {
      const runs = [
        world.run(['order', 'query', 'X', '--channel', 'wechat'], {env: env({GW_PRIVATE_KEY: value})}),
        world.run(['doctor', '--json'], {env: env({GW_PRIVATE_KEY: value})}),
        world.run(['order', 'query', 'X', '--channel', 'wechat', '--json'], {env: env({GW_GATEWAY_PUBLIC_KEY: value})}),
        world.run([
          'profile',
          'add',
          'k',
          '--appid',
          'mch1',
          '--base-url',
          base_url,
          '--private-key',
          value,
          '--gateway-public-key',
          gateway_public_key_file,
          '--json',
        ]),
        world.run([
          'profile',
          'add',
          'k',
          '--appid',
          'mch1',
          '--base-url',
          base_url,
          '--private-key',
          merchant().private_key_file,
          '--gateway-public-key',
          value,
        ]),
        world.run(['signature', 'sign', '--param', 'a=1', '--private-key', value, '--json']),
        world.run(['signature', 'verify', '-', '--public-key', value], {input: '{"data":{"a":1},"sign":"00"}'}),
      ]
      for (const result of await Promise.all(runs)) {
        expect(result.code, `${form}: ${result.stderr}`).toBe(2)
        // The error (or doctor's failed check) was said where the test reads it: nothing went around the streams.
        expect(result.stdout + result.stderr).toMatch(/Error: |"error":|"ok": false/)
        expectNoKey(result.stdout + result.stderr)
      }
    }
  })

  it('pasted where a flag or a command was mistyped, or into a flag for something else: exit 2, the key not shown', async () => {
    // Key text as it would be pasted (not the form that is a path to a file).
    const pasted = wrongForms().filter(([form]) => !form.startsWith('a file'))
    for (const [form, value] of [['the PEM file as it is', pem()] as [string, string], ...pasted]) {
      const runs = [
        world.run(['profile', 'set', 'sandbox', `--privat-key=${value}`]),
        world.run(['profile', 'set', 'sandbox', '--privat-key', value, '--json']),
        world.run(['profle', 'add', 't2', '--private-key', value], {process: true}),
        world.run(['order', 'create', '--channel', 'wechat', '--amount', '1', '--fee-type', value, '--json']),
        world.run(['order', 'query', value, '--channel', 'wechat']),
      ]
      for (const result of await Promise.all(runs)) {
        expect(result.code, `${form}: ${result.stderr}`).toBe(2)
        // The error (or doctor's failed check) was said where the test reads it: nothing went around the streams.
        expect(result.stdout + result.stderr).toMatch(/Error: |"error":|"ok": false/)
        expectNoKey(result.stdout + result.stderr)
      }
    }
  })

  it('standard input given for two things (a body or parameters, and a key): refused naming what took it, the key not shown', async () => {
    const verify = await world.run(['signature', 'verify', '-', '--public-key', '-'], {input: pem()})
    expect(verify.code).toBe(2)
    expect(verify.stderr).toContain('--public-key -: standard input was read already for FILE')
    const sign = await world.run(['signature', 'sign', '--params-file', '-', '--private-key', '-'], {input: pem()})
    expect(sign.code).toBe(2)
    expect(sign.stderr).toContain('--params-file -: it is not JSON.')
    // A key's body without its PEM lines, given as the parameters: the parser's words would quote it.
    const body = pem()
      .split('\n')
      .filter((line) => line && !line.startsWith('-----'))
      .join('\n')
    const bare = await world.run(['signature', 'sign', '--params-file', '-', '--param', 'a=1'], {input: body})
    expect(bare.stderr).toContain('--params-file -: it is not JSON.')
    for (const result of [verify, sign, bare]) expectNoKey(result.stdout + result.stderr)
  })

  it('pasted as a parameter to sign: signed as given, withheld where the canonical string is shown', async () => {
    for (const json of [[], ['--json']]) {
      const signed = await world.run(['signature', 'sign', '--param', `k=${pem()}`, '--param', 'a=1', ...json])
      expect(signed.code, signed.stderr).toBe(0)
      expect(signed.stdout).toContain('[private key withheld]')
      expectNoKey(signed.stdout + signed.stderr)
    }
  })

  it('a profile whose key file is not a key: exit 2 in every command, the key not shown', async () => {
    const added = await world.run([
      'profile',
      'add',
      'broken',
      '--appid',
      merchant().appid,
      '--base-url',
      world.sandbox.info.base_url,
      '--private-key',
      merchant().private_key_file,
      '--gateway-public-key',
      world.sandbox.info.gateway_public_key_file,
    ])
    expect(added.code).toBe(0)
    const stored = JSON.parse(readFileSync(join(world.configDir, 'profiles.json'), 'utf8')).profiles.broken
    writeFileSync(stored.private_key_file, body())
    for (const args of [
      ['order', 'query', 'X', '--channel', 'wechat'],
      ['refund', 'query', 'X', '--channel', 'wechat'],
      ['doctor'],
      ['profile', 'show', 'broken'],
    ]) {
      const result = await world.run([...args, '--profile', 'broken'])
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2)
      expect(result.stdout + result.stderr).toContain('private key of profile "broken" is not a readable private key')
      expectNoKey(result.stdout + result.stderr)
    }
  })

  it('profile add warns when the private key file can be read by others; doctor reports store files that are not private', async () => {
    const loose = numberedFile('loose.pem', pem())
    chmodSync(loose, 0o644)
    const added = await world.run([
      'profile',
      'add',
      'loose',
      '--appid',
      merchant().appid,
      '--base-url',
      world.sandbox.info.base_url,
      '--private-key',
      loose,
      '--gateway-public-key',
      world.sandbox.info.gateway_public_key_file,
    ])
    expect(added.code).toBe(0)
    expect(added.stderr).toContain(`can be read by others than you (mode 0644)`)
    chmodSync(join(world.configDir, 'profiles.json'), 0o644)
    const doctor = await world.run(['doctor', '--profile', 'loose'])
    expect(doctor.stdout).toMatch(/! store files: readable by others than you: .*profiles\.json \(0644\)/)
    chmodSync(join(world.configDir, 'profiles.json'), 0o600)
  })
})

describe('untrusted text on a terminal', () => {
  it('a forged notification cannot paint itself verified: its fields are shown, escapes visible', async () => {
    const listener = world.spawn(['notify', 'listen', '--port', '0'])
    let stderr = ''
    const url = await new Promise<string>((resolve) => {
      listener.child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const match = /listening for notifications at (\S+)/.exec(stderr)
        if (match) resolve(match[1]!)
      })
    })
    const forged = `\r${ESC}[2K2026-11-21 09:00:00  ${ESC}[32mverified${ESC}[39m  INV-9  5000.00 THB${ESC}[8m`
    const data = paymentNotification(forged, {appid: merchant().appid, total_fee: 500000})
    const body = JSON.stringify({
      data,
      sign: sign(data, parsePrivateKey(readFileSync(merchant().private_key_file, 'utf8')), 'rsa-md5'),
    })
    const answer = await request(url, {method: 'POST', body})
    expect(answer.statusCode).toBe(400)
    listener.child.kill('SIGINT')
    const result = await listener.result
    for (const output of [result.stdout, result.stderr]) {
      expect(output).not.toContain(ESC)
      expect(output).not.toContain('\r')
    }
    expect(result.stdout).toContain('REJECTED')
    expect(result.stdout).toContain('\\x1B[32mverified')
  })

  it("a gateway message with escapes (it quotes the request's order number) is shown with the escapes visible", async () => {
    const mch = `${ESC}[31mX${n}`
    const create = orderCreate(mch, 'wechat', '1')
    expect((await world.run(create)).code).toBe(0)
    const again = await world.run(create)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('GW_DUPLICATED_ORDERNO')
    expect(again.stderr).not.toContain(ESC)
    expect(again.stderr).toContain('\\x1B[31m')
  })

  it('CSV values quoted in problems are shown with their controls visible', async () => {
    const csv = numberedFile('esc.csv', `mch_order_no,refund_fee,fee_type\nA,100,${ESC}[32mTHB\n`)
    const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('fee_type "\\x1B[32mTHB" is not a currency')
    expect(result.stderr).not.toContain(ESC)
  })
})

describe('files a spreadsheet opens', () => {
  // A leading CR cannot arrive from a file (line endings are read as new lines); spreadsheetSafe's unit test covers it.
  const hostile = ['=HYPERLINK("http://evil.example","click")', "+cmd|' /C calc'!A0", '@SUM(1)', '-2+3', '\tTAB']
  const quote = (value: string) => `"${value.replace(/"/g, '""')}"`

  it('the refund report and the reconcile output neutralise every cell a spreadsheet would read as a formula', async () => {
    const orders = await world.paidOrders(hostile.length, 10_000, `SAFE${n}`)
    const rows = orders.map((order, i) => `${order},100,${quote(hostile[i]!)}`).join('\n')
    const csv = numberedFile('formulas.csv', `mch_order_no,refund_fee,note\n${rows}\n`)
    expect((await world.run(['refund', 'create', '--from-csv', csv, '--yes'])).code).toBe(0)
    const report = parse(readFileSync(csv.replace(/\.csv$/, '.report.csv')), {columns: true, bom: true}) as Record<
      string,
      string
    >[]
    expect(report.map((r) => r.note)).toEqual(hostile.map((v) => `'${v}`))
    expect(report.map((r) => r.refund_fee)).toEqual(hostile.map(() => '100'))
    const recon = numberedFile(
      'formulas-orders.csv',
      `mch_order_no,note\n${orders.map((o, i) => `${o},${quote(hostile[i]!)}`).join('\n')}\n`,
    )
    await world.run(['reconcile', recon, '--channel', 'wechat', '--existence-only'])
    const out = parse(readFileSync(recon.replace(/\.csv$/, '.reconciled.csv')), {columns: true, bom: true}) as Record<
      string,
      string
    >[]
    expect(out.map((r) => r.note)).toEqual(hostile.map((v) => `'${v}`))
    expect(out[0]!.gateway_total_fee).toBe('10000')
  })
})

describe('the listener', () => {
  const listen = (args: string[] = []) => world.listen(args)
  const signed = (data: Record<string, unknown>) => ({data, sign: sign(data, parsePrivateKey(gatewayPem()), 'rsa-md5')})
  const notification = (extra: Record<string, unknown> = {}) =>
    paymentNotification(`L-${++n}`, {appid: merchant().appid, gw_order_no: `900L${n}`, total_fee: 100, ...extra})
  const post = async (url: string, body: string) => {
    const response = await request(url, {method: 'POST', headers: {'content-type': 'text/plain;charset=utf-8'}, body})
    return {status: response.statusCode, body: await response.body.text()}
  }

  it("refuses another merchant's notification, signed by the same gateway: answered as a failure, not counted", async () => {
    const listener = await listen(['--exit-after', '1', '--timeout', '3'])
    const answer = await post(listener.url, JSON.stringify(signed(notification({appid: 'mch99999'}))))
    expect(answer.status).toBe(400)
    expect(answer.body).not.toBe(NOTIFICATION_ACK)
    const result = await listener.result
    expect(result.code).toBe(5)
    expect(result.stdout).toMatch(/REJECTED .*for appid mch99999, not this profile's/)
    expect(result.stderr).toContain('0 payments notified (0 verified deliveries), 1 rejected')
  })

  it('refuses a body with two "data" keys, and data with a null field or a sign of its own; forwards nothing of them', async () => {
    const app = await startReceiver(() => ({status: 200, body: NOTIFICATION_ACK}))
    const listener = await listen(['--forward-to', app.url])
    try {
      const good = signed(notification())
      const forged = JSON.stringify({...notification(), total_fee: 99_999_999})
      const twoData = `{"data":${forged},"data":${JSON.stringify(good.data)},"sign":"${good.sign}"}`
      expect((await post(listener.url, twoData)).status).toBe(400)
      const withNull = {...good, data: {...good.data, refund_fee: null}}
      expect((await post(listener.url, JSON.stringify(withNull))).status).toBe(400)
      const withSign = {...good, data: {...good.data, sign: 'x'}}
      expect((await post(listener.url, JSON.stringify(withSign))).status).toBe(400)
      expect(app.received).toHaveLength(0)
    } finally {
      listener.child.kill('SIGINT')
      await app.close()
    }
    const result = await listener.result
    expect(result.stdout).toContain('the key "data" is given twice')
    expect(result.stderr).toContain('0 payments notified (0 verified deliveries), 3 rejected')
  })

  it('forwards what was verified, re-serialised, with the same content type, never the raw bytes', async () => {
    const app = await startReceiver(() => ({status: 200, body: NOTIFICATION_ACK}))
    const listener = await listen(['--forward-to', app.url, '--exit-after', '1'])
    try {
      const good = signed(notification())
      const raw = `{ "sign" : "${good.sign}" ,\n "data" :  ${JSON.stringify(good.data, null, 2)} , "extra": 1 }`
      expect(await post(listener.url, raw)).toEqual({status: 200, body: NOTIFICATION_ACK})
      expect((await listener.result).code).toBe(0)
      expect(app.received).toHaveLength(1)
      expect(app.received[0]!.body).toBe(JSON.stringify(JSON.parse(raw)))
      expect(app.received[0]!.headers['content-type']).toBe('text/plain;charset=utf-8')
    } finally {
      await app.close()
    }
  })

  it('--timeout ends the listener on time with a slow client still sending its body', async () => {
    const listener = await listen(['--timeout', '2'])
    const {port} = new URL(listener.url)
    const slow = connect(Number(port), '127.0.0.1')
    slow.write('POST /notify HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"da')
    const started = Date.now()
    const result = await listener.result
    slow.destroy()
    expect(result.code).toBe(0)
    expect(Date.now() - started).toBeLessThan(6000)
  })
})

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

describe('bounded inputs', () => {
  it('a CSV field over 64 KiB: exit 2 naming the line, in refunds and reconcile', async () => {
    const csv = numberedFile('huge.csv', `mch_order_no,refund_fee,note\nA,100,small\nB,100,${'x'.repeat(70_000)}\n`)
    await refusedByBoth(csv, 'line 3: field 3 is 70000 characters long; at most 65536 are read')
  })

  it('a file of junk rows stops being checked after 1000 problems, exit 2', async () => {
    const csv = numberedFile(
      'junk.csv',
      `mch_order_no,refund_fee\n${Array.from({length: 20_000}, () => ',x').join('\n')}\n`,
    )
    const result = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run', '--json'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('The check stopped after 1000 problems; the rest of')
    const problems = result.json<{problems: {message: string}[]}>().problems
    expect(problems.at(-1)!.message).toBe('the check stopped here, after 1000 problems; fix these first')
  })

  it('a gateway answer over 4 MiB is cut off as a transport failure', async () => {
    const server = createServer((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'application/json'})
      const chunk = Buffer.alloc(1024 * 1024, 'x')
      let sent = 0
      const more = () => {
        while (sent < 64 && res.write(chunk)) sent++
        if (sent < 64) res.once('drain', more)
        else res.end()
      }
      more()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as AddressInfo
      const env = world.environmentProfile({GW_BASE_URL: `http://127.0.0.1:${port}/Gateway`})
      const result = await world.run(['order', 'query', 'X', '--channel', 'wechat'], {env})
      expect(result.code).toBe(3)
      expect(result.stderr).toContain('is larger than 4 MiB; it was cut off')
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})

describe('every bad input has its exit code', () => {
  it('a quote inside an unquoted field: exit 2 naming the line, in refunds and reconcile', async () => {
    const csv = numberedFile('quote.csv', 'mch_order_no,refund_fee,note\nA,100,=HYPERLINK("x","y")\n')
    await refusedByBoth(csv, 'line 2: not valid CSV (a quote inside a field that does not start with one)')
  })

  it('a binary file and a file that is not UTF-8: exit 2, the second naming its line', async () => {
    const binary = numberedFile('binary.csv', Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00]))
    const latin1 = numberedFile(
      'latin1.csv',
      Buffer.concat([
        Buffer.from('mch_order_no,refund_fee,note\nA,100,ok\nB,100,caf'),
        Buffer.from([0xe9]),
        Buffer.from('\n'),
      ]),
    )
    const bin = await world.run(['reconcile', binary])
    expect(bin.code).toBe(2)
    expect(bin.stderr).toContain('is not a CSV or .xlsx file: it holds binary content')
    const notUtf8 = await world.run(['refund', 'create', '--from-csv', latin1, '--dry-run'])
    expect(notUtf8.code).toBe(2)
    expect(notUtf8.stderr).toContain('line 3: the text is not valid UTF-8')
  })
})
