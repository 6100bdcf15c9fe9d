import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {request} from 'undici'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {NOTIFICATION_ACK} from '../../src/lib/gateway/protocol/index.js'
import {parsePrivateKey, sign} from '../../src/lib/gateway/signing.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {paymentNotification} from '../helpers/notification.js'
import {startReceiver, waitFor} from '../helpers/receiver.js'

let world: GwWorld
let n = 0

beforeAll(async () => {
  world = await startWorld({timeScale: 1000})
})
afterAll(() => world.close())

const listen = (args: string[] = []) => world.listen(args)

/** An order of the sandbox that notifies `url` once paid; its number. */
async function orderNotifying(url: string, amount = '150.50') {
  const mch = `NTF-${process.pid}-${++n}`
  const args = ['--amount', amount, '--fee-type', 'THB', '--mch-order-no', mch, '--notify-url', url, '--no-qr']
  const created = await world.run(['order', 'create', '--channel', 'wechat', ...args])
  expect(created.code).toBe(0)
  return mch
}

async function paidOrderNotifying(url: string, amount = '150.50') {
  const mch = await orderNotifying(url, amount)
  await world.pay(mch)
  return mch
}

const attempts = async (mch: string) =>
  (
    await world.sandbox.control<{notifications: {delivered: boolean; attempt: number; status: number}[]}>(
      'GET',
      `/sandbox/notifications?mch_order_no=${mch}`,
    )
  ).body.notifications

/** A notification body as the gateway would send it, signed with `pem`. */
function notification(pem: string, mch: string): string {
  const data = paymentNotification(mch, {
    appid: world.sandbox.info.merchants[0]!.appid,
    gw_order_no: `900${mch}`,
    total_fee: 100,
    nonce_str: 'x',
  })
  return JSON.stringify({code: 0, msg: 'ok', version: '3.0.0', data, sign: sign(data, parsePrivateKey(pem), 'rsa-md5')})
}
const gatewayPem = () => readFileSync(world.sandbox.info.gateway_public_key_file.replace('public', 'private'), 'utf8')
const otherPem = () => readFileSync(world.sandbox.info.merchants[0]!.private_key_file, 'utf8')
const post = async (url: string, body: string | Buffer) => {
  const response = await request(url, {method: 'POST', headers: {'content-type': 'text/plain;charset=utf-8'}, body})
  return {status: response.statusCode, body: await response.body.text()}
}

