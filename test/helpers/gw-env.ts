import type {ChildProcess} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {expect} from 'vitest'

import {type CliOptions, type CliResult, asPrinted, gw, spawnGw} from './cli.js'
import {INSTALLED} from './gw-under-test.js'
import {runInProcess} from './in-process.js'
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
  /** `gw order create` of one THB order, no QR drawn. */
  createOrder(mchOrderNo: string, channel?: string, amount?: string): Promise<CliResult>
  /** Creates and pays orders straight through the sandbox (no gw): their numbers. */
  paidOrders(count: number, totalFee: number, prefix: string, channel?: string): Promise<string[]>
  requests(): Promise<Record<string, number>>
  faults(spec: string): Promise<void>
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
  /** Another machine of the same merchant: a config dir of its own (its own history), the environment profile; removed at close. */
  machine(): {dir: string; env: Record<string, string>}
  /** A file of this content in the world's folder (a CSV of refunds): its path. */
  file(name: string, content: string | Buffer): string
  /** A CSV of this content in the world's folder, named `name` or `refunds-N.csv`: its path. */
  csv(content: string | Buffer, name?: string): string
  /** `gw refund create --from-csv CSV --yes`, then `extra`. */
  bulk(csv: string, extra?: string[]): Promise<CliResult>
  /** The CSV report gw wrote for a bulk file (NAME.report.csv beside it), a record per line, as a script reads it (untab). */
  reportOf(csv: string): Record<string, string>[]
  /** The refunds the sandbox's ledger holds for an order (none for an order it does not know). */
  refundsOf(mchOrderNo: string): Promise<{mch_refund_no: string; refund_fee: number; state: string}[]>
  close(): Promise<void>
}

/** `gw order create` of one THB order, no QR drawn: its arguments. */
export const orderCreate = (mchOrderNo: string, channel = 'wechat', amount = '150.50') => [
  'order',
  'create',
  '--channel',
  channel,
  '--amount',
  amount,
  '--fee-type',
  'THB',
  '--mch-order-no',
  mchOrderNo,
  '--no-qr',
]

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
    createOrder: (mchOrderNo, channel, amount) => world.run(orderCreate(mchOrderNo, channel, amount)),
    async paidOrders(count, totalFee, prefix, channel = 'wechat') {
      const wire = sandbox.wire()
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
            const paid = await sandbox.controls.pay(mch)
            if (paid.status !== 200) throw new Error(JSON.stringify(paid.body))
          }),
        )
      }
      return numbers
    },
    requests: () => sandbox.controls.requests(),
    faults: async (spec) => void (await sandbox.controls.faults(spec)),
    interrupted: (args, stopAt, runOptions) => world.during(args, stopAt, (child) => child.kill('SIGINT'), runOptions),
    async during(args, {operation, count}, act, runOptions) {
      await world.faults(`latency=300-300ms@${operation}`)
      try {
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
      } finally {
        await world.faults('')
      }
    },
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
    machine() {
      const dir = tempDir('gw-machine-')
      machines.push(dir)
      return {dir, env: world.environmentProfile({GW_CONFIG_DIR: dir})}
    },
    file(name, content) {
      const path = join(configDir, name)
      writeFileSync(path, content)
      return path
    },
    csv: (content, name = `refunds-${++files}.csv`) => world.file(name, content),
    bulk: (csv, extra = []) => world.run(['refund', 'create', '--from-csv', csv, '--yes', ...extra]),
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
