import type {ChildProcess} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {expect} from 'vitest'

import {type CliOptions, type CliResult, asPrinted, gw, spawnGw} from './cli.js'
import {parsePrivateKey, sign} from '../../src/lib/gateway/signing.js'
import type {NotificationAttempt} from '../../src/sandbox/ledger.js'
import {INSTALLED} from './gw-under-test.js'
import {runInProcess} from './in-process.js'
import {paymentNotification} from './notification.js'
import {type TestSandbox, startTestSandbox} from './sandbox.js'
import {HANG_MS, removeDir, tempDir, untab} from './shared.js'

/** A sandbox server and a temporary GW_CONFIG_DIR whose default profile points at it. */
export interface GwWorld {
  sandbox: TestSandbox
  configDir: string
  /** Whether `run` starts a process: a built gw, which names its build (version+date.commit); from src/, the package's version. */
  spawned: boolean
  /** Every output seen, to check no key material ever appears. */
  outputs: string[]
  run(args: string[], options?: CliOptions): Promise<CliResult>
  /** A command gw printed, pasted into a shell as it is (cli.ts asPrinted), with this world's config. */
  asPrinted(line: string, options?: CliOptions): Promise<CliResult>
  spawn(args: string[], options?: CliOptions): ReturnType<typeof spawnGw>
  /** Starts `gw notify listen` on a free port; resolves with its URL once it listens. */
  listen(args?: string[]): Promise<ReturnType<typeof spawnGw> & {url: string}>
  /** `gw order create` of one THB order, no QR drawn, that must end 0 (its stderr said where not): its result. */
  createOrder(mchOrderNo: string, channel?: string, amount?: string): Promise<CliResult>
  /** An order made by gw here (in this machine's history) and paid by its payer at the sandbox: its number (orderNo). */
  createPaid(amount?: string, channel?: string): Promise<string>
  /** An order made by gw here that notifies `url` once paid (wechat, THB): its number. */
  orderNotifying(url: string, amount?: string): Promise<string>
  /** The same, paid by its payer at the sandbox: its number. */
  paidOrderNotifying(url: string, amount?: string): Promise<string>
  /** An order made by gw here, paid while `gw notify listen` runs, whose notification the listener verified: the listener's URL. */
  paidWhileListening(mchOrderNo: string, amount?: string): Promise<string>
  /** The sandbox's attempts to deliver an order's notification, oldest first. */
  notificationsOf(mchOrderNo: string): Promise<NotificationAttempt[]>
  /**
   * A payment notification for `mchOrderNo` of the sandbox's merchant, as the gateway sends it: signed with the
   * gateway's key, or (`forged`) with the merchant's own, which no listener may take for the gateway's.
   */
  notification(mchOrderNo: string, signer?: 'gateway' | 'forged'): string
  /** Creates and pays orders straight through the sandbox (no gw), of its first merchant or `appid`: their numbers. */
  paidOrders(count: number, totalFee: number, prefix: string, channel?: string, appid?: string): Promise<string[]>
  requests(): Promise<Record<string, number>>
  faults(spec: string): Promise<void>
  /** Does `act` with the sandbox's faults set to `spec`, and clears them after, however `act` ends: its result. */
  underFaults<T>(spec: string, act: () => Promise<T>): Promise<T>
  /**
   * Runs gw with `operation` answered 300 ms late and Ctrl-C (SIGINT) once the sandbox has seen
   * `count` of it from this run: its result (the sandbox's faults cleared after).
   */
  interrupted(args: string[], stopAt: {operation: string; count: number}, options?: CliOptions): Promise<CliResult>
  /**
   * Runs gw with `operation` answered 300 ms late, does `act` once the sandbox has seen `count`
   * of it from this run, and resolves with gw's result (the sandbox's faults cleared after).
   */
  during(
    args: string[],
    at: {operation: string; count: number},
    act: (child: ChildProcess) => void,
    options?: CliOptions,
  ): Promise<CliResult>
  ledger(
    mchOrderNo: string,
  ): Promise<
    {state: string; refunds: {mch_refund_no: string; refund_fee: number; state: string}[]; channel: string} | undefined
  >
  pay(mchOrderNo: string, fail?: boolean): Promise<void>
  /** `gw profile add NAME` of the sandbox's first merchant, then `extra`. */
  profileAdd(name: string, ...extra: string[]): string[]
  /** A profile from the environment alone, of the sandbox's first merchant, with `changes` over it. */
  environmentProfile(changes?: Record<string, string>): Record<string, string>
  /**
   * Another machine of the same merchant: a config dir of its own (its own history, `history` lines as an
   * earlier history.jsonl when given), the environment profile; removed at close.
   */
  machine(history?: string[]): {dir: string; env: Record<string, string>}
  /**
   * A history.jsonl line of an order of 10.00 THB of the sandbox's merchant, made at `minute(i)` (with a
   * `state` at that time when given).
   */
  orderLine(mchOrderNo: string, i: number, channel?: string, state?: string): string
  /**
   * A history.jsonl line of a refund gw recorded as intended and never saw settled (a run that died), of the
   * sandbox's merchant, on wechat in THB, now: with `changes` over it.
   */
  refundIntent(mchOrderNo: string, mchRefundNo: string, refundFee: number, changes?: Record<string, unknown>): string
  /** A file of this content in the world's folder (a CSV of refunds): its path. */
  file(name: string, content: string | Buffer): string
  /** A file of this content in the world's folder, its name made unique (N-name): its path. */
  numberedFile(name: string, content: string | Buffer): string
  /** A CSV of this content in the world's folder, named `name` or `refunds-N.csv`: its path. */
  csv(content: string | Buffer, name?: string): string
  /** `gw refund create --from-csv CSV --yes`, then `extra`, run with `options` (world.run). */
  bulk(csv: string, extra?: string[], options?: CliOptions): Promise<CliResult>
  /** The CSV report gw wrote for a bulk file (NAME.report.csv beside it), a record per line, as a script reads it (untab). */
  reportOf(csv: string): Record<string, string>[]
  /** The refunds the sandbox's ledger holds for an order (none for an order it does not know). */
  refundsOf(mchOrderNo: string): Promise<{mch_refund_no: string; refund_fee: number; state: string}[]>
  close(): Promise<void>
}

