/**
 * A journey across commands: the mistakes a newcomer makes (a mistyped command or flag, a bad value),
 * each said with what is allowed, exit 2, nothing sent.
 */
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type GwWorld, startWorld} from '../helpers/gw-env.js'

let world: GwWorld

beforeAll(async () => {
  world = await startWorld()
})

afterAll(() => world.close())

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
})

describe('exit codes', () => {
  it('2 for an unknown flag, a missing profile and a missing amount', async () => {
    expect((await world.run(['order', 'query', 'X', '--bogus'])).code).toBe(2)
    const noProfile = await world.run(['order', 'query', 'X'], {env: {GW_CONFIG_DIR: join(world.configDir, 'empty')}})
    expect(noProfile.code).toBe(2)
    expect(noProfile.stderr).toContain('No profile is set up')
    expect((await world.run(['refund', 'create', 'X'])).code).toBe(2)
  })
})

describe('errors a newcomer meets', () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    [
      'no profile yet',
      ['order', 'query', 'X'],
      {GW_CONFIG_DIR: '/nonexistent/gw-config'},
      /No profile is set up\.\nStart the sandbox/,
    ],
    [
      'a key file that is not there',
      ['order', 'query', 'X'],
      {
        GW_APPID: 'mch1',
        GW_PRIVATE_KEY: '/no/such.pem',
        GW_GATEWAY_PUBLIC_KEY: '/no/such.pem',
        GW_BASE_URL: 'http://127.0.0.1:9/Gateway',
      },
      /GW_PRIVATE_KEY: there is no file "\/no\/such\.pem"/,
    ],
    [
      'a typo in a channel',
      ['order', 'query', 'X', '--channel', 'wechatt'],
      {},
      /Expected --channel=wechatt to be one of: wechat/,
    ],
    [
      'a saved body that is not there',
      ['signature', 'verify', '/no/such.json', '--public-key', '/no/such.pem'],
      {},
      /There is no file \/no\/such\.json/,
    ],
    ['a CSV that is not there', ['reconcile', '/no/such.csv'], {}, /The file \/no\/such\.csv does not exist/],
  ]

  for (const [name, args, env, message] of cases) {
    it(`${name}: one or two sentences, exit 2, no stack trace`, async () => {
      const result = await world.run(args, {env})
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(message)
      expect(result.stderr).not.toMatch(/^\s+at /m)
      expect(result.stderr.trim().split('\n').length, result.stderr).toBeLessThanOrEqual(3)
    })
  }
})

describe('the smaller ones', () => {
  it('a mistyped command, gw --json and gw help --json each write one JSON document', async () => {
    const typo = await world.run(['order', 'creat', '--json'], {process: true})
    expect(typo.code).toBe(2)
    expect(typo.json()).toEqual({
      error: expect.objectContaining({kind: 'usage', exit_code: 2, advice: 'Did you mean: gw order create --json'}),
    })
    const bare = await world.run(['--json'], {process: true})
    expect(bare.code).toBe(2)
    expect(bare.json()).toMatchObject({error: {kind: 'usage'}})
    const help = await world.run(['help', 'refund', '--json'], {process: true})
    expect(help.code).toBe(0)
    expect(help.json<{commands: {command: string}[]}>().commands.map((c) => c.command)).toEqual([
      'refund create',
      'refund list',
      'refund query',
    ])
  })
})

describe('words a command does not take', () => {
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
})
