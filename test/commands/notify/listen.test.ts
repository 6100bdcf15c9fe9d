/** gw notify listen: notifications verified, answered, logged and forwarded; what a listener refuses. */
import {readFileSync} from 'node:fs'
import {connect} from 'node:net'
import {join} from 'node:path'

import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {NOTIFICATION_ACK} from '../../../src/lib/gateway/protocol/index.js'
import {parsePrivateKey, sign} from '../../../src/lib/gateway/signing.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {paymentNotification} from '../../helpers/notification.js'
import {startReceiver, waitFor} from '../../helpers/receiver.js'

let world: GwWorld

let n = 0

const merchant = () => world.sandbox.info.merchants[0]!

const gatewayPem = () => readFileSync(world.sandbox.info.gateway_public_key_file.replace('public', 'private'), 'utf8')

const ESC = '\u001b'

/** A body POSTed to the listener at `url` as any client may: its status and answer. */
const post = async (url: string, body: string | Buffer) => {
  const response = await request(url, {method: 'POST', headers: {'content-type': 'text/plain;charset=utf-8'}, body})
  return {status: response.statusCode, body: await response.body.text()}
}

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

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
})

describe('the listener', () => {
  const listen = (args: string[] = []) => world.listen(args)

  const signed = (data: Record<string, unknown>) => ({data, sign: sign(data, parsePrivateKey(gatewayPem()), 'rsa-md5')})

  const notification = (extra: Record<string, unknown> = {}) =>
    paymentNotification(`L-${++n}`, {appid: merchant().appid, gw_order_no: `900L${n}`, total_fee: 100, ...extra})

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
    const closed = new Promise<boolean>((resolve) => slow.once('close', () => resolve(true)))
    const result = await listener.result
    expect(result.code).toBe(0)
    // The listener ended while the client was still sending, and closed its connection: it never waited for it.
    expect(await closed).toBe(true)
  })
})

describe('a notification with text moved between its fields', () => {
  it('still verifies by signature, and is refused by the listener and not acknowledged', async () => {
    const app = await startReceiver(() => ({status: 200, body: '{"result":"SUCCESS","msg":"OK"}'}))
    const mch = `PRV-NTF-${process.pid}`
    const create = ['order', 'create', '--channel', 'wechat', '--amount', '12.34', '--fee-type', 'THB']
    expect((await world.run([...create, '--mch-order-no', mch, '--notify-url', app.url, '--no-qr'])).code).toBe(0)
    await world.pay(mch)
    await waitFor(() => app.received.length > 0)
    await app.close()
    const real = JSON.parse(app.received[0]!.body) as {data: Record<string, unknown>; sign: string}
    const {nonce_str: nonce, ...noNonce} = real.data
    const {total_fee: total, ...noTotal} = real.data
    const resplit = [
      {...real, data: {...noNonce, mch_order_no: `${mch}nonce_str=${String(nonce)}`}},
      {...real, data: {...noTotal, time_end: `${String(real.data.time_end)}total_fee=${String(total)}`}},
    ]
    const listener = await world.listen(['--timeout', '30', '--json'])
    try {
      for (const body of [real, ...resplit]) {
        const answer = await request(listener.url, {
          method: 'POST',
          headers: {'content-type': 'text/plain;charset=utf-8'},
          body: JSON.stringify(body),
        })
        const text = await answer.body.text()
        if (body === real) expect(text).toBe('{"result":"SUCCESS","msg":"OK"}')
        else expect(text).not.toContain('"SUCCESS"')
      }
    } finally {
      listener.child.kill('SIGINT')
    }
    const lines = (await listener.result).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as {verdict: string; reason?: string})
    expect(lines.map((l) => l.verdict)).toEqual(['verified', 'REJECTED', 'REJECTED'])
    for (const line of lines.slice(1)) expect(line.reason).toContain('not a payment notification as section 6 requires')
  })
})