/**
 * `gw order create` of one order: its arguments. THB and no QR drawn unless `feeType` and `qr` say otherwise
 * (`qr`: the QR code as gw shows it by default); with no `mchOrderNo` gw makes the number.
 */
export const orderCreate = (
  mchOrderNo: string | undefined,
  channel = 'wechat',
  amount = '150.50',
  {feeType = 'THB', qr = false}: {feeType?: string; qr?: boolean} = {},
) => [
  'order',
  'create',
  '--channel',
  channel,
  '--amount',
  amount,
  '--fee-type',
  feeType,
  ...(mchOrderNo === undefined ? [] : ['--mch-order-no', mchOrderNo]),
  ...(qr ? [] : ['--no-qr']),
]

/** Minute `i` of 2026-01-01 (UTC), as gw writes times with TZ=UTC. */
export const minute = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()

let ordersNumbered = 0

/** A merchant order number no other order of this run has. */
export const orderNo = (prefix = 'C') => `${prefix}${process.pid}-${Date.now() % 1e8}-${++ordersNumbered}`

/** Whether gw runs in-process: in the command tier, unless the gw under test is an installed one. */
const IN_PROCESS = process.env.GW_TEST_TIER === 'commands' && !INSTALLED

/** Runs `gw ARGS...` as this tier does: in-process in the command tier, else (or when `options.process` says so) a process. */
export const runGw = (args: string[], options: CliOptions = {}): Promise<CliResult> =>
  (IN_PROCESS && !options.process ? runInProcess : gw)(args, options)

/**
 * A sandbox and a config dir for gw. `run` runs gw in-process in the command tier, and starts a
 * process in the end-to-end tier and in a test of an installed gw (GW_TEST_COMMAND), or when
 * `spawned` says so: `spawn`, `interrupted`, `listen` and `asPrinted` always start a process.
 */