describe('gw notify listen', () => {
  it('prints a verified notification from the sandbox and exits after one; the sandbox records one successful attempt', async () => {
    const listener = await listen(['--exit-after', '1', '--timeout', '30'])
    const mch = await paidOrderNotifying(listener.url)
    const result = await listener.result
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`verified  ${mch}  900\\d+  150\\.50 THB  wechat`))
    expect(result.stderr).toContain('1 payment notified (1 verified delivery), 0 rejected.')
    const made = await attempts(mch)
    expect(made).toHaveLength(1)
    expect(made[0]).toMatchObject({delivered: true, status: 200})
  })

  it('prints JSON lines under --json, nothing else on stdout', async () => {
    const listener = await listen(['--exit-after', '1', '--json'])
    const mch = await paidOrderNotifying(listener.url, '10')
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

  it('forwards to a failing endpoint: the gateway retries, the listener marks the retries, delivery ends when the endpoint recovers', async () => {
    const app = await startReceiver((i) =>
      i < 2 ? {status: 500, body: 'app down'} : {status: 200, body: NOTIFICATION_ACK},
    )
    const listener = await listen(['--forward-to', app.url, '--timeout', '30'])
    try {
      const mch = await paidOrderNotifying(listener.url)
      const made = await waitFor(async () => {
        const list = await attempts(mch)
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
    const listener = await listen(['--forward-to', 'http://127.0.0.1:9/down', '--json'])
    try {
      const answer = await post(listener.url, notification(gatewayPem(), 'FWD-DOWN'))
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
    const listener = await listen(['--forward-to', 'http://127.0.0.1:9/hook', '--exit-after', '1', '--timeout', '30'])
    const mch = await paidOrderNotifying(listener.url)
    await waitFor(async () => ((await attempts(mch)).length >= 4 ? true : undefined))
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
    const listener = await listen()
    try {
      const answer = await post(listener.url, notification(otherPem(), 'FORGED'))
      expect(answer.status).toBe(400)
      expect(answer.body).not.toBe(NOTIFICATION_ACK)
      const good = await post(listener.url, notification(gatewayPem(), 'GENUINE'))
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
    const listener = await listen(['--log', log, '--exit-after', '500', '--timeout', '60', '--json'])
    const pem = gatewayPem()
    const answers = await Promise.all(
      Array.from({length: 500}, (_, i) => post(listener.url, notification(pem, `BURST-${i}`))),
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
  }, 60_000)

  it('refuses oversized and malformed bodies without crashing', async () => {
    const listener = await listen()
    try {
      expect((await post(listener.url, Buffer.alloc(70 * 1024, 'x'))).status).toBe(413)
      expect((await post(listener.url, 'not json')).status).toBe(400)
      expect((await post(listener.url, '{"data": 1}')).status).toBe(400)
      expect((await post(listener.url, '{"data": {"result": "SUCCESS"}, "sign": "zz"}')).status).toBe(400)
      expect((await request(listener.url)).statusCode).toBe(405)
      expect(await post(listener.url, notification(gatewayPem(), 'STILL-UP'))).toEqual({
        status: 200,
        body: NOTIFICATION_ACK,
      })
    } finally {
      listener.child.kill('SIGINT')
    }
    expect((await listener.result).stderr).toContain('1 payment notified (1 verified delivery), 4 rejected.')
  })

  it('--host 0.0.0.0 listens beyond loopback, warning what it exposes', async () => {
    const listener = await listen(['--host', '0.0.0.0', '--exit-after', '1', '--timeout', '30'])
    const answer = await post(listener.url, notification(gatewayPem(), `HOST-${++n}`))
    expect(answer).toEqual({status: 200, body: NOTIFICATION_ACK})
    const result = await listener.result
    expect(result.stderr).toContain('listening on 0.0.0.0: any machine that reaches this one')
    expect(result.stderr).toContain('Only notifications signed with the gateway key of profile "sandbox"')
  })

  it('exits 5 when --timeout passes before --exit-after', async () => {
    const listener = await listen(['--exit-after', '1', '--timeout', '1'])
    const result = await listener.result
    expect(result.code).toBe(5)
    expect(result.stderr).toContain('--timeout passed before 1 payment came')
  })
})

describe('the sandbox delivering notifications', () => {
  it('takes any JSON object with result SUCCESS and msg OK as the acknowledgement: spaces and key order are free', async () => {
    const python = await startReceiver(() => ({status: 200, body: '{"msg": "OK", "result": "SUCCESS"}'}))
    try {
      const mch = await paidOrderNotifying(python.url)
      const made = await waitFor(async () => {
        const list = await attempts(mch)
        return list.length ? list : undefined
      })
      await new Promise((r) => setTimeout(r, 300))
      expect(made).toHaveLength(1)
      expect(made[0]).toMatchObject({delivered: true})
      expect(await attempts(mch)).toHaveLength(1)
    } finally {
      await python.close()
    }
  })

  it("gw sandbox notify delivers a paid order's notification again and shows the answer; an unpaid order has none", async () => {
    const app = await startReceiver(() => ({status: 200, body: NOTIFICATION_ACK}))
    try {
      const mch = await paidOrderNotifying(app.url)
      await waitFor(() => (app.received.length ? true : undefined))
      const again = await world.run(['sandbox', 'notify', mch])
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toContain(`notification of ${mch} sent to ${app.url}`)
      expect(again.stdout).toContain('acknowledged (HTTP 200')
      expect(app.received).toHaveLength(2)
      // The same notification, signed afresh as the gateway signs each delivery.
      const data = (i: number) =>
        (JSON.parse(app.received[i]!.body) as {data: {mch_order_no: string; total_fee: number}}).data
      expect(data(1)).toMatchObject({mch_order_no: mch, total_fee: data(0).total_fee})
      const unpaid = await orderNotifying(app.url, '1')
      const none = await world.run(['sandbox', 'notify', unpaid])
      expect(none.code).toBe(1)
      expect(none.stderr).toContain(`order ${unpaid} is not paid: it has no notification`)
    } finally {
      await app.close()
    }
  })
})

describe('gw notify replay and a log', () => {
  it('sends the logged notifications again, verbatim, once each; shows each answer; exit 0, 1 or 3 by what came back', async () => {
    const log = join(world.configDir, `replay-${++n}.jsonl`)
    const failing = await startReceiver((i) =>
      i < 1 ? {status: 500, body: 'down'} : {status: 200, body: NOTIFICATION_ACK},
    )
    const listener = await listen(['--log', log, '--forward-to', failing.url])
    const orders: string[] = []
    try {
      orders.push(await paidOrderNotifying(listener.url), await paidOrderNotifying(listener.url))
      await waitFor(async () => ((await attempts(orders[0]!)).some((a) => a.delivered) ? true : undefined))
      await waitFor(async () => ((await attempts(orders[1]!)).some((a) => a.delivered) ? true : undefined))
    } finally {
      listener.child.kill('SIGINT')
      await listener.result
      await failing.close()
    }
    const logged = readFileSync(log, 'utf8').trim().split('\n')
    expect(logged.length).toBeGreaterThanOrEqual(3)

    const fixed = await startReceiver(() => ({status: 200, body: '{"result": "SUCCESS", "msg": "OK"}'}))
    try {
      const replayed = await world.run(['notify', 'replay', log, '--to', fixed.url])
      expect(replayed.code, replayed.stderr).toBe(0)
      expect(fixed.received).toHaveLength(2)
      const first = JSON.parse(logged[0]!) as {body: string; headers: Record<string, string>}
      expect(fixed.received[0]!.body).toBe(first.body)
      expect(fixed.received[0]!.headers['content-type']).toBe(first.headers['content-type'])
      expect(replayed.stdout).toContain(`${orders[0]}  acknowledged (HTTP 200)\n`)
      expect(replayed.stderr).toContain(`2 of 2 logged notifications acknowledged by ${fixed.url}`)
      const only = await world.run(['notify', 'replay', log, '--to', fixed.url, '--only', orders[1]!, '--json'])
      expect(only.json<{replayed: {mch_order_no: string; acknowledged: boolean}[]}>().replayed).toEqual([
        expect.objectContaining({mch_order_no: orders[1], acknowledged: true}),
      ])
    } finally {
      await fixed.close()
    }
    const broken = await startReceiver(() => ({status: 200, body: 'ok'}))
    try {
      const refused = await world.run(['notify', 'replay', log, '--to', broken.url])
      expect(refused.code).toBe(1)
      expect(refused.stdout).toContain(
        `${orders[0]}  not acknowledged (HTTP 200: ok); acknowledge with HTTP 200 and the body {"result":"SUCCESS","msg":"OK"}\n`,
      )
      expect(refused.stderr).toContain(`0 of 2 logged notifications acknowledged by ${broken.url}`)
    } finally {
      await broken.close()
    }

    // A log whose line was edited: never sent, never counted as acknowledged.
    const edited = join(world.configDir, `edited-${++n}.jsonl`)
    const tamper = (line: string) => line.replace(/\\"total_fee\\":15050/, '\\"total_fee\\":99999')
    expect(tamper(logged[0]!)).not.toBe(logged[0])
    const {writeFileSync} = await import('node:fs')
    writeFileSync(edited, `${tamper(logged[0]!)}\n`)
    const app = await startReceiver(() => ({status: 200, body: NOTIFICATION_ACK}))
    try {
      const alone = await world.run(['notify', 'replay', edited, '--to', app.url])
      expect(alone.code).toBe(4)
      expect(alone.stderr).toContain('line 1 not sent: signature does not verify')
      expect(alone.stderr).toContain(
        `0 of 1 logged notification acknowledged by ${app.url}; 1 line of the log not sent`,
      )
      // Its payment's other delivery is sent and acknowledged; the edited line still counts against the run.
      writeFileSync(edited, `${tamper(logged[0]!)}\n${logged[1]}\n`)
      const beside = await world.run(['notify', 'replay', edited, '--to', app.url])
      expect(beside.code).toBe(4)
      expect(beside.stderr).toContain(
        `of 2 logged notifications acknowledged by ${app.url}; 1 line of the log not sent`,
      )
      expect(beside.stderr).not.toContain('1 of 1')
    } finally {
      await app.close()
    }
    expect((await world.run(['notify', 'replay', log, '--to', 'http://127.0.0.1:9/down'])).code).toBe(3)

    // The same log, verified line by line.
    const verified = await world.run(['signature', 'verify', log])
    expect(verified.code).toBe(0)
    expect(verified.stdout).toMatch(/^line 1: valid: the signature over "data" verifies/)
    const tampered = `${logged[0]!.replace('150.50', '999.99').replace(/15050/g, '99999')}\n${logged[1]}\nnot json\n`
    const check = await world.run(['signature', 'verify', '-', '--json'], {input: tampered})
    expect(check.code).toBe(4)
    expect(check.json<{valid: boolean; lines: {line: number; valid: boolean; problem?: string}[]}>()).toMatchObject({
      valid: false,
      lines: [
        {line: 1, valid: false},
        {line: 2, valid: true},
        {line: 3, valid: false, problem: 'not JSON'},
      ],
    })
    // The body intact, the amount the line shows beside it edited: not valid, the field named.
    const beside = {...JSON.parse(logged[0]!), total_fee: 1}
    const besideEdited = await world.run(['signature', 'verify', '-'], {
      input: `${JSON.stringify(beside)}\n${logged[1]}\n`,
    })
    expect(besideEdited.code).toBe(4)
    expect(besideEdited.stdout).toContain(
      "line 1: INVALID: the line's total_fee (1) is not its signed body's (15050): the line was changed after it was logged",
    )
    expect(besideEdited.stdout).toMatch(/^line 2: valid/m)
  }, 60_000)
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

  it('replay verifies every logged body again: a forged "verified" line, an odd content type and lines that are not deliveries are not sent', async () => {
    const log = join(world.configDir, `forged-${++n}.jsonl`)
    const line = (body: string, type = 'text/plain;charset=utf-8', verdict = 'verified') =>
      JSON.stringify({at: '2026-11-21T10:00:00Z', verdict, headers: {'content-type': type}, body})
    const {writeFileSync} = await import('node:fs')
    writeFileSync(
      log,
      [
        line(notification(gatewayPem(), 'REAL-1')),
        line(notification(otherPem(), 'FORGED-1')),
        'null',
        line(notification(gatewayPem(), 'TYPED-1'), 'application/x-www-form-urlencoded'),
        '{"verdict":"verified","body":123}',
        line(notification(gatewayPem(), 'REFUSED-1'), 'text/plain', 'REJECTED'),
        line(notification(gatewayPem(), 'NBSP-1'), 'text/plain\u00a0'),
        line(notification(gatewayPem(), 'CRLF-1'), 'text/plain\r\nx-injected: 1'),
        line(notification(gatewayPem(), 'HUGE-1').replace('{', `{"pad":"${'x'.repeat(70 * 1024)}",`)),
      ].join('\n'),
    )
    const app = await startReceiver(() => ({status: 200, body: NOTIFICATION_ACK}))
    try {
      const replayed = await world.run(['notify', 'replay', log, '--to', app.url, '--json'])
      // Lines not sent are the run's failure: exit 4, as for a notification that fails verification.
      expect(replayed.code, replayed.stderr).toBe(4)
      expect(app.received.map((r) => JSON.parse(r.body).data.mch_order_no)).toEqual(['REAL-1'])
      expect(replayed.json()).toMatchObject({
        replayed: [{line: 1, mch_order_no: 'REAL-1', acknowledged: true}],
        skipped: [
          {line: 2, reason: 'signature does not verify with the gateway public key'},
          {line: 4, reason: 'it came with a content type the gateway does not send'},
          {line: 7, reason: 'it came with a content type the gateway does not send'},
          {line: 8, reason: 'it came with a content type the gateway does not send'},
          {line: 9, reason: `its body is larger than ${64 * 1024} bytes, which no listener takes`},
        ],
      })
      expect(replayed.stderr).toContain('lines 3, 5 are not deliveries logged by gw notify listen')
      const ftp = await world.run(['notify', 'replay', log, '--to', 'ftp://127.0.0.1/x'])
      expect(ftp.code).toBe(2)
      expect(ftp.stderr).toContain('is not an http:// or https:// address')
      const secret = await world.run(['notify', 'replay', log, '--to', 'http://ops:hunter2@127.0.0.1:9/x'])
      expect(secret.code).toBe(2)
      expect(secret.stderr).not.toContain('hunter2')
      expect((await world.run(['notify', 'replay', log, '--to', 'http://127.0.0.1:0/x'])).code).toBe(2)
      const empty = await world.run(['notify', 'replay', log, '--to', app.url, '--only', ''])
      expect(empty.code).toBe(2)
      expect(empty.stderr).toContain('--only is empty')
      expect(app.received).toHaveLength(1)
    } finally {
      await app.close()
    }
  })

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
    const full = await listen(['--log', '/dev/full', '--exit-after', '2', '--timeout', '30'])
    expect(await post(full.url, notification(gatewayPem(), `FULL-${++n}`))).toEqual({
      status: 200,
      body: NOTIFICATION_ACK,
    })
    expect(await post(full.url, notification(gatewayPem(), `FULL-${++n}`))).toEqual({
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
      const looped = await post(`http://127.0.0.1:${port}/`, notification(gatewayPem(), `LOOP-${++n}`))
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

  it("sandbox notify shows the endpoint's answer safely, and exits 1 when it is not an acknowledgement", async () => {
    const app = await startReceiver((i) =>
      i === 0 ? {status: 200, body: NOTIFICATION_ACK} : {status: 200, body: 'ok\u001b[2J\u001b]0;pwned\u0007'},
    )
    try {
      const mch = await paidOrderNotifying(app.url)
      await waitFor(() => (app.received.length ? true : undefined))
      const again = await world.run(['sandbox', 'notify', mch])
      expect(again.code).toBe(1)
      expect(again.stdout).toContain('not acknowledged (HTTP 200: ok\\x1B[2J\\x1B]0;pwned\\x07)')
      expect(again.stdout).not.toContain('\u001b')
    } finally {
      await app.close()
    }
  })
})