describe("on the sandbox's clock, 1000 times faster", () => {
  let world: GwWorld

  let n = 0

  beforeAll(async () => {
    world = await startWorld({timeScale: 1000})
  })

  afterAll(() => world.close())

  describe('gw notify listen', () => {
    it('prints a verified notification from the sandbox and exits after one; the sandbox records one successful attempt', async () => {
      const listener = await world.listen(['--exit-after', '1', '--timeout', '30'])
      const mch = await world.paidOrderNotifying(listener.url)
      const result = await listener.result
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(new RegExp(`verified  ${mch}  900\\d+  150\\.50 THB  wechat`))
      expect(result.stderr).toContain('1 payment notified (1 verified delivery), 0 rejected.')
      const made = await world.notificationsOf(mch)
      expect(made).toHaveLength(1)
      expect(made[0]).toMatchObject({delivered: true, status: 200})
    })

    it('prints JSON lines under --json, nothing else on stdout', async () => {
      const listener = await world.listen(['--exit-after', '1', '--json'])
      const mch = await world.paidOrderNotifying(listener.url, '10')
      const result = await listener.result
      const lines = result.stdout.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(JSON.parse(lines[0]!)).toMatchObject({
        verdict: 'verified',
        mch_order_no: mch,
        total_fee: 1000,
        fee_type: 'THB',
        retry: 0,
        answer: {status: 200, body: NOTIFICATION_ACK},
      })
    })

    it("--zone puts each line's time on that clock, in text and --json alike", async () => {
      for (const json of [[], ['--json']]) {
        const listener = await world.listen([
          '--exit-after',
          '1',
          '--timeout',
          '30',
          '--zone',
          'Asia/Kathmandu',
          ...json,
        ])
        const mch = await world.paidOrderNotifying(listener.url)
        const result = await listener.result
        expect(result.code, result.stderr).toBe(0)
        const at = json.length ? JSON.parse(result.stdout.trim()).at : result.stdout.split('  ')[0]
        expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+05:45$/)
        expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000)
        expect(result.stdout).toContain(mch)
      }
    })

    it('forwards to a failing endpoint: the gateway retries, the listener marks the retries, delivery ends when the endpoint recovers', async () => {
      const app = await startReceiver((i) =>
        i < 2 ? {status: 500, body: 'app down'} : {status: 200, body: NOTIFICATION_ACK},
      )
      const listener = await world.listen(['--forward-to', app.url, '--timeout', '30'])
      try {
        const mch = await world.paidOrderNotifying(listener.url)
        const made = await waitFor(async () => {
          const list = await world.notificationsOf(mch)
          return list.some((a) => a.delivered) ? list : undefined
        })
        listener.child.kill('SIGINT')
        const result = await listener.result
        expect(result.code).toBe(0)
        const lines = result.stdout.trim().split('\n')
        // The endpoint's answer in words, its text as it came: no JSON quoted inside quotes.
        expect(lines[0]).toMatch(
          /forwarded: not acknowledged \(HTTP 500: app down\); acknowledge with HTTP 200 and the body \{"result":"SUCCESS","msg":"OK"\}$/,
        )
        expect(lines[1]).toContain('retry 1')
        expect(lines[2]).toMatch(/retry 2 +forwarded: acknowledged \(HTTP 200\)$/)
        // One payment, delivered three times: counted as what it is, and acknowledged in the end.
        expect(result.stderr).toContain(
          `1 payment notified (3 verified deliveries), 0 rejected. ${app.url} acknowledged 1 of 1 payment (2 forwards not acknowledged).`,
        )
        expect(made.map((a) => a.delivered)).toEqual([false, false, true])
        expect(app.received).toHaveLength(3)
        expect(app.received[0]!.headers['content-type']).toBe('text/plain;charset=utf-8')
      } finally {
        await app.close()
      }
    })

    it('answers a failure when the forward target is unreachable, and never ends saying all is well', async () => {
      const listener = await world.listen(['--forward-to', 'http://127.0.0.1:9/down', '--json'])
      try {
        const answer = await post(listener.url, world.notification('FWD-DOWN'))
        expect(answer.status).toBe(502)
        expect(answer.body).not.toBe(NOTIFICATION_ACK)
      } finally {
        listener.child.kill('SIGINT')
      }
      const result = await listener.result
      // Stopping is how a listener ends, but a payment the endpoint never got is not a success: 3, it could not be reached.
      expect(result.code).toBe(3)
      expect(JSON.parse(result.stdout.trim())).toMatchObject({
        verdict: 'verified',
        forwarded: {url: 'http://127.0.0.1:9/down', error: expect.any(String), acknowledged: false},
      })
      expect(result.stderr).toContain(
        '1 payment notified (1 verified delivery), 0 rejected. http://127.0.0.1:9/down acknowledged 0 of 1 payment (1 forward not acknowledged).',
      )
    })

    it('forwarding to a closed port, as the sandbox retries: the lines say not delivered, the summary 0 acknowledged, exit 3; --exit-after waits for an acknowledgement', async () => {
      const listener = await world.listen([
        '--forward-to',
        'http://127.0.0.1:9/hook',
        '--exit-after',
        '1',
        '--timeout',
        '30',
      ])
      const mch = await world.paidOrderNotifying(listener.url)
      await waitFor(async () => ((await world.notificationsOf(mch)).length >= 4 ? true : undefined))
      listener.child.kill('SIGINT')
      const result = await listener.result
      expect(result.code).toBe(3)
      const lines = result.stdout.trim().split('\n')
      expect(lines.length).toBeGreaterThanOrEqual(4)
      for (const line of lines) expect(line).toMatch(/forwarded: not delivered \(.*\)$/)
      expect(result.stderr).toMatch(
        /1 payment notified \(\d+ verified deliveries\), 0 rejected\. http:\/\/127\.0\.0\.1:9\/hook acknowledged 0 of 1 payment/,
      )
      expect(result.stderr).not.toContain('--timeout passed')
    })

    it('rejects a notification signed with another key, answering a failure and warning', async () => {
      const listener = await world.listen()
      try {
        const answer = await post(listener.url, world.notification('FORGED', 'forged'))
        expect(answer.status).toBe(400)
        expect(answer.body).not.toBe(NOTIFICATION_ACK)
        const good = await post(listener.url, world.notification('GENUINE'))
        expect(good).toEqual({status: 200, body: NOTIFICATION_ACK})
      } finally {
        listener.child.kill('SIGINT')
      }
      const result = await listener.result
      expect(result.stdout).toMatch(/REJECTED {2}FORGED .*signature does not verify/)
      expect(result.stderr).toContain('rejected a notification: signature does not verify')
      expect(result.stderr).toContain('check the gateway public key of profile "sandbox" if this repeats')
      expect(result.stderr).toContain('1 payment notified (1 verified delivery), 1 rejected.')
    })

    it('answers and logs 500 notifications sent at once, none lost', async () => {
      const log = join(world.configDir, 'notifications.jsonl')
      const listener = await world.listen(['--log', log, '--exit-after', '500', '--timeout', '60', '--json'])
      const answers = await Promise.all(
        Array.from({length: 500}, (_, i) => post(listener.url, world.notification(`BURST-${i}`))),
      )
      expect(answers.every((a) => a.status === 200 && a.body === NOTIFICATION_ACK)).toBe(true)
      const result = await listener.result
      expect(result.code).toBe(0)
      expect(result.stdout.trim().split('\n')).toHaveLength(500)
      const logged = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as {mch_order_no: string; body: string; headers: Record<string, string>})
      expect(new Set(logged.map((l) => l.mch_order_no)).size).toBe(500)
      expect(logged[0]!.headers['content-type']).toBe('text/plain;charset=utf-8')
      expect(JSON.parse(logged[0]!.body).sign).toMatch(/^[0-9a-f]+$/)
    })

    it('refuses oversized and malformed bodies without crashing', async () => {
      const listener = await world.listen()
      try {
        expect((await post(listener.url, Buffer.alloc(70 * 1024, 'x'))).status).toBe(413)
        expect((await post(listener.url, 'not json')).status).toBe(400)
        expect((await post(listener.url, '{"data": 1}')).status).toBe(400)
        expect((await post(listener.url, '{"data": {"result": "SUCCESS"}, "sign": "zz"}')).status).toBe(400)
        expect((await request(listener.url)).statusCode).toBe(405)
        expect(await post(listener.url, world.notification('STILL-UP'))).toEqual({
          status: 200,
          body: NOTIFICATION_ACK,
        })
      } finally {
        listener.child.kill('SIGINT')
      }
      expect((await listener.result).stderr).toContain('1 payment notified (1 verified delivery), 4 rejected.')
    })

    it('--host 0.0.0.0 listens beyond loopback, warning what it exposes', async () => {
      const listener = await world.listen(['--host', '0.0.0.0', '--exit-after', '1', '--timeout', '30'])
      const answer = await post(listener.url, world.notification(`HOST-${++n}`))
      expect(answer).toEqual({status: 200, body: NOTIFICATION_ACK})
      const result = await listener.result
      expect(result.stderr).toContain('listening on 0.0.0.0: any machine that reaches this one')
      expect(result.stderr).toContain('Only notifications signed with the gateway key of profile "sandbox"')
    })

    it('exits 5 when --timeout passes before --exit-after', async () => {
      const listener = await world.listen(['--exit-after', '1', '--timeout', '1'])
      const result = await listener.result
      expect(result.code).toBe(5)
      expect(result.stderr).toContain('--timeout passed before 1 payment came')
    })
  })

  describe('what a developer or an attacker may bring to the listener, replay and sandbox notify', () => {
    const freePort = async () => {
      const {createServer} = await import('node:net')
      const server = createServer()
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const {port} = server.address() as {port: number}
      await new Promise((resolve) => server.close(resolve))
      return port
    }

    it('--log to a folder or into a missing folder is refused before listening; a full disk is said once and answering goes on', async () => {
      const folder = await world.run(['notify', 'listen', '--port', '0', '--log', world.configDir])
      expect(folder.code).toBe(2)
      expect(folder.stderr).toContain('it is a folder')
      const missing = await world.run([
        'notify',
        'listen',
        '--port',
        '0',
        '--log',
        join(world.configDir, 'no/such.jsonl'),
      ])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain('its folder does not exist')
      const {execFileSync} = await import('node:child_process')
      const fifo = join(world.configDir, `pipe-${++n}`)
      execFileSync('mkfifo', [fifo])
      const pipe = await world.run(['notify', 'listen', '--port', '0', '--log', fifo, '--timeout', '5'])
      expect(pipe.code).toBe(2)
      expect(pipe.stderr).toContain('it is not a file (a pipe)')
      expect((await world.run(['notify', 'listen', '--port', '0', '--host', ''])).stderr).toContain('--host is empty')
      const full = await world.listen(['--log', '/dev/full', '--exit-after', '2', '--timeout', '30'])
      expect(await post(full.url, world.notification(`FULL-${++n}`))).toEqual({
        status: 200,
        body: NOTIFICATION_ACK,
      })
      expect(await post(full.url, world.notification(`FULL-${++n}`))).toEqual({
        status: 200,
        body: NOTIFICATION_ACK,
      })
      const result = await full.result
      expect(result.code).toBe(0)
      expect(result.stderr.match(/cannot write to the log \/dev\/full \(ENOSPC\)/g)).toHaveLength(1)
      expect(result.stderr).not.toContain('    at ')
    })

    it('a --timeout beyond what a timer holds is refused, exit 2, instead of stopping at once', async () => {
      const huge = await world.run(['notify', 'listen', '--port', '0', '--timeout', '99999999'])
      expect(huge.code).toBe(2)
      expect(huge.stderr).toContain('--timeout')
    })

    it('--forward-to the listener itself is refused; a loop by another route is cut at the first turn', async () => {
      const port = await freePort()
      const itself = await world.run([
        'notify',
        'listen',
        '--port',
        String(port),
        '--forward-to',
        `http://localhost:${port}/x`,
      ])
      expect(itself.code).toBe(2)
      expect(itself.stderr).toContain('is this listener itself')
      // 127.0.0.2 is this machine too, by a name the listener cannot know as its own.
      const spawned = world.spawn([
        'notify',
        'listen',
        '--host',
        '0.0.0.0',
        '--port',
        String(port),
        '--forward-to',
        `http://127.0.0.2:${port}/x`,
      ])
      try {
        await waitFor(async () => (await post(`http://127.0.0.1:${port}/`, 'x').catch(() => undefined)) ?? undefined)
        const looped = await post(`http://127.0.0.1:${port}/`, world.notification(`LOOP-${++n}`))
        expect(looped.status).toBe(508)
        expect(looped.body).toContain('forwarded back to this listener')
      } finally {
        spawned.child.kill('SIGINT')
      }
      const ended = await spawned.result
      // Forwarded to itself, the notification was never acknowledged by an endpoint: 1, not all is well.
      expect(ended.code).toBe(1)
      expect(ended.stderr).toContain('rejected a notification: forwarded back to this listener')
      expect(ended.stderr).not.toContain('check the gateway public key')
    })
  })
})