export async function startWorld(
  options: Parameters<typeof startTestSandbox>[0] & {spawned?: boolean} = {},
): Promise<GwWorld> {
  const {spawned = !IN_PROCESS, ...sandboxOptions} = options
  const sandbox = await startTestSandbox(sandboxOptions)
  const configDir = tempDir('gw-config-')
  const outputs: string[] = []
  const machines: string[] = []
  let files = 0
  const merchant = sandbox.info.merchants[0]!
  const world: GwWorld = {
    sandbox,
    configDir,
    spawned,
    outputs,
    async run(args, runOptions = {}) {
      const runner = spawned ? gw : runGw
      const result = await runner(args, {...runOptions, env: {GW_CONFIG_DIR: configDir, ...runOptions.env}})
      outputs.push(result.stdout, result.stderr)
      return result
    },
    async asPrinted(line, runOptions = {}) {
      const result = await asPrinted(line, {...runOptions, env: {GW_CONFIG_DIR: configDir, ...runOptions.env}})
      outputs.push(result.stdout, result.stderr)
      return result
    },
    spawn(args, runOptions = {}) {
      return spawnGw(args, {...runOptions, env: {GW_CONFIG_DIR: configDir, ...runOptions.env}})
    },
    async listen(args = []) {
      const spawned = world.spawn(['notify', 'listen', '--port', '0', ...args])
      let stderr = ''
      const url = await new Promise<string>((resolve, reject) => {
        spawned.child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString()
          const match = /listening for notifications at (\S+)/.exec(stderr)
          if (match) resolve(match[1]!)
        })
        spawned.child.once('exit', () => reject(new Error(`listener exited: ${stderr}`)))
      })
      return {...spawned, url}
    },
    async createOrder(mchOrderNo, channel, amount) {
      const made = await world.run(orderCreate(mchOrderNo, channel, amount))
      expect(made.code, made.stderr).toBe(0)
      return made
    },
    async createPaid(amount = '150.50', channel = 'wechat') {
      const mch = orderNo()
      await world.createOrder(mch, channel, amount)
      await world.pay(mch)
      return mch
    },
    async orderNotifying(url, amount = '150.50') {
      const mch = orderNo('NTF-')
      const created = await world.run([...orderCreate(mch, 'wechat', amount), '--notify-url', url])
      expect(created.code, created.stderr).toBe(0)
      return mch
    },
    async paidOrderNotifying(url, amount) {
      const mch = await world.orderNotifying(url, amount)
      await world.pay(mch)
      return mch
    },
    async paidWhileListening(mchOrderNo, amount = '100.00') {
      const listener = await world.listen(['--exit-after', '1', '--timeout', '30'])
      const qr = ['--qr-out', join(configDir, `${mchOrderNo}.png`)]
      const made = [...orderCreate(mchOrderNo, 'wechat', amount, {qr: true}), '--notify-url', listener.url, ...qr]
      const created = await world.run(made)
      expect(created.code, created.stderr).toBe(0)
      await world.pay(mchOrderNo)
      const listened = await listener.result
      expect(listened.code, listened.stderr).toBe(0)
      return listener.url
    },
    notificationsOf: async (mchOrderNo) => (await sandbox.controls.notifications(mchOrderNo)).body.notifications,
    notification(mchOrderNo, signer = 'gateway') {
      const key =
        signer === 'gateway'
          ? sandbox.info.gateway_public_key_file.replace('public', 'private')
          : merchant.private_key_file
      const data = paymentNotification(mchOrderNo, {
        appid: merchant.appid,
        gw_order_no: `900${mchOrderNo}`,
        total_fee: 100,
        nonce_str: 'x',
      })
      const signature = sign(data, parsePrivateKey(readFileSync(key, 'utf8')), 'rsa-md5')
      return JSON.stringify({code: 0, msg: 'ok', version: '3.0.0', data, sign: signature})
    },
    async paidOrders(count, totalFee, prefix, channel = 'wechat', appid) {
      const wire = sandbox.wire(appid)
      const numbers = Array.from({length: count}, (_, i) => `${prefix}-${i + 1}`)
      for (let i = 0; i < numbers.length; i += 16) {
        await Promise.all(
          numbers.slice(i, i + 16).map(async (mch) => {
            const created = await wire.call('native_pay', {
              channel,
              mch_order_no: mch,
              total_fee: totalFee,
              fee_type: 'THB',
            })
            if (created.data.result !== 'SUCCESS') throw new Error(JSON.stringify(created.data))
            const paid = await sandbox.controls.pay(mch, {appid})
            if (paid.status !== 200) throw new Error(JSON.stringify(paid.body))
          }),
        )
      }
      return numbers
    },
    requests: () => sandbox.controls.requests(),
    faults: async (spec) => void (await sandbox.controls.faults(spec)),
    async underFaults(spec, act) {
      await world.faults(spec)
      try {
        return await act()
      } finally {
        await world.faults('')
      }
    },
    interrupted: (args, stopAt, runOptions) => world.during(args, stopAt, (child) => child.kill('SIGINT'), runOptions),
    during: (args, {operation, count}, act, runOptions) =>
      world.underFaults(`latency=300-300ms@${operation}`, async () => {
        const seen = async () => (await world.requests())[operation] ?? 0
        const before = await seen()
        const running = world.spawn(args, runOptions)
        const deadline = Date.now() + HANG_MS
        const alive = () => running.child.exitCode === null && running.child.signalCode === null
        while ((await seen()) - before < count && alive() && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 50))
        // A run that ended first is returned as it ended; one that never got that far is no interrupted run.
        if (alive() && (await seen()) - before < count) {
          running.child.kill('SIGKILL')
          await running.result
          throw new Error(`gw sent ${(await seen()) - before} ${operation} of the ${count} awaited`)
        }
        act(running.child)
        return await running.result
      }),
    async ledger(mchOrderNo) {
      return (await sandbox.controls.orders(mchOrderNo))[0]
    },
    profileAdd: (name, ...extra) => [
      'profile',
      'add',
      name,
      '--appid',
      merchant.appid,
      '--base-url',
      sandbox.info.base_url,
      '--private-key',
      merchant.private_key_file,
      '--gateway-public-key',
      sandbox.info.gateway_public_key_file,
      '--gateway-zone',
      sandbox.info.gateway_zone,
      ...extra,
    ],
    environmentProfile: (changes = {}) => ({
      GW_APPID: merchant.appid,
      GW_PRIVATE_KEY: merchant.private_key_file,
      GW_GATEWAY_PUBLIC_KEY: sandbox.info.gateway_public_key_file,
      GW_BASE_URL: sandbox.info.base_url,
      GW_GATEWAY_ZONE: sandbox.info.gateway_zone,
      ...changes,
    }),
    async pay(mchOrderNo, fail = false) {
      const answer = await sandbox.controls.pay(mchOrderNo, {fail})
      if (answer.status !== 200) throw new Error(JSON.stringify(answer.body))
    },
    machine(history) {
      const dir = tempDir('gw-machine-')
      machines.push(dir)
      if (history) writeFileSync(join(dir, 'history.jsonl'), `${history.join('\n')}\n`)
      return {dir, env: world.environmentProfile({GW_CONFIG_DIR: dir})}
    },
    orderLine: (mchOrderNo, i, channel = 'wechat', state) =>
      JSON.stringify({
        type: 'order',
        appid: merchant.appid,
        mch_order_no: mchOrderNo,
        channel,
        total_fee: 1000,
        fee_type: 'THB',
        at: minute(i),
        ...(state ? {state, state_at: minute(i)} : {}),
      }),
    refundIntent: (mchOrderNo, mchRefundNo, refundFee, changes = {}) =>
      JSON.stringify({
        type: 'refund',
        appid: merchant.appid,
        mch_order_no: mchOrderNo,
        channel: 'wechat',
        mch_refund_no: mchRefundNo,
        refund_fee: refundFee,
        fee_type: 'THB',
        status: 'intent',
        source: 'refund create',
        at: new Date().toISOString(),
        ...changes,
      }),
    file(name, content) {
      const path = join(configDir, name)
      writeFileSync(path, content)
      return path
    },
    numberedFile: (name, content) => world.file(`${++files}-${name}`, content),
    csv: (content, name = `refunds-${++files}.csv`) => world.file(name, content),
    bulk: (csv, extra = [], options) => world.run(['refund', 'create', '--from-csv', csv, '--yes', ...extra], options),
    reportOf: (csv) =>
      parse(readFileSync(csv.replace(/\.(csv|xlsx)$/, '.report.csv')), {
        columns: true,
        bom: true,
        cast: untab,
        relax_column_count: true,
      }) as Record<string, string>[],
    refundsOf: async (mchOrderNo) => (await world.ledger(mchOrderNo))?.refunds ?? [],
    /** Stops the sandbox and removes the folders; no output of any command run here carried key material. */
    async close() {
      const keyLine = readFileSync(merchant.private_key_file, 'utf8').split('\n')[1]!
      await sandbox.close()
      for (const dir of [configDir, sandbox.dataDir, ...machines]) removeDir(dir)
      for (const output of outputs) {
        expect(output).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/)
        expect(output).not.toContain(keyLine)
      }
    },
  }
  const added = await world.run(world.profileAdd('sandbox'))
  if (added.code !== 0) throw new Error(`profile add failed: ${added.stderr}`)
  return world
}

export const keyFile = (world: GwWorld) => world.sandbox.info.merchants[0]!.private_key_file
