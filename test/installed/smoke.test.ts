/**
 * The smoke cases of an installed gw on a system this machine runs only through a translator
 * (npm run test:installed): the linux-arm64 executable under qemu-user, the package on Windows'
 * Node and the Windows executable under wine. A sandbox, a profile, doctor, an order, a refund, a
 * small bulk refund with its report, the lists: each as a user runs them, in the system's own
 * folders (~/.config/gw, %APPDATA%\gw\Config: no GW_CONFIG_DIR) and with its own paths
 * (Z:\tmp\…\refunds.csv on Windows). gw's output goes to files: Windows' Node under wine cannot
 * write to a pipe.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {closeSync, existsSync, openSync, readFileSync, writeFileSync} from 'node:fs'
import {once} from 'node:events'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {GUIDES, guideText} from '../../src/lib/cli/guides.js'
import {SandboxControl} from '../../src/sandbox/control-client.js'
import {orderCreate} from '../helpers/gw-env.js'
import {gwEnvironment, gwUnderTest} from '../helpers/gw-under-test.js'
import {HANG_MS, removeDir, REPO_ROOT, tempDir} from '../helpers/shared.js'

const scratch = tempDir('gw-smoke-')
const build = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'build.json'), 'utf8')) as {id: string}
let runs = 0

/** gw started as a user starts it, from the scratch folder, with nothing of this machine's gw set-up. */
function start(
  args: string[],
  env: Record<string, string> = {},
): {child: ChildProcess; stdout: string; stderr: string} {
  const stdout = join(scratch, `${++runs}.out`)
  const stderr = join(scratch, `${runs}.err`)
  const [out, err] = [openSync(stdout, 'w'), openSync(stderr, 'w')]
  const [program, ...first] = gwUnderTest()
  const child = spawn(program!, [...first, ...args], {
    cwd: scratch,
    env: gwEnvironment({
      HOME: join(scratch, 'home'),
      XDG_CONFIG_HOME: undefined,
      XDG_DATA_HOME: undefined,
      XDG_CACHE_HOME: undefined,
      ...env,
    }),
    stdio: ['ignore', out, err],
  })
  closeSync(out)
  closeSync(err)
  return {child, stdout, stderr}
}

/** How a started gw ended, and what it wrote. */
async function ended(run: ReturnType<typeof start>): Promise<{code: number | null; stdout: string; stderr: string}> {
  const code = await new Promise<number | null>((resolve, reject) => {
    run.child.once('error', reject)
    run.child.once('exit', resolve)
  })
  return {code, stdout: readFileSync(run.stdout, 'utf8'), stderr: readFileSync(run.stderr, 'utf8')}
}

const gw = (...args: string[]) => ended(start(args))

let windows = false
/** A path of this machine as gw on the system under test names it: wine shows / as drive Z:. */
const theirs = (path: string) => (windows ? `Z:${path.replaceAll('/', '\\')}` : path)
/** A path gw named, on this machine. */
const ours = (path: string) => (windows ? path.replace(/^Z:/i, '').replaceAll('\\', '/') : path)

let sandbox: {
  child: ChildProcess
  info: {
    base_url: string
    origin: string
    gateway_public_key_file: string
    merchants: {appid: string; private_key_file: string}[]
    /** The zone it writes its time stamps in (this machine's): a profile of it says so, or doctor warns. */
    gateway_zone: string
  }
}
let controls: SandboxControl

