/**
 * Everyday commands, through the CLI against the sandbox: forgiving input (typos, case),
 * plain messages (TLS, refunds made elsewhere), one time format.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startForwarder} from '../helpers/forwarder.js'
import {type GwWorld, startWorld} from '../helpers/gw-env.js'
import {gwShellLine} from '../helpers/gw-under-test.js'
import {startReceiver} from '../helpers/receiver.js'
import {drawQr} from '../../src/lib/render/qr.js'
import {readDrawnQr} from '../helpers/qr-screen.js'
import {ONE_FORM, REPO_ROOT, tempDir, TIME} from '../helpers/shared.js'
import {HAS_TMUX, Terminal} from '../helpers/terminal.js'
import {readWorkbook} from '../helpers/workbooks.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world.close())

describe('what did we do today: order list and refund list', () => {
  it('--refresh with the gateway down lists what it knew, marked, warns, and exits 3', async () => {
    const made = [
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '100.00',
      '--fee-type',
      'THB',
      '--mch-order-no',
      'DOWN-1',
      '--no-qr',
    ]
    const gateway = await startForwarder(world.sandbox.info.base_url)
    const viaGateway = world.environmentProfile({GW_BASE_URL: gateway.baseUrl})
    const created = await world.run(made, {env: viaGateway})
    expect(created.code, created.stderr).toBe(0)
    await world.pay('DOWN-1')
    expect(
      (await world.run(['refund', 'create', 'DOWN-1', '--amount', '10.00', '--yes'], {env: viaGateway})).code,
    ).toBe(0)
    // The same gateway, at an address the test takes down: nothing listens there any more.
    await gateway.down()
    for (const what of ['order', 'refund']) {
      const listed = await world.run([what, 'list', '--since', '10m', '--refresh', '--timeout', '1'], {env: viaGateway})
      expect(listed.code, listed.stdout + listed.stderr).toBe(3)
      expect(listed.stdout).toContain('(not refreshed)')
      expect(listed.stderr).toMatch(
        new RegExp(`warning: \\d+ of \\d+ ${what}s could not be refreshed \\(nothing is listening`),
      )
    }
  })

  it('lists the orders made here, newest first, filtered by time, channel and state; --refresh asks the gateway', async () => {
    const make = async (channel: string) => {
      const created = await world.run([
        'order',
        'create',
        '--channel',
        channel,
        '--amount',
        '2.50',
        '--fee-type',
        'THB',
        '--no-qr',
        '--json',
      ])
      return created.json<{order: {mch_order_no: string}}>().order.mch_order_no
    }
    const first = await make('wechat')
    const second = await make('alipay')
    await world.pay(first)
    const all = await world.run(['order', 'list', '--since', '10m', '--json'])
    const listed = all.json<{orders: {mch_order_no: string; state: string; made_at: string}[]}>().orders
    expect(listed.slice(0, 2).map((o) => o.mch_order_no)).toEqual([second, first])
    expect(listed[0]!.made_at).toMatch(ONE_FORM)
    // Paid through the sandbox, not through gw: gw last knew it unpaid, until it asks.
    expect(listed.find((o) => o.mch_order_no === first)!.state).toBe('NOTPAY')
    const refreshed = await world.run(['order', 'list', '--since', '10m', '--state', 'success', '--refresh', '--json'])
    expect(refreshed.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual([first])
    // What --refresh learned is kept.
    const after = await world.run(['order', 'list', '--since', '10m', '--state', 'SUCCESS'])
    expect(after.stdout).toContain(first)
    expect(after.stdout).toMatch(/\n1 order\n$/)
    const alipay = await world.run(['order', 'list', '--channel', 'AliPay', '--since', '10m', '--json'])
    expect(alipay.json<{orders: {mch_order_no: string}[]}>().orders.map((o) => o.mch_order_no)).toEqual([second])
    const none = await world.run(['order', 'list', '--until', '2000-01-01'])
    expect(none.stdout).toContain('No orders made on this machine for')
    const bad = await world.run(['order', 'list', '--since', 'last tuesday'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--since last tuesday is not a time gw reads')
  })

  it('lists the refunds made here with how they were made; --out writes CSV or a workbook; another appid sees none', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'LIST')
    await world.run(['refund', 'create', order!, '--amount', '1.25', '--channel', 'wechat'])
    const result = await world.run(['refund', 'list', '--since', 'today', '--out', join(world.configDir, 'today.xlsx')])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(
      new RegExp(`${order} +│ 1\\.25 THB +│ 100\\.00 THB +│ refunded +│ \\d+ +│ refund create`),
    )
    const [sheet] = await readWorkbook(join(world.configDir, 'today.xlsx'))
    const columns = sheet!.rows[0]!.map((c) => c.value)
    const row = sheet!.rows.find((r) => r[columns.indexOf('mch_order_no')]?.value === order)!
    expect(row[columns.indexOf('refund_amount')]).toEqual({value: 1.25, type: 2, numFmt: '#,##0.00'})
    const refreshed = await world.run([
      'refund',
      'list',
      '--since',
      'today',
      '--refresh',
      '--state',
      'refunded',
      '--json',
    ])
    expect(refreshed.json<{refunds: {mch_order_no: string}[]}>().refunds.map((r) => r.mch_order_no)).toContain(order)
    const csv = join(world.configDir, 'today.csv')
    await world.run(['refund', 'list', '--since', 'today', '--out', csv])
    // Named as every --json names them: the time made_at, the order by both numbers, refund_fee beside refund_amount.
    expect(readFileSync(csv, 'utf8')).toMatch(
      /^\ufeffmade_at,mch_refund_no,mch_order_no,gw_order_no,channel,refund_fee,refund_amount,fee_type,/,
    )
    const json = await world.run(['refund', 'list', '--since', 'today', '--json'])
    expect(json.json<{refunds: unknown[]}>().refunds).toContainEqual(
      expect.objectContaining({
        mch_order_no: order,
        gw_order_no: expect.stringMatching(/^900\d+$/),
        refund_fee: 125,
        refund_amount: '1.25',
        made_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
      }),
    )
    const other = world.environmentProfile({GW_APPID: 'mch99999'})
    expect((await world.run(['refund', 'list'], {env: other})).stdout).toContain(
      'No refunds made on this machine for mch99999',
    )
  })
})

describe.skipIf(!HAS_TMUX && !process.env.CI)('the QR code on a terminal', () => {
  it('is drawn so a reader reads it without inversion, for the theme said or reported, with a quiet zone of 4', async () => {
    for (const [args, env, theme] of [
      [['--qr-style', 'light-on-dark'], {}, 'light-on-dark'],
      [[], {COLORFGBG: '15;0'}, 'light-on-dark'],
      [[], {}, 'dark-on-light'],
    ] as const) {
      const terminal = new Terminal(
        ['order', 'create', '--channel', 'wechat', '--amount', '1', '--fee-type', 'THB', ...args],
        {GW_CONFIG_DIR: world.configDir, ...env},
      )
      try {
        const screen = await terminal.waitFor(/EXIT=\d+/)
        const codeUrl = /code_url: +(\S+)/.exec(screen)![1]!
        // What a reader sees on the screen reads as the order's URL; the drawing is the one the unit test measures.
        expect(readDrawnQr(screen.slice(0, screen.indexOf('EXIT=')), theme).text).toBe(codeUrl)
        const lines = screen.split('\n').map((line) => line.trimEnd())
        for (const line of drawQr(codeUrl, theme).split('\n')) expect(lines).toContain(line.trimEnd())
      } finally {
        terminal.close()
      }
    }
  })
})

describe('practice data', () => {
  it('sandbox seed makes orders across channels and currencies, and files on which reconcile finds exactly what was planted', async () => {
    const dir = tempDir('gw-seed-')
    const seeded = await world.run(['sandbox', 'seed', '--orders', '24', '--out-dir', dir, '--json'])
    expect(seeded.code, seeded.stderr).toBe(0)
    const result = seeded.json<{orders: number; paid: number; planted: {line: number; difference: string}[]}>()
    expect(result).toMatchObject({orders: 24, paid: 18})
    const reconciled = await world.run(['reconcile', join(dir, 'orders-export.csv'), '--json'])
    expect(reconciled.code).toBe(1)
    const flagged = reconciled
      .json<{results: {line: number; classification: string}[]}>()
      .results.filter((r) => r.classification !== 'match')
    expect(flagged.map((r) => [r.line, r.classification])).toEqual(
      result.planted.map((p) => [p.line, p.difference.split(' ')[0]]),
    )
    const currencies = new Set(readFileSync(join(dir, 'orders-export.csv'), 'utf8').match(/,(THB|MYR|JPY|AED),/g))
    expect(currencies.size).toBe(4)
    const plan = await world.run(['refund', 'create', '--from-csv', join(dir, 'refunds.csv'), '--dry-run'])
    expect(plan.code, plan.stderr).toBe(0)
    expect((await world.run(['order', 'list', '--since', '10m'])).stdout).toContain('SEED-')
  })

  it('sandbox seed refuses a live profile and a gateway that is not the sandbox, before making anything', async () => {
    const base = world.environmentProfile()
    const nowhere = await world.run(['sandbox', 'seed'], {env: {...base, GW_BASE_URL: 'http://127.0.0.1:9/Gateway'}})
    expect(nowhere.code).toBe(3)
    expect(nowhere.stderr).toContain('cannot reach the sandbox')
    // A gateway (here one that answers 401 to everything) is not the sandbox: asked its health, then left alone.
    const gateway = await startReceiver(() => ({status: 401, body: '{"error":"unauthorized"}'}))
    try {
      for (const args of [
        ['sandbox', 'seed'],
        ['sandbox', 'pay', 'INV-1'],
        ['sandbox', 'notify', 'INV-1'],
      ]) {
        const refused = await world.run(args, {env: {...base, GW_BASE_URL: gateway.url}})
        expect(refused.code, args.join(' ')).toBe(2)
        expect(refused.stderr).toContain('is not gw sandbox')
        expect(refused.stderr).toContain('nothing was sent')
      }
      expect(gateway.received).toHaveLength(3)
      expect(gateway.received.every((r) => r.body === '')).toBe(true)
    } finally {
      await gateway.close()
    }
    // One that sends the health check on to the real sandbox is not the sandbox either.
    const {createServer} = await import('node:http')
    const asked: string[] = []
    const redirecting = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`)
      res.writeHead(302, {location: `${world.sandbox.info.origin}/sandbox/health`}).end()
    })
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = redirecting.address() as {port: number}
      const env = {...base, GW_BASE_URL: `http://127.0.0.1:${port}/Gateway`}
      const refused = await world.run(['sandbox', 'seed', '--orders', '2'], {env})
      expect(refused.code, refused.stderr).toBe(2)
      expect(refused.stderr).toContain('is not gw sandbox')
      expect(asked).toEqual(['GET /sandbox/health'])
    } finally {
      redirecting.closeAllConnections()
      await new Promise((resolve) => redirecting.close(resolve))
    }
    await world.run(world.profileAdd('real', '--live'))
    const before = (await world.requests()).native_pay ?? 0
    const live = await world.run(['sandbox', 'seed', '--profile', 'real'])
    expect(live.code).toBe(2)
    expect(live.stderr).toContain('Profile "real" is live: seeding is for the sandbox only.')
    expect((await world.requests()).native_pay ?? 0).toBe(before)
  })
})

describe('flags checked before any work', () => {
  it('a bad share, out-dir, --out, time or range is exit 2 naming the flag, and nothing is asked of the gateway', async () => {
    const before = await world.requests()
    const cases: [string[], string][] = [
      [['sandbox', 'seed', '--paid', '2'], '--paid: 2 is not a share from 0 to 1.'],
      [['sandbox', 'seed', '--out-dir', '/dev/null'], '--out-dir: /dev/null exists but is not a directory.'],
      [['order', 'list', '--refresh', '--out', '/dev/null'], 'gw writes .xlsx workbooks and CSV files.'],
      [['order', 'list', '--refresh', '--out', 'orders.txt'], 'not .txt'],
      [
        ['refund', 'list', '--refresh', '--since', '2026-02-30'],
        '--since 2026-02-30 is not a time gw reads: there is no such day: February 2026 has 28 days.',
      ],
      [['order', 'list', '--refresh', '--since', '1d', '--until', '2d'], '--since 1d is not before --until 2d'],
      [['order', 'query', 'X', '--timeout', '99999'], '--timeout: "99999" is over 5m, the most it takes.'],
      [
        ['refund', 'create', 'X', '--amount', '5.555'],
        '--amount "5.555" has more decimal places than any currency gw knows (THB 2, MYR 2, JPY 0, AED 2). Nothing was sent.',
      ],
      [['refund', 'create', 'X', '--amount', 'lots'], '--amount: '],
      [['order', 'query', 'X', '--timeout', '10m'], '--timeout: "10m" is over 5m, the most it takes.'],
      [['order', 'query', 'X', '--timeout', 'soon'], '--timeout: "soon" is not a length of time: give seconds (60)'],
    ]
    for (const [args, said] of cases) {
      const result = await world.run(args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toContain(said)
      expect(result.stderr).not.toContain('\\t')
    }
    expect(await world.requests()).toEqual(before)
  })

  it('--timeout takes a length of time as --since does: 60s, 1m, or seconds', async () => {
    for (const timeout of ['60s', '1m', '60']) {
      const doctor = await world.run(['doctor', '--timeout', timeout])
      expect(doctor.code, `${timeout}: ${doctor.stderr}`).toBe(0)
    }
  })
})

describe('seeing the wire', () => {
  it('--verbose shows each attempt: URL, parameters, the signed string, the signature, status, time, raw answer; --json unchanged', async () => {
    const [order] = await world.paidOrders(1, 10_000, 'WIRE')
    const quiet = await world.run(['order', 'query', order!, '--json'])
    const loud = await world.run(['order', 'query', order!, '--json', '--verbose'])
    expect(loud.code).toBe(0)
    // The same document (the gateway's nonce aside).
    const record = (result: typeof quiet) => ({...result.json<{record: object}>().record, nonce_str: 'x'})
    expect(record(loud)).toEqual(record(quiet))
    expect(loud.stderr).toContain(`› order_query attempt 1: POST ${world.sandbox.info.base_url}/order_query`)
    expect(loud.stderr).toMatch(
      new RegExp(
        `signed string: appid=${world.sandbox.info.merchants[0]!.appid}channel=wechatmch_order_no=${order}nonce_str=\\w+time_stamp=\\d{14}`,
      ),
    )
    expect(loud.stderr).toMatch(/sign: [0-9a-f]{12}…[0-9a-f]{8} \(256 bytes\)/)
    expect(loud.stderr).toMatch(/‹ order_query attempt 1: HTTP 200 in \d+ ms\n {2}\{"code":0/)
    expect(loud.stderr).not.toContain('PRIVATE KEY')
    await world.faults('http-500=1@order_query')
    try {
      const failing = await world.run(['order', 'query', order!, '--verbose'])
      expect(failing.code).toBe(3)
      for (const attempt of [1, 2, 3, 4])
        expect(failing.stderr).toMatch(new RegExp(`‹ order_query attempt ${attempt}: HTTP 500 in \\d+ ms`))
    } finally {
      await world.faults('')
    }
    const doctor = await world.run(['doctor', '--verbose'])
    expect(doctor.stderr).toContain('› order_query attempt 1: POST')
  })
})

describe('which build, and whether a newer one is out', () => {
  const {id} = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'build.json'), 'utf8')) as {id: string}

  it('gw version names the build; --check asks the address once and says whether it names a newer one', async () => {
    const shown = await world.run(['version'], {process: true})
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(
      new RegExp(
        `^gw ${id.replace(/[.+]/g, '\\$&')}: version \\d+\\.\\d+\\.\\d+, built from commit [0-9a-f]{7} of \\d{4}-\\d{2}-\\d{2}`,
      ),
    )
    const answers = [JSON.stringify({id: '99.0.0+20991231.abcdef0'}), JSON.stringify({id}), 'not json']
    const published = await startReceiver((n) => ({status: 200, body: answers[n]!}))
    try {
      const newer = await world.run(['version', '--check', published.url], {process: true})
      expect(newer.code, newer.stderr).toBe(0)
      expect(newer.stdout).toContain(
        'A newer build is out: 99.0.0+20991231.abcdef0 (commit abcdef0 of 2099-12-31). Get it where you got gw, and check it against its SHA256SUMS.',
      )
      const same = await world.run(['version', '--check', published.url, '--json'], {process: true})
      expect(same.json()).toMatchObject({build: {id}, newest: {id}, newer: false})
      const junk = await world.run(['version', '--check', published.url], {process: true})
      expect(junk.code).toBe(3)
      expect(junk.stderr).toContain(`${published.url} did not say which build is the newest: its answer is not JSON.`)
      expect(published.received).toHaveLength(3)
    } finally {
      await published.close()
    }
    const down = await world.run(['version', '--check', 'http://127.0.0.1:9/build.json'], {process: true})
    expect(down.code).toBe(3)
    expect(down.stderr).toContain('http://127.0.0.1:9/build.json could not be asked (ECONNREFUSED).')
  })
})

describe('shell completion', () => {
  it('bash completes commands, flag values, the stored profile names and the guides, asking gw itself', async () => {
    const shims = tempDir('gw-shim-')
    const {writeFileSync, chmodSync} = await import('node:fs')
    writeFileSync(join(shims, 'gw'), `#!/bin/sh\nexec ${gwShellLine([])} "$@"\n`)
    chmodSync(join(shims, 'gw'), 0o755)
    const script = (await world.run(['completion', 'bash'])).stdout
    const {spawnSync} = await import('node:child_process')
    const complete = (...words: string[]) => {
      const line = `COMP_WORDS=(gw ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _gw_complete; printf '%s\\n' "\${COMPREPLY[@]}"`
      const run = spawnSync('bash', ['-c', `${script}\n${line}`], {
        encoding: 'utf8',
        env: {...process.env, PATH: `${shims}:${process.env.PATH}`, GW_CONFIG_DIR: world.configDir},
      })
      return run.stdout.trim().split('\n').filter(Boolean)
    }
    expect(complete('ref')).toEqual(['refund'])
    expect(complete('refund', 'l')).toEqual(['list'])
    expect(complete('order', 'create', '--fee-type', 'J')).toEqual(['JPY'])
    expect(complete('order', 'list', '--state', 'SU')).toEqual(['SUCCESS'])
    expect(complete('order', 'query', '--profile', 's')).toEqual(['sandbox'])
    expect(complete('help', 'fi')).toEqual(['finance'])
    expect(complete('help', 's')).toEqual(['sandbox', 'security', 'signature', 'support'])
  })

  it('fish completes from gw itself too; PowerShell gets its script; a shell gw has none for is named, exit 2', async () => {
    const shims = tempDir('gw-shim-')
    const {writeFileSync, chmodSync} = await import('node:fs')
    writeFileSync(join(shims, 'gw'), `#!/bin/sh\nexec ${gwShellLine([])} "$@"\n`)
    chmodSync(join(shims, 'gw'), 0o755)
    const script = (await world.run(['completion', 'fish'])).stdout
    const {spawnSync} = await import('node:child_process')
    const complete = (line: string) =>
      spawnSync('fish', ['--no-config', '-c', `${script}\ncomplete -C '${line}'`], {
        encoding: 'utf8',
        env: {...process.env, PATH: `${shims}:${process.env.PATH}`, GW_CONFIG_DIR: world.configDir},
      }).stdout.trim()
    expect(complete('gw ref')).toBe('refund')
    expect(complete('gw order list --state SU')).toBe('SUCCESS')
    expect(complete('gw order query --profile s')).toBe('sandbox')
    const powershell = await world.run(['completion', 'PowerShell'])
    expect(powershell.code).toBe(0)
    expect(powershell.stdout).toContain("Register-ArgumentCompleter -Native -CommandName 'gw', 'gw.exe'")
    const tcsh = await world.run(['completion', 'tcsh'])
    expect(tcsh.code).toBe(2)
    expect(tcsh.stdout).toBe('')
    expect(tcsh.stderr).toContain(
      'Error: gw has no completion for tcsh: it writes one for bash, zsh, fish, powershell.',
    )
  })
})

describe('forgiving input', () => {
  it('a mistyped command is said as typed, with the closest command and its arguments, exit 2', async () => {
    const typo = await world.run(['ordr', 'query', 'INV-1'], {process: true})
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('Error: "ordr query INV-1" is not a gw command.')
    expect(typo.stderr).toContain('Did you mean: gw order query INV-1')
    expect(typo.stderr).not.toContain('ordr:query')
    const sub = await world.run(['sandbox', 'strat'], {process: true})
    expect(sub.stderr).toContain('Did you mean: gw sandbox start')
    const unknown = await world.run(['launch', 'rockets'], {process: true})
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('See the commands with: gw help')
    const version = await world.run(['--verison'], {process: true})
    expect(version.code).toBe(2)
    expect(version.stderr).toContain('Did you mean: gw --version')
    const folder = await world.run(['signature', 'verify', world.configDir])
    expect(folder.code).toBe(2)
    expect(folder.stderr).toContain(`${world.configDir} is a folder, not a file.`)
  })

  it('words a command does not take are said so, with a command that takes them, never the input again', async () => {
    const list = await world.run(['refund', 'list', 'INV-1001'], {process: true})
    expect(list.code).toBe(2)
    expect(list.stderr).toContain(
      'Error: gw refund list takes no arguments ("INV-1001" was given).\nDid you mean: gw refund query INV-1001\n',
    )
    expect(list.stderr).not.toContain('Did you mean: gw refund list')
    const get = await world.run(['order', 'get', 'INV-1001'], {process: true})
    expect(get.code).toBe(2)
    expect(get.stderr).toContain('Did you mean: gw order query INV-1001\n')
    // A near verb that closes the order is never offered for one that lists.
    const orders = await world.run(['order', 'list', 'INV-1001'], {process: true})
    expect(orders.stderr).toContain('Did you mean: gw order query INV-1001\n')
    const profiles = await world.run(['profile', 'list', 'shop'], {process: true})
    expect(profiles.code).toBe(2)
    expect(profiles.stderr).toContain('Error: gw profile list takes no arguments ("shop" was given).')
    expect(profiles.stderr).toContain('See what it takes: gw profile list --help')
  })

  it('--from-file is pointed to --from-csv, which --file also names; nothing sent', async () => {
    const before = await world.requests()
    const guessed = await world.run(['refund', 'create', '--from-file', 'refunds.xlsx'])
    expect(guessed.code).toBe(2)
    expect(guessed.stderr).toContain('Nonexistent flag: --from-file')
    expect(guessed.stderr).toContain('Did you mean --from-csv?')
    expect(await world.requests()).toEqual(before)
    const csv = world.file('file-alias.csv', 'mch_order_no,refund_amount\nINV-1001,1.00\nINV-1001,x\n')
    const named = await world.run(['refund', 'create', '--from-csv', csv, '--dry-run'])
    const alias = await world.run(['refund', 'create', '--file', csv, '--dry-run'])
    expect(named.stderr).toContain('line 3')
    expect([alias.code, alias.stdout, alias.stderr]).toEqual([named.code, named.stdout, named.stderr])
  })

  it('a mistyped flag gets "did you mean", exit 2, nothing sent', async () => {
    const before = (await world.requests()).native_pay ?? 0
    const result = await world.run(['order', 'create', '--channel', 'wechat', '--amout', '5', '--fee-type', 'THB'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Nonexistent flag: --amout')
    expect(result.stderr).toContain('Did you mean --amount?')
    expect((await world.requests()).native_pay ?? 0).toBe(before)
  })

  it('choices are taken in any case: --channel WeChat, --fee-type thb, --channel=ALIPAY', async () => {
    const created = await world.run([
      'order',
      'create',
      '--channel',
      'WeChat',
      '--fee-type',
      'thb',
      '--amount',
      '1',
      '--no-qr',
      '--json',
    ])
    expect(created.code, created.stderr).toBe(0)
    expect(created.json()).toMatchObject({channel: 'wechat', fee_type: 'THB'})
    const other = await world.run([
      'order',
      'create',
      '--channel=ALIPAY',
      '--fee-type=Thb',
      '--amount',
      '1',
      '--no-qr',
      '--json',
    ])
    expect(other.json()).toMatchObject({channel: 'alipay', fee_type: 'THB'})
    const wrong = await world.run(['order', 'create', '--channel', 'paypal', '--amount', '1'])
    expect(wrong.code).toBe(2)
  })
})

describe('plain messages', () => {
  it('HTTPS against a plain-HTTP gateway says so, once, without OpenSSL internals', async () => {
    const merchant = world.sandbox.info.merchants[0]!
    const https = world.sandbox.info.base_url.replace('http:', 'https:')
    const keys = [
      '--private-key',
      merchant.private_key_file,
      '--gateway-public-key',
      world.sandbox.info.gateway_public_key_file,
    ]
    expect(
      (await world.run(['profile', 'add', 'tls', '--appid', merchant.appid, '--base-url', https, ...keys])).code,
    ).toBe(0)
    const result = await world.run(['order', 'query', 'ANY-1', '--profile', 'tls'])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('does not speak HTTPS; the base URL may need http:// instead of https://')
    expect(result.stderr).not.toMatch(/ssl3_|openssl|attempts/i)
  })

  it('refund query: never paid, paid in full, refunded elsewhere (needs a number), a number it does not know', async () => {
    const wire = world.sandbox.wire()
    const create = (mch: string) =>
      wire.call('native_pay', {channel: 'wechat', mch_order_no: mch, total_fee: 10_000, fee_type: 'THB'})
    await create('RQ-UNPAID')
    const unpaid = await world.run(['refund', 'query', 'RQ-UNPAID', '--channel', 'wechat'])
    expect(unpaid.code).toBe(0)
    expect(unpaid.stdout).toContain('Order RQ-UNPAID has no refunds: it was never paid (NOTPAY).')
    const [paid, elsewhere] = await world.paidOrders(2, 10_000, 'RQ')
    const inFull = await world.run(['refund', 'query', paid!, '--json'])
    expect(inFull.json()).toMatchObject({refund: null, mch_refund_no: null})
    const refund = {
      mch_order_no: elsewhere,
      total_fee: 10_000,
      fee_type: 'THB',
      mch_refund_no: 'DASH-1',
      refund_fee: 2500,
    }
    expect((await wire.call('order_refund', refund)).data.result).toBe('SUCCESS')
    const needs = await world.run(['refund', 'query', elsewhere!, '--channel', 'wechat'])
    expect(needs.code).toBe(2)
    expect(needs.stderr).toContain('made elsewhere')
    expect(needs.stderr).toContain(`gw refund query ${elsewhere} --mch-refund-no R`)
    const wrong = await world.run(['refund', 'query', elsewhere!, '--channel', 'wechat', '--mch-refund-no', 'NOPE-1'])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain(
      `No refund NOPE-1 on order ${elsewhere}: the gateway knows the order, not this refund number.`,
    )
    expect(wrong.stderr).not.toContain('no such order')
    const right = await world.run(['refund', 'query', elsewhere!, '--channel', 'wechat', '--mch-refund-no', 'DASH-1'])
    expect(right.code).toBe(0)
    expect(right.stdout).toMatch(new RegExp(`DASH-1 .*25\\.00 THB.*SUCCESS.*${TIME.source}`))
  })

  it('times are ISO 8601 with their offset, in text and JSON', async () => {
    const created = await world.run([
      'order',
      'create',
      '--channel',
      'wechat',
      '--amount',
      '1',
      '--fee-type',
      'THB',
      '--no-qr',
    ])
    expect(created.stdout).toMatch(new RegExp(`QR expires: +${TIME.source}`))
    const mch = /order: +(\S+)/.exec(created.stdout)![1]!
    await world.pay(mch)
    expect((await world.run(['order', 'query', mch])).stdout).toMatch(new RegExp(`paid at: +${TIME.source}`))
    const refunded = await world.run(['refund', 'create', mch, '--amount', '0.50', '--json'])
    expect(refunded.json<{refund_time: string}>().refund_time).toMatch(ONE_FORM)
  })
})
