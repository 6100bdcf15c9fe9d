/** gw notify replay: logged notifications sent again, each verified again first. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {NOTIFICATION_ACK} from '../../../src/lib/gateway/protocol/index.js'
import {type GwWorld, startWorld} from '../../helpers/gw-env.js'
import {startReceiver, waitFor} from '../../helpers/receiver.js'

let world: GwWorld

let n = 0

beforeAll(async () => {
  world = await startWorld({timeScale: 1000})
})

afterAll(() => world.close())

describe('gw notify replay and a log', () => {
  it('sends the logged notifications again, verbatim, once each; shows each answer; exit 0, 1 or 3 by what came back', async () => {
    const log = join(world.configDir, `replay-${++n}.jsonl`)
    const failing = await startReceiver((i) =>
      i < 1 ? {status: 500, body: 'down'} : {status: 200, body: NOTIFICATION_ACK},
    )
    const listener = await world.listen(['--log', log, '--forward-to', failing.url])
    const orders: string[] = []
    try {
      orders.push(await world.paidOrderNotifying(listener.url), await world.paidOrderNotifying(listener.url))
      await waitFor(async () => ((await world.notificationsOf(orders[0]!)).some((a) => a.delivered) ? true : undefined))
      await waitFor(async () => ((await world.notificationsOf(orders[1]!)).some((a) => a.delivered) ? true : undefined))
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
  })
})

describe('what a developer or an attacker may bring to the listener, replay and sandbox notify', () => {
  it('replay verifies every logged body again: a forged "verified" line, an odd content type and lines that are not deliveries are not sent', async () => {
    const log = join(world.configDir, `forged-${++n}.jsonl`)
    const line = (body: string, type = 'text/plain;charset=utf-8', verdict = 'verified') =>
      JSON.stringify({at: '2026-11-21T10:00:00Z', verdict, headers: {'content-type': type}, body})
    const {writeFileSync} = await import('node:fs')
    writeFileSync(
      log,
      [
        line(world.notification('REAL-1')),
        line(world.notification('FORGED-1', 'forged')),
        'null',
        line(world.notification('TYPED-1'), 'application/x-www-form-urlencoded'),
        '{"verdict":"verified","body":123}',
        line(world.notification('REFUSED-1'), 'text/plain', 'REJECTED'),
        line(world.notification('NBSP-1'), 'text/plain\u00a0'),
        line(world.notification('CRLF-1'), 'text/plain\r\nx-injected: 1'),
        line(world.notification('HUGE-1').replace('{', `{"pad":"${'x'.repeat(70 * 1024)}",`)),
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
})