beforeAll(async () => {
  const shown = await gw('--version')
  expect(shown.code, shown.stderr).toBe(0)
  windows = / win32-x64 /.test(shown.stdout)

  // The sandbox writes its address as one JSON document once it listens.
  const started = start(['sandbox', 'start', '--port', '0', '--json'])
  const deadline = Date.now() + HANG_MS
  for (;;) {
    try {
      sandbox = {child: started.child, info: JSON.parse(readFileSync(started.stdout, 'utf8'))}
      break
    } catch {
      if (started.child.exitCode !== null || Date.now() > deadline)
        throw new Error(`the sandbox did not start: ${readFileSync(started.stderr, 'utf8')}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  controls = new SandboxControl(sandbox.info.origin)
})

afterAll(async () => {
  // The sandbox ended first: a process still running writes its compile cache into the scratch home on its way out.
  const child = sandbox?.child
  if (child && child.exitCode === null && child.signalCode === null) {
    const ended = once(child, 'exit')
    child.kill()
    await ended
  }
  removeDir(scratch)
})

/** An order made with gw, then paid as its payer would (gw sandbox pay). */
async function paidOrder(mchOrderNo: string, amount: string) {
  const created = await gw(...orderCreate(mchOrderNo, 'wechat', amount))
  expect(created.code, created.stderr).toBe(0)
  expect(created.stdout).toMatch(new RegExp(`order: +${mchOrderNo}`))
  const paid = await gw('sandbox', 'pay', mchOrderNo)
  expect(paid.code, paid.stderr).toBe(0)
  expect(paid.stdout).toContain(`${mchOrderNo}: paid`)
}

describe('an installed gw, as its user meets it', () => {
  it('names its build (version, commit date, commit), its system and the Node inside', async () => {
    const shown = await gw('--version')
    expect(shown.stdout).toMatch(
      new RegExp(`^gw/${build.id.replace(/[.+]/g, '\\$&')} (linux|win32|darwin)-\\w+ node-v2\\d\\.`),
    )
  })

  it('prints a guide it ships, offline (gw help finance), and lists them all (gw help)', async () => {
    // One guide here, where a run under emulation takes seconds; every guide in the executables' case.
    const shown = await gw('help', 'finance')
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout.replaceAll('\r\n', '\n')).toBe(`${guideText(REPO_ROOT, 'finance').trimEnd()}\n`)
    const listed = (await gw('help')).stdout
    for (const guide of Object.keys(GUIDES)) expect(listed).toMatch(new RegExp(`^  ${guide} `, 'm'))
  })

  it('sandbox start made the default profile in the system folder, doctor passes every check', async () => {
    const listed = await gw('profile', 'list')
    expect(listed.code, listed.stderr).toBe(0)
    // Piped: a tab-separated line per profile, the default marked.
    expect(listed.stdout).toMatch(/^\*\tsandbox\tmch\d+\thttp:\/\/127\.0\.0\.1:\d+\/Gateway\ttest$/m)
    const history = await gw('history')
    expect(history.code, history.stderr).toBe(0)
    expect(history.stdout.split('\n')[0]).toMatch(
      windows
        ? /^C:\\users\\[^\\]+\\AppData\\Roaming\\gw\\Config\\history\.db /
        : new RegExp(`^${join(scratch, 'home', '.config', 'gw', 'history.db')} `),
    )
    // The sandbox's keys and ledger where docs/install.md says: %LOCALAPPDATA%\gw\Data\sandbox on Windows.
    expect(sandbox.info.gateway_public_key_file).toMatch(
      windows
        ? /^C:\\users\\[^\\]+\\AppData\\Local\\gw\\Data\\sandbox\\/
        : new RegExp(`^${join(scratch, 'home', '.local', 'share', 'gw', 'sandbox')}/`),
    )
    const doctor = await gw('doctor')
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0)
    // Every check passed, none with a warning: the store is private (0600 here, its access list on Windows).
    expect(doctor.stdout).not.toMatch(/^!/m)
    expect(doctor.stdout).toContain('All checks passed.')
  })

  it('adds a profile from the key files the sandbox wrote, with no warning about them', async () => {
    const [merchant] = sandbox.info.merchants
    const added = await gw(
      'profile',
      'add',
      'shop',
      '--appid',
      merchant!.appid,
      '--base-url',
      sandbox.info.base_url,
      '--private-key',
      merchant!.private_key_file,
      '--gateway-public-key',
      sandbox.info.gateway_public_key_file,
      '--gateway-zone',
      sandbox.info.gateway_zone,
    )
    expect(added.code, added.stderr).toBe(0)
    expect(added.stderr).toBe('')
    const doctor = await gw('doctor', '--profile', 'shop')
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0)
    expect(doctor.stdout).not.toMatch(/^!/m)
  })

  it('creates an order, refunds part of it, and shows it with its refund', async () => {
    await paidOrder('SMOKE-1', '25.00')
    const refunded = await gw('refund', 'create', 'SMOKE-1', '--amount', '5.00', '--yes')
    expect(refunded.code, refunded.stderr).toBe(0)
    const [order] = await controls.orders('SMOKE-1')
    expect(order!.refunds.map((refund) => [refund.refund_fee, refund.state])).toEqual([[500, 'SUCCESS']])
    const queried = await gw('order', 'query', 'SMOKE-1')
    expect(queried.code, queried.stderr).toBe(0)
    expect(queried.stdout).toMatch(/state: +REFUND: paid, and at least one refund succeeded/)
  })

  it('runs a bulk refund from a CSV named by its path, and writes the report beside it', async () => {
    await paidOrder('SMOKE-2', '30.00')
    await paidOrder('SMOKE-3', '40.00')
    const csv = join(scratch, 'refunds.csv')
    writeFileSync(csv, 'mch_order_no,refund_amount\nSMOKE-2,30.00\nSMOKE-3,10.00\n')
    const bulk = await gw('refund', 'create', '--from-csv', theirs(csv), '--yes')
    expect(bulk.code, bulk.stderr).toBe(0)
    const report = /report: (.+)/.exec(bulk.stdout)?.[1]
    expect(report).toBe(theirs(join(scratch, 'refunds.report.csv')))
    expect(existsSync(ours(report!))).toBe(true)
    expect(readFileSync(ours(report!), 'utf8')).toMatch(/SMOKE-2,.*refunded[\s\S]*SMOKE-3,.*refunded/)
    const refunded = await Promise.all(['SMOKE-2', 'SMOKE-3'].map((order) => controls.orders(order)))
    expect(refunded.map(([order]) => order!.refunds.map((refund) => refund.refund_fee))).toEqual([[3000], [1000]])
  })

  it('lists the orders and refunds made here', async () => {
    const orders = await gw('order', 'list')
    expect(orders.code, orders.stderr).toBe(0)
    // Piped: one line per order, newest first, and nothing else.
    expect(orders.stdout.split('\n').map((line) => line.split('\t')[1])).toEqual([
      'SMOKE-3',
      'SMOKE-2',
      'SMOKE-1',
      undefined,
    ])
    const refunds = await gw('refund', 'list', '--json')
    expect(refunds.code, refunds.stderr).toBe(0)
    expect(refunds.stdout).toMatch(/refunds\.csv/)
  })

  // Node gives a closed console on Windows as SIGHUP; wine has no console to close, so a module
  // preloaded in gw (NODE_OPTIONS) emits it as Node does. Run where gw is Node with its options
  // (the package): an executable takes no --import.
  it.runIf(process.env.GW_TEST_PRELOADS === '1')(
    'a closed console (SIGHUP) ends a listener as a hang-up does: 129, no stack trace',
    async () => {
      const hangUp = join(scratch, 'hang-up.mjs')
      writeFileSync(hangUp, "setTimeout(() => process.emit('SIGHUP', 'SIGHUP'), 3000)\n")
      const url = windows ? `file:///${theirs(hangUp).replaceAll('\\', '/')}` : `file://${hangUp}`
      const listener = await ended(start(['notify', 'listen', '--port', '0'], {NODE_OPTIONS: `--import=${url}`}))
      expect(listener.stderr).toMatch(/listening for notifications at http:\/\/127\.0\.0\.1:\d+/)
      expect(listener.code, listener.stderr).toBe(129)
      expect(listener.stderr).not.toMatch(/ENOSYS|\n +at /)
    },
  )
})
